#pragma once
// What turns one API's stream of server-sent events into a reply: OpenAiStream and AnthropicStream. The
// HTTP call (HttpChatCall) feeds it events and relays the text; it knows nothing of the wire format.

#include "agent_core/protocol/Methods.h"
#include "common/http/SseParser.h"
#include "common/Result.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace warren::control {

class ChatStreamDecoder {
public:
    virtual ~ChatStreamDecoder() = default;
    // One event: the reply text it adds (often empty), or an error for an event that is not what the API
    // sends or that reports a failure. After an error the decoder is not fed again.
    virtual Result<std::string> feed(const SseEvent& event) = 0;
    // The server said the reply is complete ([DONE], message_stop).
    virtual bool complete() const = 0;
    // The reply, once complete(); before that, an error saying the stream ended early.
    virtual Result<protocol::LlmChatResult> result() const = 0;
    // What marks the end, for messages: "[DONE]", "message_stop".
    virtual const char* endMarker() const = 0;
};

// At most maxBytes of text for an error message, cut on a UTF-8 boundary, with "..." when cut.
std::string excerpt(std::string_view text, std::size_t maxBytes);

// Reading the decoders' chunks, which come from a server and may have any shape: a missing or mistyped
// member reads as absent.
namespace stream_json {
inline constexpr std::size_t kLineExcerpt = 200; // bytes of a bad chunk quoted in an error
Error malformed(const std::string& what, const std::string& data); // "the model server sent WHAT: data: ..."
std::string stringOr(const nlohmann::json& object, const char* key);
std::uint64_t uintOr(const nlohmann::json& object, const char* key, std::uint64_t fallback);
const nlohmann::json* objectAt(const nlohmann::json& object, const char* key);
} // namespace stream_json

} // namespace warren::control
