#include "common/http/ChunkedDecoder.h"

#include <algorithm>

namespace warren {

namespace {

constexpr std::string_view kCrlf = "\r\n";

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// A whole line ends in CRLF and holds no other CR or LF.
bool wellEnded(std::string_view line) {
    return line.size() >= 2 && line.substr(line.size() - 2) == kCrlf &&
           line.substr(0, line.size() - 2).find_first_of("\r\n") == std::string_view::npos;
}

} // namespace

ChunkedDecoder::ChunkedDecoder(std::uint64_t maxData, std::size_t maxTrailerBytes)
    : m_maxData(maxData), m_maxTrailerBytes(maxTrailerBytes) {}

std::size_t ChunkedDecoder::refuse(std::string message, std::size_t used) {
    m_state = State::Refused;
    m_error = std::move(message);
    return used;
}

std::size_t ChunkedDecoder::feed(std::string_view bytes, std::string& data) {
    std::size_t used = 0;
    const auto tooLarge = [&] {
        m_tooLarge = true;
        return refuse("the chunked body is larger than " + std::to_string(m_maxData) + " bytes", used);
    };
    while (used < bytes.size() && m_state != State::Done && m_state != State::Refused) {
        const std::string_view rest = bytes.substr(used);
        if (m_state == State::ChunkData) {
            const std::size_t taken = std::size_t(std::min<std::uint64_t>(m_remaining, rest.size()));
            data.append(rest.substr(0, taken));
            m_remaining -= taken;
            m_decoded += taken;
            used += taken;
            if (m_remaining == 0)
                m_state = State::ChunkEnd;
            continue;
        }
        if (m_state == State::ChunkEnd) {
            const std::size_t taken = std::min(kCrlf.size() - m_line.size(), rest.size());
            m_line.append(rest.substr(0, taken));
            used += taken;
            if (m_line.size() < kCrlf.size())
                continue;
            if (m_line != kCrlf)
                return refuse("a chunk's data is not followed by CRLF (its size is wrong)", used);
            m_line.clear();
            m_state = State::ChunkSize;
            continue;
        }
        // A chunk-size line or a trailer line, up to its LF.
        const std::size_t newline = rest.find('\n');
        const std::size_t taken = newline == std::string_view::npos ? rest.size() : newline + 1;
        m_line.append(rest.substr(0, taken));
        used += taken;
        const std::size_t limit = m_state == State::ChunkSize ? kMaxChunkLineBytes : m_maxTrailerBytes;
        if (m_line.size() > limit)
            return refuse(m_state == State::ChunkSize ? "a chunk-size line is too long"
                                                      : "the trailer fields after a chunked body are too long",
                          used);
        if (newline == std::string_view::npos)
            continue;
        if (!wellEnded(m_line))
            return refuse("a line of the chunked body does not end in CRLF", used);
        if (m_state == State::Trailers) {
            if (m_line == kCrlf)
                m_state = State::Done;
            m_line.clear(); // a trailer field: dropped
            continue;
        }
        const std::string_view line = std::string_view(m_line).substr(0, m_line.size() - kCrlf.size());
        std::uint64_t size = 0;
        std::size_t digits = 0;
        for (; digits < line.size() && hexValue(line[digits]) >= 0; ++digits) {
            size = size * 16 + std::uint64_t(hexValue(line[digits]));
            if (size > m_maxData)
                return tooLarge();
        }
        std::string_view extension = line.substr(digits);
        while (!extension.empty() && (extension.front() == ' ' || extension.front() == '\t'))
            extension.remove_prefix(1);
        if (digits == 0 || (!extension.empty() && extension.front() != ';'))
            return refuse("a chunk-size is not a hexadecimal number", used);
        m_line.clear();
        if (size == 0) {
            m_state = State::Trailers;
        } else if (m_decoded + size > m_maxData) {
            return tooLarge();
        } else {
            m_remaining = size;
            m_state = State::ChunkData;
        }
    }
    return used;
}

} // namespace warren
