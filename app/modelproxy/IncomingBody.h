#pragma once
// The body after a request head (ModelRequestHead): Content-Length bytes, or a chunked body (RFC 9112 §7.1)
// decoded by ChunkedDecoder, its chunk extensions and trailer fields read and dropped. Pure: a proxy feeds it what it reads
// and, once it is complete, forwards body() with a Content-Length of its own.
//
// Refused, with the status to answer: more than maxBody bytes of body (413); a chunk-size that is not
// hexadecimal or has no CRLF within kMaxChunkLineBytes, data not followed by CRLF, a bare LF, or trailers
// longer than kMaxModelHeadBytes (400).

#include "app/modelproxy/ModelRequestHead.h"
#include "common/http/ChunkedDecoder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warren::control {

using warren::kMaxChunkLineBytes;

class IncomingBody {
public:
    IncomingBody() = default;
    IncomingBody(const ModelRequestHead& head, std::uint64_t maxBody);

    // Takes what followed the head (or the bytes read since); returns how many of them belong to the body.
    // What follows a complete body is not taken. Nothing is taken once refused.
    std::size_t feed(std::string_view bytes);

    bool complete() const { return m_state == State::Done; }
    const std::optional<ModelHeadError>& error() const { return m_error; }
    const std::string& body() const { return m_body; }
    std::string takeBody() { return std::move(m_body); }
    // Bytes the body still needs when that is known (Content-Length); otherwise a read's worth.
    std::uint64_t wanted() const;

private:
    enum class State { Length, Chunked, Done, Refused };

    std::size_t feedChunked(std::string_view bytes);

    State m_state = State::Done;
    std::uint64_t m_maxBody = 0;
    std::uint64_t m_remaining = 0; // of Content-Length
    std::optional<ChunkedDecoder> m_chunked;
    std::string m_body;
    std::optional<ModelHeadError> m_error;
};

} // namespace warren::control
