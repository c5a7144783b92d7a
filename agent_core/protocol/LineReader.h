#pragma once
// Splits the byte stream of a peer's stdout (or stdin) into lines, one JSON message each, whatever the
// chunking of the reads. A peer is not trusted: a line longer than the cap is reported once and skipped
// up to its newline without being buffered, so a flood without newlines costs at most the cap in memory;
// a line that is not UTF-8 is reported and dropped. Each report is an Error naming the line's number, so
// the caller can emit an error event and carry on with the next line.

#include "common/Result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warren::protocol {

class LineReader {
public:
    static constexpr std::size_t kDefaultMaxLineBytes = 8 * 1024 * 1024;

    // maxLineBytes counts the line's bytes without its terminator ("\n" or "\r\n").
    explicit LineReader(std::size_t maxLineBytes = kDefaultMaxLineBytes);

    // The lines (without terminator) completed by these bytes, and an Error for each bad one, in stream
    // order. Empty lines are skipped.
    std::vector<Result<std::string>> feed(std::string_view bytes);

    // End of stream: an Error for a last line that has no newline (it was truncated), else nothing.
    // The reader is then ready for a new stream.
    std::vector<Result<std::string>> finish();

    std::size_t maxLineBytes() const { return m_maxLineBytes; }
    // Bytes held for the line in progress; never more than maxLineBytes() + 1 (a pending '\r').
    std::size_t bufferedBytes() const { return m_buffer.size(); }

private:
    void appendToLine(std::string_view segment);
    void endLine(std::vector<Result<std::string>>& out);

    std::size_t m_maxLineBytes;
    std::string m_buffer;
    bool m_skipping = false; // the current line passed the cap: count it, do not keep it
    std::uint64_t m_skippedBytes = 0;
    bool m_skippedEndsWithCr = false;
    std::uint64_t m_lineNumber = 1; // 1-based, counting every line including empty ones
};

} // namespace warren::protocol
