#include "agent_core/protocol/SetupNotices.h"

#include <algorithm>

namespace warren::protocol {

namespace {

constexpr std::string_view kOffered = "skills offered: ";
constexpr std::string_view kChanged = "skills changed: ";
constexpr std::string_view kAdded = "added ";
constexpr std::string_view kUpdated = "changed ";
constexpr std::string_view kRemoved = "removed ";
constexpr std::string_view kMcpServer = "MCP server \"";

std::string joined(const std::vector<std::string>& names, std::string_view separator) {
    std::string out;
    for (const auto& name : names)
        out += (out.empty() ? "" : std::string(separator)) + name;
    return out;
}

std::vector<std::string> split(std::string_view text, std::string_view separator) {
    std::vector<std::string> parts;
    while (!text.empty()) {
        const std::size_t at = text.find(separator);
        parts.emplace_back(text.substr(0, at));
        if (at == std::string_view::npos)
            break;
        text.remove_prefix(at + separator.size());
    }
    return parts;
}

bool readNames(std::string_view text, std::vector<std::string>& names) {
    names = split(text, ", ");
    for (const auto& name : names)
        if (!isValidSkillName(name))
            return false;
    return !names.empty();
}

} // namespace

bool isValidSkillName(std::string_view name) {
    return !name.empty() && name.size() <= kMaxSkillNameBytes &&
           std::all_of(name.begin(), name.end(),
                       [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

std::string skillsNoticeMessage(const SkillsNotice& notice) {
    if (!notice.changed)
        return std::string(kOffered) + joined(notice.offered, ", ");
    std::string parts;
    for (const auto& [what, names] : {std::pair{kAdded, &notice.added}, std::pair{kUpdated, &notice.updated},
                                      std::pair{kRemoved, &notice.removed}})
        if (!names->empty())
            parts += (parts.empty() ? "" : "; ") + std::string(what) + joined(*names, ", ");
    return std::string(kChanged) + parts;
}

std::optional<SkillsNotice> readSkillsNotice(std::string_view message) {
    SkillsNotice notice;
    if (message.starts_with(kOffered)) {
        if (!readNames(message.substr(kOffered.size()), notice.offered))
            return std::nullopt;
        return notice;
    }
    if (!message.starts_with(kChanged))
        return std::nullopt;
    notice.changed = true;
    for (const std::string& part : split(message.substr(kChanged.size()), "; ")) {
        const std::string_view text = part;
        std::vector<std::string>* names = text.starts_with(kAdded)     ? &notice.added
                                          : text.starts_with(kUpdated) ? &notice.updated
                                          : text.starts_with(kRemoved) ? &notice.removed
                                                                       : nullptr;
        if (!names || !names->empty())
            return std::nullopt;
        const std::size_t lead = names == &notice.added     ? kAdded.size()
                                 : names == &notice.updated ? kUpdated.size()
                                                            : kRemoved.size();
        if (!readNames(text.substr(lead), *names))
            return std::nullopt;
    }
    if (notice.added.empty() && notice.updated.empty() && notice.removed.empty())
        return std::nullopt;
    return notice;
}

std::string mcpServerLabel(std::string_view server) {
    return std::string(kMcpServer) + std::string(server) + "\"";
}

std::optional<McpServerNotice> readMcpServerNotice(std::string_view message) {
    if (!message.starts_with(kMcpServer))
        return std::nullopt;
    message.remove_prefix(kMcpServer.size());
    const std::size_t close = message.find('"');
    if (close == 0 || close == std::string_view::npos)
        return std::nullopt;
    McpServerNotice notice{std::string(message.substr(0, close)), {}};
    std::string_view said = message.substr(close + 1);
    if (said.starts_with(":"))
        said.remove_prefix(1);
    while (said.starts_with(" "))
        said.remove_prefix(1);
    notice.said = std::string(said);
    return notice;
}

} // namespace warren::protocol
