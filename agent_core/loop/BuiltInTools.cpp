#include "agent_core/loop/BuiltInTools.h"

#include "agent_core/loop/ToolRegistry.h"
#include "agent_core/memory/MemoryTools.h"
#include "agent_core/skills/SkillTool.h"
#include "agent_core/tools/ApplyPatchTool.h"
#include "agent_core/tools/EditFileTool.h"
#include "agent_core/tools/ListFilesTool.h"
#include "agent_core/tools/ReadFileTool.h"
#include "agent_core/tools/SearchTool.h"
#include "agent_core/tools/ShellTool.h"
#include "agent_core/tools/UpdatePlanTool.h"
#include "agent_core/tools/WriteFileTool.h"

namespace warren::agent {

namespace {

template <typename T> ToolEntry plainTool() {
    return {T::spec(), [] { return std::make_unique<T>(); }};
}

template <typename T> ToolEntry memoryTool(AgentMemory* memory, const std::string& unavailableReason) {
    return {T::spec(), [memory, unavailableReason]() -> std::unique_ptr<Tool> {
                if (!memory)
                    return std::make_unique<UnavailableTool>(unavailableReason);
                return std::make_unique<T>(*memory);
            }};
}

} // namespace

std::vector<ToolEntry> builtInTools(AgentMemory* memory, std::string unavailableReason,
                                    const SkillLibrary* skills) {
    return {plainTool<ShellTool>(),
            plainTool<ReadFileTool>(),
            plainTool<WriteFileTool>(),
            plainTool<EditFileTool>(),
            plainTool<ApplyPatchTool>(),
            plainTool<ListFilesTool>(),
            plainTool<SearchTool>(),
            plainTool<UpdatePlanTool>(),
            memoryTool<MemorySaveTool>(memory, unavailableReason),
            memoryTool<MemoryLoadTool>(memory, unavailableReason),
            memoryTool<MemorySearchTool>(memory, unavailableReason),
            skillToolEntry(skills)};
}

ToolEntry skillToolEntry(const SkillLibrary* skills) {
    return {SkillTool::spec(), [skills] { return std::make_unique<SkillTool>(skills); }};
}

bool isReadOnlyTool(const std::string& name) {
    for (auto& entry : builtInTools(nullptr, "not made to run"))
        if (entry.spec.name == name)
            return entry.make()->readOnly();
    return false;
}

} // namespace warren::agent
