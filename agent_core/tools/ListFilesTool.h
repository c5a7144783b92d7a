#pragma once
// list_files {path?, depth?}: the tree under a workspace directory as sorted workspace-relative paths,
// directories marked with "/" and symlinks with their target (never followed); .git is shown, not entered.

#include "agent_core/tools/Tool.h"

#include <cstddef>
#include <string_view>

namespace warren::agent {

class ListFilesTool : public Tool {
public:
    static constexpr std::string_view kName = "list_files";
    static constexpr std::size_t kDefaultDepth = 2;
    static constexpr std::size_t kMaxDepth = 10;
    static constexpr std::size_t kMaxEntries = 2000;

    static protocol::ToolSpec spec();

    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
    bool readOnly() const override { return true; }
    bool concurrencySafe() const override { return true; }
    // The names and stat identities of the entries the listing walks, within its depth.
    std::optional<std::string> contentKey(const nlohmann::json& arguments, const ToolEnv& env) const override;
};

} // namespace warren::agent
