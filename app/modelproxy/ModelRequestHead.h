#pragma once
// The head of one request a CLI in the sandbox sends to its model proxy (ModelProxy): an origin-form
// HTTP/1.1 request ("POST /v1/messages?beta=true HTTP/1.1") with a body framed by Content-Length. Pure: the
// proxy hands it bytes and acts on the result. Unlike the egress proxy's head (app/egress/ProxyHead.h) the
// target is a path on this server, and the body (IncomingBody: Content-Length or chunked) is read whole
// before anything is forwarded.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace warren::control {

inline constexpr std::size_t kMaxModelHeadBytes = 64 * 1024;
inline constexpr std::uint64_t kMaxModelBodyBytes = 32u * 1024 * 1024;

struct ModelRequestHeader {
    std::string name;  // as sent
    std::string value; // without the whitespace around it
};

struct ModelRequestHead {
    std::string method;
    std::string path;  // "/v1/messages"
    std::string query; // "beta=true", without the '?'; empty when there is none
    bool hasQuery = false;
    bool http10 = false;
    std::vector<ModelRequestHeader> headers;
    std::uint64_t contentLength = 0;
    bool chunked = false;        // "Transfer-Encoding: chunked": the body's length is known at its end
    bool expectContinue = false; // "Expect: 100-continue": the client waits for a 100 before its body
    std::size_t consumed = 0;    // bytes of the buffer the head took; what follows is the body

    // The first header of that name (any case), or nullopt.
    std::optional<std::string_view> header(std::string_view name) const;
};

// Why a head is refused: the HTTP status to answer and a message for the answer's body.
//   400  malformed: request line not "METHOD TARGET HTTP/1.x" with single spaces; a target that is not a
//        path ("/..."), holds characters outside printable ASCII or a fragment; NUL, bare CR or LF or another
//        control character; obs-fold; a header without ':' or with a name that is not a token; differing or
//        non-decimal Content-Length values; Transfer-Encoding with Content-Length, given twice, or in an
//        HTTP/1.0 request (each a way to make two readers see two different bodies)
//   413  Content-Length above maxBody
//   501  a Transfer-Encoding other than "chunked" alone
//   417  an Expect other than 100-continue
//   431  no end of head within kMaxModelHeadBytes
//   505  an HTTP version other than 1.0 and 1.1
struct ModelHeadError {
    int status = 400;
    std::string message;
};

// Reads the head at the start of buffer. std::nullopt while it is incomplete and can still end within
// kMaxModelHeadBytes (which counts the whole head with its final CRLFCRLF).
std::variant<std::nullopt_t, ModelRequestHead, ModelHeadError> parseModelRequestHead(std::string_view buffer,
                                                                                     std::uint64_t maxBody);

} // namespace warren::control
