#include "Utf8Chunker.h"

namespace warren::agent {
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

} // namespace

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

std::string Utf8Chunker::push(std::string_view bytes) {
    std::string chunk;
    chunk.reserve(m_pending.size() + bytes.size());
    chunk.append(m_pending);
    chunk.append(bytes);
    const std::size_t held = incompleteUtf8Suffix(chunk);
    m_pending.assign(chunk, chunk.size() - held, held);
    chunk.resize(chunk.size() - held);
    return chunk;
}

std::string Utf8Chunker::finish() {
    std::string rest;
    rest.swap(m_pending);
    return rest;
}

} // namespace warren::agent
