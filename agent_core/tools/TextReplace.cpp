#include "agent_core/tools/TextReplace.h"

namespace warren::agent {

TextReplace replaceText(std::string_view text, std::string_view old, std::string_view replacement,
                        std::size_t maxBytes) {
    TextReplace result;
    if (old.empty())
        return result;
    for (std::size_t at = text.find(old); at != std::string_view::npos; at = text.find(old, at + old.size()))
        result.found.push_back(at);
    // Each occurrence becomes the replacement: measured before anything is allocated for it.
    const std::size_t kept = text.size() - result.found.size() * old.size();
    if (kept > maxBytes ||
        (replacement.size() > 0 && result.found.size() > (maxBytes - kept) / replacement.size())) {
        result.tooLarge = true;
        return result;
    }
    result.edited.reserve(kept + result.found.size() * replacement.size());
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
