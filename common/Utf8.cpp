#include "common/Utf8.h"

namespace warren {

namespace {

bool isContinuation(unsigned char byte) {
    return (byte & 0xC0) == 0x80;
}

// The length a lead byte announces: 1 for ASCII, 2..4 for a lead byte, 0 for a byte that cannot begin a
// character (a continuation byte, C0/C1, F5..FF).
std::size_t announcedLength(unsigned char lead) {
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF)
        return 2;
    if (lead >= 0xE0 && lead <= 0xEF)
        return 3;
    if (lead >= 0xF0 && lead <= 0xF4)
        return 4;
    return 0;
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
    const std::size_t length = announcedLength(lead);
    if (length == 0)
        return 0; // a stray continuation byte, C0/C1 (always overlong) or F5..FF
    unsigned char secondMin = 0x80;
    unsigned char secondMax = 0xBF;
    if (lead == 0xE0)
        secondMin = 0xA0;
    else if (lead == 0xED)
        secondMax = 0x9F;
    else if (lead == 0xF0)
        secondMin = 0x90;
    else if (lead == 0xF4)
        secondMax = 0x8F;
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

std::optional<Utf8Char> utf8CharAt(std::string_view bytes, std::size_t i) {
    const std::size_t length = sequenceLength(bytes, i);
    if (length == 0)
        return std::nullopt;
    // The lead byte keeps 7, 5, 4 or 3 bits; each continuation byte adds 6.
    const auto lead = static_cast<unsigned char>(bytes[i]);
    char32_t codePoint = length == 1   ? lead
                         : length == 2 ? (lead & 0x1Fu)
                         : length == 3 ? (lead & 0x0Fu)
                                       : (lead & 0x07u);
    for (std::size_t k = 1; k < length; ++k)
        codePoint = (codePoint << 6) | (static_cast<unsigned char>(bytes[i + k]) & 0x3Fu);
    return Utf8Char{codePoint, length};
}

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

std::string validUtf8(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    while (const auto bad = firstInvalidUtf8(bytes)) {
        out.append(bytes.substr(0, *bad));
        out.append("\xEF\xBF\xBD");
        bytes.remove_prefix(*bad + 1);
    }
    out.append(bytes);
    return out;
}

std::string_view utf8Prefix(std::string_view text, std::size_t limit) {
    if (limit >= text.size())
        return text;
    std::size_t end = limit;
    for (int back = 0; back < 3 && end > 0 && isContinuation(static_cast<unsigned char>(text[end])); ++back)
        --end;
    return text.substr(0, end);
}

std::size_t incompleteUtf8Suffix(std::string_view bytes) {
    // The last byte that is not a continuation byte, looking back no further than a character can span.
    const std::size_t size = bytes.size();
    for (std::size_t back = 1; back <= 3 && back <= size; ++back) {
        const auto byte = static_cast<unsigned char>(bytes[size - back]);
        if (isContinuation(byte))
            continue;
        return announcedLength(byte) > back ? back : 0;
    }
    return 0;
}

std::size_t utf8ContinuationPrefix(std::string_view bytes) {
    std::size_t count = 0;
    while (count < 3 && count < bytes.size() && isContinuation(static_cast<unsigned char>(bytes[count])))
        ++count;
    return count;
}

} // namespace warren
