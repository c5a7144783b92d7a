#include "agent_core/skills/SkillLibrary.h"

#include <algorithm>
#include <utility>

namespace warren::agent {

namespace {

const Skill* named(const std::vector<Skill>& skills, std::string_view name) {
    const auto found =
        std::find_if(skills.begin(), skills.end(), [&](const Skill& skill) { return skill.name == name; });
    return found == skills.end() ? nullptr : &*found;
}

} // namespace

SkillLibrary::SkillLibrary(std::vector<SkillRoot> roots) : m_roots(std::move(roots)) {}

bool SkillLibrary::refresh() {
    auto print = skillsFingerprint(m_roots);
    const bool first = !m_fingerprint;
    if (!first && print == *m_fingerprint)
        return false;
    m_fingerprint = std::move(print);
    auto scan = scanSkills(m_roots);
    for (const auto& message : scan.skipped)
        if (std::find(m_skipped.begin(), m_skipped.end(), message) == m_skipped.end())
            m_notices.push_back({SkillNotice::Kind::Skipped, message});
    m_skipped = std::move(scan.skipped);
    const protocol::SkillsNotice changes = skillChanges(m_skills, scan.skills);
    std::vector<Skill> before = std::exchange(m_skills, std::move(scan.skills));
    if (first) {
        if (!m_skills.empty())
            m_notices.push_back({SkillNotice::Kind::Info, protocol::skillsNoticeMessage({false, names(), {}, {}, {}})});
        return !m_skills.empty();
    }
    if (changes.added.empty() && changes.updated.empty() && changes.removed.empty())
        return false;
    m_notices.push_back({SkillNotice::Kind::Info, protocol::skillsNoticeMessage(changes)});
    return true;
}

const Skill* SkillLibrary::find(std::string_view name) const {
    return named(m_skills, name);
}

std::vector<std::string> SkillLibrary::names() const {
    std::vector<std::string> names;
    for (const auto& skill : m_skills)
        names.push_back(skill.name);
    return names;
}

std::vector<SkillNotice> SkillLibrary::takeNotices() {
    return std::exchange(m_notices, {});
}

protocol::SkillsNotice skillChanges(const std::vector<Skill>& before, const std::vector<Skill>& after) {
    protocol::SkillsNotice changes;
    changes.changed = true;
    for (const auto& skill : after) {
        const Skill* old = named(before, skill.name);
        if (!old)
            changes.added.push_back(skill.name);
        else if (!(*old == skill))
            changes.updated.push_back(skill.name);
    }
    for (const auto& skill : before)
        if (!named(after, skill.name))
            changes.removed.push_back(skill.name);
    return changes;
}

} // namespace warren::agent
