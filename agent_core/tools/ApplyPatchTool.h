#pragma once
// apply_patch {input}: edits workspace files with a patch in the format OpenAI's models are trained on
// (PatchFormat.h), offered to them in place of edit_file. The whole patch is applied or none of it: every
// path is resolved inside the workspace, every file read and every hunk matched before anything is
// written; a write that still fails undoes the ones before it. Each file changed is reported with its
// diff, like edit_file's.

#include "agent_core/tools/Tool.h"

#include <cstddef>
#include <string_view>

namespace warren::agent {

class ApplyPatchTool : public Tool {
public:
    static constexpr std::string_view kName = "apply_patch";
    static constexpr std::size_t kMaxFileBytes = 16 * 1024 * 1024;

    static protocol::ToolSpec spec();

    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
};

} // namespace warren::agent
