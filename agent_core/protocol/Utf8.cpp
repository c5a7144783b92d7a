#include "Utf8.h"

namespace warren::protocol {

namespace {

bool isContinuation(unsigned char byte) {
    return (byte & 0xC0) == 0x80;
}

// The length of the valid sequence starting at bytes[i], or 0 when it is invalid. The ranges of the second
// byte are those of RFC 3629 §4: they exclude overlongs (E0 80..9F, F0 80..8F), surrogates (ED A0..BF)
// and code points above U+10FFFF (F4 90.., F5..FF).
std::size_t sequenceLength(std::string_view bytes, std::size_t i) {
    const auto at = [&](std::size_t k) {
        return static_cast<unsigned char>(bytes[k]);
    };
    const unsigned char lead = at(i);
    if (lead < 0x80)
        return 1;
    std::size_t length = 0;
    unsigned char secondMin = 0x80;
    unsigned char secondMax = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0)
            secondMin = 0xA0;
        else if (lead == 0xED)
            secondMax = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0)
            secondMin = 0x90;
        else if (lead == 0xF4)
            secondMax = 0x8F;
    } else {
        return 0; // a stray continuation byte, C0/C1 (always overlong) or F5..FF
    }
    if (bytes.size() - i < length)
        return 0;
    if (at(i + 1) < secondMin || at(i + 1) > secondMax)
        return 0;
    for (std::size_t k = 2; k < length; ++k) {
        if (!isContinuation(at(i + k)))
            return 0;
    }
    return length;
}

} // namespace

std::optional<std::size_t> firstInvalidUtf8(std::string_view bytes) {
    std::size_t i = 0;
    while (i < bytes.size()) {
        const std::size_t length = sequenceLength(bytes, i);
        if (length == 0)
            return i;
        i += length;
    }
    return std::nullopt;
}

} // namespace warren::protocol
