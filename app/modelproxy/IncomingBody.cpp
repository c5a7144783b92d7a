#include "app/modelproxy/IncomingBody.h"

#include <algorithm>

namespace warren::control {

IncomingBody::IncomingBody(const ModelRequestHead& head, std::uint64_t maxBody) : m_maxBody(maxBody) {
    if (head.chunked) {
        m_chunked.emplace(maxBody, kMaxModelHeadBytes);
        m_state = State::Chunked;
    } else {
        m_remaining = head.contentLength;
        m_state = m_remaining > 0 ? State::Length : State::Done;
    }
}

std::uint64_t IncomingBody::wanted() const {
    if (m_state == State::Length)
        return m_remaining;
    return m_state == State::Chunked ? 64 * 1024 : 0;
}

std::size_t IncomingBody::feed(std::string_view bytes) {
    if (m_state == State::Length) {
        const std::size_t taken = std::size_t(std::min<std::uint64_t>(m_remaining, bytes.size()));
        m_body.append(bytes.substr(0, taken));
        m_remaining -= taken;
        if (m_remaining == 0)
            m_state = State::Done;
        return taken;
    }
    if (m_state != State::Chunked)
        return 0;
    return feedChunked(bytes);
}

std::size_t IncomingBody::feedChunked(std::string_view bytes) {
    const std::size_t used = m_chunked->feed(bytes, m_body);
    if (m_chunked->complete()) {
        m_state = State::Done;
    } else if (m_chunked->refused()) {
        m_state = State::Refused;
        m_body.clear();
        m_error = m_chunked->tooLarge()
                      ? ModelHeadError{413, "the chunked request body is larger than the " + std::to_string(m_maxBody) +
                                                " bytes a request may send"}
                      : ModelHeadError{400, m_chunked->error()};
    }
    return used;
}

} // namespace warren::control
