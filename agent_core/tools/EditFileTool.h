#pragma once
// edit_file {path, old_string, new_string, replace_all?}: replaces an exact piece of a workspace text
// file. old_string must occur exactly once unless replace_all, so an edit never lands somewhere the model
// did not mean; the file is rewritten atomically and keeps its mode.

#include "agent_core/tools/Tool.h"

#include <cstddef>
#include <string_view>

namespace warren::agent {

class EditFileTool : public Tool {
public:
    static constexpr std::string_view kName = "edit_file";
    static constexpr std::size_t kMaxFileBytes = 16 * 1024 * 1024;

    static protocol::ToolSpec spec();

    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
};

} // namespace warren::agent
