#pragma once
// The tools of DESIGN §4 (finish is the loop's own), in the order the model is told about them.

#include "agent_core/memory/AgentMemory.h"
#include "agent_core/skills/SkillLibrary.h"
#include "agent_core/tools/Tool.h"

#include <string>
#include <vector>

namespace warren::agent {

// memory may be null: the memory tools then answer every call with unavailableReason. skills may be null:
// the skill tool then says there are none (the loop offers it only when there are some).
std::vector<ToolEntry> builtInTools(AgentMemory* memory, std::string unavailableReason,
                                    const SkillLibrary* skills = nullptr);

// The skill tool's entry alone: the loop adds it when a run's first skill appears mid-task.
ToolEntry skillToolEntry(const SkillLibrary* skills);

// Whether the built-in tool of that name only reads (Tool::readOnly()), asked of the tool itself. Made here
// without a memory, the memory tools say no: they stand in for the task's memory, which no role shares.
bool isReadOnlyTool(const std::string& name);

} // namespace warren::agent
