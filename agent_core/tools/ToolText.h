#pragma once
// The text a file tool hands the model: valid UTF-8 (it travels in JSON, and files need not be UTF-8)
// and within the output limit, cut on a character boundary.

#include "Utf8.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace warren::agent {

// The longest prefix of text no longer than limit bytes that does not end inside a UTF-8 sequence.
inline std::string_view utf8Prefix(std::string_view text, std::size_t limit) {
    if (limit >= text.size())
        return text;
    std::size_t end = limit;
    for (int back = 0; back < 3 && end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80; ++back)
        --end;
    return text.substr(0, end);
}

// bytes with every byte that does not begin a valid UTF-8 sequence replaced by U+FFFD.
inline std::string validUtf8(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    while (const auto bad = protocol::firstInvalidUtf8(bytes)) {
        out.append(bytes.substr(0, *bad));
        out.append("\xEF\xBF\xBD");
        bytes.remove_prefix(*bad + 1);
    }
    out.append(bytes);
    return out;
}

// A line shortened to about maxBytes, the cut marked.
inline std::string shortenLine(std::string_view line, std::size_t maxBytes) {
    if (line.size() <= maxBytes)
        return std::string(line);
    return std::string(utf8Prefix(line, maxBytes)) + " [... " + std::to_string(line.size()) + " bytes]";
}

// Output built piece by piece up to a byte limit; the piece that does not fit is cut and ends it.
class CappedOutput {
public:
    explicit CappedOutput(std::size_t limit) : m_limit(limit) {}

    // false when text did not fit whole: what fits of it was kept and the output is full.
    bool append(std::string_view text) {
        if (m_full)
            return false;
        const std::size_t room = m_limit - m_text.size();
        if (text.size() <= room) {
            m_text.append(text);
            return true;
        }
        m_text.append(utf8Prefix(text, room));
        m_full = true;
        return false;
    }

    bool full() const { return m_full; }
    std::string take() { return std::move(m_text); }

private:
    std::size_t m_limit;
    std::string m_text;
    bool m_full = false;
};

} // namespace warren::agent
