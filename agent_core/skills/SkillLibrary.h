#pragma once
// A run's skills (DESIGN §13): found when the run starts, looked for again before each step, cheaply (the
// fingerprint of the SKILL.md files' paths, sizes and modification times, SkillDiscovery.h), and read again
// only when that changed, so a skill added, changed or removed mid-task is what the model sees at its next
// step. What became of them are notices the loop reports: the skills offered, then what changed, and each
// skill left out (once, not at every look). Changed only between steps, so the skill tool may read it from
// calls running at the same time.

#include "agent_core/protocol/SetupNotices.h"
#include "agent_core/skills/Skill.h"
#include "agent_core/skills/SkillDiscovery.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

struct SkillNotice {
    enum class Kind {
        Info,    // the skills offered, what changed
        Skipped, // a skill or a root left out, and why
    };
    Kind kind = Kind::Info;
    std::string message;
};

class SkillLibrary {
public:
    explicit SkillLibrary(std::vector<SkillRoot> roots);

    // Looks at the roots, and reads them again when they changed since the last look (the first always
    // reads). True when the skills are not what they were before: the prompt's list and the tool follow.
    bool refresh();

    const std::vector<Skill>& skills() const { return m_skills; }
    const Skill* find(std::string_view name) const;
    std::vector<std::string> names() const;

    std::vector<SkillNotice> takeNotices();

private:
    std::vector<SkillRoot> m_roots;
    std::optional<std::string> m_fingerprint; // nullopt: never looked
    std::vector<Skill> m_skills;
    std::vector<std::string> m_skipped;
    std::vector<SkillNotice> m_notices;
};

// The skills added, changed (its description or its SKILL.md) and removed, as the "skills changed" notice
// says them (protocol/SetupNotices.h); all three empty when before and after are the same skills. Pure.
protocol::SkillsNotice skillChanges(const std::vector<Skill>& before, const std::vector<Skill>& after);

} // namespace warren::agent
