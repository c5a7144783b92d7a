#pragma once
// The tools of DESIGN §4 (finish is the loop's own), in the order the model is told about them.

#include "agent_core/memory/AgentMemory.h"
#include "agent_core/tools/Tool.h"

#include <string>
#include <vector>

namespace warren::agent {

// memory may be null: the memory tools then answer every call with unavailableReason.
std::vector<ToolEntry> builtInTools(AgentMemory* memory, std::string unavailableReason);

} // namespace warren::agent
