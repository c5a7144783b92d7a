#include "agent_core/protocol/McpToolName.h"

#include <algorithm>

namespace warren::protocol {

namespace {
constexpr std::size_t kMaxToolNameBytes = 128; // the model APIs': ^[a-zA-Z0-9_-]{1,128}$
} // namespace

std::string mcpToolPrefix(std::string_view server) {
    return std::string(kMcpToolPrefix) + std::string(server) + std::string(kMcpToolSeparator);
}

bool isMcpToolName(std::string_view name) {
    return name.starts_with(kMcpToolPrefix);
}

std::optional<McpToolParts> splitMcpToolName(std::string_view name) {
    if (!isMcpToolName(name))
        return std::nullopt;
    const std::string_view rest = name.substr(kMcpToolPrefix.size());
    const std::size_t separator = rest.find(kMcpToolSeparator);
    if (separator == 0 || separator == std::string_view::npos || separator + kMcpToolSeparator.size() == rest.size())
        return std::nullopt;
    return McpToolParts{std::string(rest.substr(0, separator)),
                        std::string(rest.substr(separator + kMcpToolSeparator.size()))};
}

bool isMcpToolPattern(std::string_view entry) {
    if (!isMcpToolName(entry) || entry.size() > kMaxToolNameBytes)
        return false;
    std::string_view rest = entry.substr(kMcpToolPrefix.size());
    if (rest == "*")
        return true;
    const std::size_t separator = rest.find(kMcpToolSeparator);
    if (separator == 0 || separator == std::string_view::npos || separator + kMcpToolSeparator.size() == rest.size())
        return false;
    if (rest.ends_with("__*") && rest.size() == separator + kMcpToolSeparator.size() + 1)
        rest.remove_suffix(1); // SERVER__*: every tool of the server
    return std::all_of(rest.begin(), rest.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    });
}

bool mcpToolListed(std::string_view entry, std::string_view tool) {
    if (!isMcpToolName(tool) || !isMcpToolName(entry))
        return false;
    if (entry.ends_with('*'))
        return tool.starts_with(entry.substr(0, entry.size() - 1));
    return entry == tool;
}

} // namespace warren::protocol
