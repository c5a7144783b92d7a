#include "agent_core/clis/CliStream.h"

#include "common/Utf8.h"

#include <string_view>

namespace warren::agent {

std::string boundedText(const std::string& text, std::size_t limit, bool* truncated) {
    const bool cut = text.size() > limit;
    if (truncated)
        *truncated = cut;
    return cut ? std::string(utf8Prefix(text, limit)) : text;
}

std::string workspaceRelative(std::string path) {
    constexpr std::string_view workspace = "/workspace/";
    if (path.starts_with(workspace) && path.size() > workspace.size())
        path.erase(0, workspace.size());
    return path;
}

} // namespace warren::agent
