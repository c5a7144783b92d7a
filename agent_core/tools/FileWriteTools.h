#pragma once
// Warren's tools that write the workspace's files: write_file, edit_file, apply_patch. An approval rule's
// path glob decides their calls (app/proxy/ApprovalRules), and a CLI's file change is asked about when the
// task's approval_tools name any of them (agent_core/clis/CodexPermissions). Header only: both link nothing
// for it.

#include <string_view>

namespace warren::agent {

inline bool isFileWriteTool(std::string_view tool) {
    return tool == "write_file" || tool == "edit_file" || tool == "apply_patch";
}

} // namespace warren::agent
