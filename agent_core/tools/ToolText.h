#pragma once
// The text a file tool hands the model: valid UTF-8 (it travels in JSON, and files need not be UTF-8)
// and within the output limit, cut on a character boundary.

#include "common/Utf8.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace warren::agent {

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
