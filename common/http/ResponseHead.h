#pragma once
// The head of an HTTP/1.1 answer (RFC 9112), read from the bytes a server sent, and how its body is framed.
// Pure. The server is not trusted: the head is bounded, its lines checked, and a framing that could be read
// two ways (Content-Length values that differ, a transfer coding other than chunked) is an error.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace warren {

inline constexpr std::size_t kMaxResponseHeadBytes = 64 * 1024;

struct ResponseHead {
    enum class Framing {
        None,       // 1xx, 204, 304: no body
        Length,     // Content-Length bytes
        Chunked,    // Transfer-Encoding: chunked
        UntilClose, // neither: the body ends when the connection does
    };
    int status = 0;
    std::string reason;
    std::vector<std::pair<std::string, std::string>> headers; // names in lowercase, values trimmed
    Framing framing = Framing::UntilClose;
    std::uint64_t contentLength = 0;
    std::size_t consumed = 0; // bytes of the buffer the head took

    // The first value of a header (name in lowercase), or nullopt.
    std::optional<std::string> header(std::string_view name) const;
};

// std::nullopt while the head is incomplete and can still end within kMaxResponseHeadBytes; otherwise the
// head, or an error saying what is wrong with it.
std::variant<std::nullopt_t, ResponseHead, std::string> parseResponseHead(std::string_view buffer);

// A media type's essence, lowercase, without parameters: "text/event-stream; charset=utf-8" -> "text/event-stream".
std::string mediaType(std::string_view contentType);

} // namespace warren
