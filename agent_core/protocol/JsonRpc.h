#pragma once
// JSON-RPC 2.0 framing of the agent <-> control plane protocol: one message per line. Requests carry an id
// and expect a response with the same id; notifications (events, cancel, pause) expect none. Batches are
// not used by either side and are rejected. Which methods exist is in Methods.h.

#include "common/Result.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace warren::protocol {

// JSON-RPC 2.0 §5.1 error codes.
namespace rpc_error {
inline constexpr int kParseError = -32700;     // the line is not JSON
inline constexpr int kInvalidRequest = -32600; // JSON, but not a valid message
inline constexpr int kMethodNotFound = -32601; // for the dispatcher: a valid request for an unknown method
inline constexpr int kInvalidParams = -32602;  // for the dispatcher: params that the method does not accept
inline constexpr int kInternalError = -32603;
} // namespace rpc_error

using Id = std::variant<std::int64_t, std::string>;

struct Request {
    Id id;
    std::string method;
    nlohmann::json params; // an object or array; null when the message had none
    friend bool operator==(const Request&, const Request&) = default;
};

struct Notification {
    std::string method;
    nlohmann::json params; // an object or array; null when the message had none
    friend bool operator==(const Notification&, const Notification&) = default;
};

struct Response {
    Id id;
    nlohmann::json result;
    friend bool operator==(const Response&, const Response&) = default;
};

struct RpcError {
    int code = rpc_error::kInternalError;
    std::string message;
    std::optional<nlohmann::json> data;
    friend bool operator==(const RpcError&, const RpcError&) = default;
};

struct ErrorResponse {
    std::optional<Id> id; // null when the id of the failed request could not be read (§5)
    RpcError error;
    friend bool operator==(const ErrorResponse&, const ErrorResponse&) = default;
};

using Message = std::variant<Request, Notification, Response, ErrorResponse>;

// A line that is not a valid message: the error to answer with, and the id when one could be read.
struct InvalidMessage {
    RpcError error;
    std::optional<Id> id;
};

// Decodes one line; on failure says which JSON-RPC error to answer with (-32700 or -32600) and why.
std::variant<Message, InvalidMessage> decodeMessage(std::string_view line);

// decodeMessage as a Result, for callers that only report the failure.
Result<Message> parseMessage(std::string_view line);

// The error response owed to a line that decodeMessage refused.
ErrorResponse toErrorResponse(const InvalidMessage& invalid);

// One line without its terminating newline: JSON escapes every control character, so the text never
// contains a raw newline. Invalid UTF-8 in a string is replaced (U+FFFD) rather than sent.
std::string serialize(const Message& message);
nlohmann::json toJson(const Message& message);

nlohmann::json idToJson(const Id& id);

} // namespace warren::protocol
