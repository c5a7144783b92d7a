#include "agent_core/protocol/LineReader.h"

#include "common/Utf8.h"

#include <algorithm>

namespace warren::protocol {

LineReader::LineReader(std::size_t maxLineBytes) : m_maxLineBytes(maxLineBytes) {}

std::vector<Result<std::string>> LineReader::feed(std::string_view bytes) {
    std::vector<Result<std::string>> out;
    while (!bytes.empty()) {
        const std::size_t newline = bytes.find('\n');
        appendToLine(bytes.substr(0, newline));
        if (newline == std::string_view::npos)
            break;
        endLine(out);
        bytes.remove_prefix(newline + 1);
    }
    return out;
}

std::vector<Result<std::string>> LineReader::finish() {
    std::vector<Result<std::string>> out;
    if (m_skipping) {
        out.push_back(makeError(ErrorCode::InvalidArgument,
                                "line " + std::to_string(m_lineNumber) + ": " +
                                    std::to_string(m_skippedBytes) + " bytes exceed the line cap of " +
                                    std::to_string(m_maxLineBytes) +
                                    " bytes and the stream ended before its newline"));
    } else if (!m_buffer.empty()) {
        out.push_back(makeError(ErrorCode::InvalidArgument,
                                "line " + std::to_string(m_lineNumber) + ": the stream ended after " +
                                    std::to_string(m_buffer.size()) +
                                    " bytes without a newline (truncated message)"));
    }
    std::string().swap(m_buffer);
    m_skipping = false;
    m_skippedBytes = 0;
    m_skippedEndsWithCr = false;
    m_lineNumber = 1;
    return out;
}

void LineReader::appendToLine(std::string_view segment) {
    if (segment.empty())
        return;
    if (m_skipping) {
        m_skippedBytes += segment.size();
        m_skippedEndsWithCr = segment.back() == '\r';
        return;
    }
    // One byte beyond the cap may be the '\r' of a "\r\n" terminator; anything more is over the cap.
    const std::size_t room = m_maxLineBytes + 1 - m_buffer.size();
    const std::size_t kept = std::min(room, segment.size());
    m_buffer.append(segment.substr(0, kept));
    const bool overCap =
        kept < segment.size() || (m_buffer.size() == m_maxLineBytes + 1 && m_buffer.back() != '\r');
    if (overCap) {
        m_skipping = true;
        m_skippedBytes = m_buffer.size() + (segment.size() - kept);
        m_skippedEndsWithCr = segment.back() == '\r';
        std::string().swap(m_buffer); // give the cap's worth of memory back while the rest is skipped
    }
}

void LineReader::endLine(std::vector<Result<std::string>>& out) {
    const std::string where = "line " + std::to_string(m_lineNumber) + ": ";
    ++m_lineNumber;
    if (m_skipping) {
        const std::uint64_t length = m_skippedBytes - (m_skippedEndsWithCr ? 1 : 0);
        m_skipping = false;
        m_skippedBytes = 0;
        m_skippedEndsWithCr = false;
        out.push_back(makeError(ErrorCode::InvalidArgument,
                                where + std::to_string(length) + " bytes exceed the line cap of " +
                                    std::to_string(m_maxLineBytes) + " bytes; the line was skipped"));
        return;
    }
    std::string line;
    line.swap(m_buffer);
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    if (line.empty())
        return;
    if (const auto bad = firstInvalidUtf8(line)) {
        out.push_back(
            makeError(ErrorCode::InvalidArgument,
                      where + "invalid UTF-8 at byte " + std::to_string(*bad) + "; the line was skipped"));
        return;
    }
    out.push_back(std::move(line));
}

} // namespace warren::protocol
