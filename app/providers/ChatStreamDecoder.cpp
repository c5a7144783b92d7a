#include "ChatStreamDecoder.h"

namespace warren::control {

std::string excerpt(std::string_view text, std::size_t maxBytes) {
    if (text.size() <= maxBytes)
        return std::string(text);
    std::size_t cut = maxBytes;
    // Back up over UTF-8 continuation bytes (10xxxxxx) so the message stays valid UTF-8.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    return std::string(text.substr(0, cut)) + "...";
}

} // namespace warren::control
