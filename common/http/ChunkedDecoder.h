#pragma once
// A chunked body (RFC 9112 §7.1) decoded as its bytes arrive: chunk data out, chunk extensions and trailer
// fields read and dropped. Pure. The model proxy reads requests' bodies with it (IncomingBody), the agent
// the answers of remote MCP servers (agent_core/net/HttpExchange).
//
// Refused: more than maxData bytes of data in all (tooLarge()); a chunk-size that is not hexadecimal or has
// no CRLF within kMaxChunkLineBytes, data not followed by CRLF, a bare LF, or trailers longer than
// maxTrailerBytes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace warren {

inline constexpr std::size_t kMaxChunkLineBytes = 4096;

class ChunkedDecoder {
public:
    ChunkedDecoder(std::uint64_t maxData, std::size_t maxTrailerBytes);

    // Decodes what it can of bytes, appending chunk data to data; returns how many of the bytes belong to
    // the body (what follows its end is not taken). Nothing is taken once refused.
    std::size_t feed(std::string_view bytes, std::string& data);

    bool complete() const { return m_state == State::Done; }
    bool refused() const { return m_state == State::Refused; }
    bool tooLarge() const { return m_tooLarge; }
    const std::string& error() const { return m_error; } // once refused: why
    std::uint64_t decoded() const { return m_decoded; }

private:
    enum class State { ChunkSize, ChunkData, ChunkEnd, Trailers, Done, Refused };

    std::size_t refuse(std::string message, std::size_t used);

    State m_state = State::ChunkSize;
    std::uint64_t m_maxData = 0;
    std::size_t m_maxTrailerBytes = 0;
    std::uint64_t m_remaining = 0; // of the current chunk's data
    std::uint64_t m_decoded = 0;
    std::string m_line; // a chunk-size line or the trailers, until their end
    bool m_tooLarge = false;
    std::string m_error;
};

} // namespace warren
