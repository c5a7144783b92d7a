#include "agent_core/prompt/PromptText.h"

#include <cctype>

namespace warren::agent {

std::string_view withoutHeader(std::string_view text) {
    if (!text.starts_with("<!--"))
        return text;
    const auto end = text.find("-->");
    if (end == std::string_view::npos)
        return text;
    text.remove_prefix(end + 3);
    while (!text.empty() && text.front() == '\n')
        text.remove_prefix(1);
    return text;
}

std::string versionOf(std::string_view text) {
    const auto at = text.find("version ");
    if (at == std::string_view::npos || at > text.find("-->"))
        return "unversioned";
    auto end = at + 8;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])))
        ++end;
    return std::string(text.substr(at + 8, end - at - 8));
}

} // namespace warren::agent
