#pragma once
// search {pattern, path?, glob?}: lines of workspace text files matching an ECMAScript regular expression,
// as "file:line: text" sorted by file then line. Skips .git, binary files and files over kMaxFileBytes;
// never follows a symlink.

#include "agent_core/tools/Tool.h"

#include <cstddef>
#include <string_view>

namespace warren::agent {

class SearchTool : public Tool {
public:
    static constexpr std::string_view kName = "search";
    static constexpr std::size_t kMaxMatches = 500;
    static constexpr std::size_t kMaxFileBytes = 4 * 1024 * 1024;
    static constexpr std::size_t kShownLineBytes = 300;
    // std::regex matches by recursion, a frame or more per character: a long line would overflow the
    // stack. Longer lines are matched on their first kMatchedLineBytes bytes only (and the output says so).
    static constexpr std::size_t kMatchedLineBytes = 2048;

    static protocol::ToolSpec spec();

    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
    bool readOnly() const override { return true; }
    bool concurrencySafe() const override { return true; }
    // The paths and stat identities of what the search walks.
    std::optional<std::string> contentKey(const nlohmann::json& arguments, const ToolEnv& env) const override;
};

} // namespace warren::agent
