#pragma once
// skill {name, file?}: a skill loaded when the model uses it (progressive disclosure, DESIGN §13): the
// system prompt lists the skills' names and descriptions; this gives one skill's instructions (its SKILL.md
// without the front matter, read again now) with where its folder is and the files in it, or, with file, one
// of those files as text. file is relative to the skill's folder; an absolute path, "..", or a symlink that
// leads out of the folder is refused (SkillFolder.h). Output is capped at ToolEnv::outputLimitBytes, the
// cut marked with where the whole file is. Read-only; offered only when the run has at least one skill.

#include "agent_core/skills/SkillLibrary.h"
#include "agent_core/tools/Tool.h"

#include <string_view>

namespace warren::agent {

class SkillTool : public Tool {
public:
    static constexpr std::string_view kName = "skill";

    static protocol::ToolSpec spec();

    // library may be null (a tool made only to be asked readOnly()): every call then says there are no
    // skills. It outlives the tool and changes only between steps.
    explicit SkillTool(const SkillLibrary* library) : m_library(library) {}

    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
    bool readOnly() const override { return true; }
    bool concurrencySafe() const override { return true; }

private:
    ToolOutcome loadSkill(const Skill& skill, const ToolEnv& env) const;
    ToolOutcome readSkillFile(const Skill& skill, const std::string& path, const ToolEnv& env) const;

    const SkillLibrary* m_library;
};

} // namespace warren::agent
