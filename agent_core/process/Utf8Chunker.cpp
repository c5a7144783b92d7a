#include "agent_core/process/Utf8Chunker.h"

#include "common/Utf8.h"

namespace warren::agent {

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
