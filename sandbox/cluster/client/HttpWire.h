#pragma once
// HTTP/1.1 as bytes, for the cluster client: the request it writes, the response head it reads, and the
// chunked transfer coding a watch arrives in. Pure; KubeHttp moves the bytes.

#include "common/Result.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warren::kube {

inline constexpr std::size_t kMaxResponseHead = 64 * 1024;
inline constexpr std::size_t kMaxResponseBody = 16 * 1024 * 1024;
inline constexpr std::size_t kMaxWatchLine = 4 * 1024 * 1024;

std::string formatRequest(const std::string& method, const std::string& host, const std::string& path,
                          const std::vector<std::pair<std::string, std::string>>& headers,
                          const std::string& body);

struct ResponseHead {
    int status = 0;
    std::string reasonPhrase;
    std::map<std::string, std::string> headers; // names lower-cased; a repeated name keeps the last
    std::optional<std::size_t> contentLength;
    bool chunked = false;
};

// head: from the status line up to, not including, the blank line.
Result<ResponseHead> parseResponseHead(std::string_view head);

// Decodes a chunked body as it arrives.
class ChunkedDecoder {
public:
    // Takes what it can from input (consumed bytes are erased) and appends the data to output. True once
    // the last chunk (and its trailer) has been read.
    Result<bool> feed(std::string& input, std::string& output);
    bool finished() const { return m_state == State::Done; }

private:
    enum class State { Size, Data, DataEnd, Trailer, Done };
    State m_state = State::Size;
    std::size_t m_remaining = 0;
};

} // namespace warren::kube
