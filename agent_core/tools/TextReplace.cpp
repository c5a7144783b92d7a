#include "agent_core/tools/TextReplace.h"

namespace warren::agent {

TextReplace replaceText(std::string_view text, std::string_view old, std::string_view replacement) {
    TextReplace result;
    if (old.empty())
        return result;
    for (std::size_t at = text.find(old); at != std::string_view::npos; at = text.find(old, at + old.size()))
        result.found.push_back(at);
    result.edited.reserve(text.size() + result.found.size() * replacement.size());
    std::size_t copied = 0;
    for (const std::size_t at : result.found) {
        result.edited.append(text, copied, at - copied);
        result.edited.append(replacement);
        copied = at + old.size();
    }
    result.edited.append(text, copied);
    return result;
}

} // namespace warren::agent
