#include "agent_core/protocol/JsonRpc.h"

#include "common/JsonFields.h"

namespace warren::protocol {

using json_fields::describeJson;
using nlohmann::json;

namespace {

InvalidMessage invalid(std::string message, std::optional<Id> id = std::nullopt) {
    return InvalidMessage{RpcError{rpc_error::kInvalidRequest, "invalid message: " + std::move(message), {}},
                          std::move(id)};
}

// An id is an integer or a string (§4). Fractions, booleans, objects, arrays are refused; null only means
// "unknown" in an error response and is handled by the caller.
std::variant<Id, std::string> readId(const json& value) {
    if (value.is_string())
        return Id(value.get<std::string>());
    if (value.is_number_unsigned()) {
        const auto number = value.get<std::uint64_t>();
        if (number > static_cast<std::uint64_t>(INT64_MAX))
            return std::string("\"id\" is out of range: " + value.dump());
        return Id(static_cast<std::int64_t>(number));
    }
    if (value.is_number_integer())
        return Id(value.get<std::int64_t>());
    return std::string("\"id\" must be an integer or a string, got " + describeJson(value));
}

bool isStructured(const json& value) {
    return value.is_object() || value.is_array();
}

std::variant<Message, InvalidMessage> decodeObject(const json& object) {
    std::optional<Id> id;
    const auto idIt = object.find("id");
    const bool hasId = idIt != object.end();
    if (hasId && !idIt->is_null()) {
        auto readable = readId(*idIt);
        if (auto* problem = std::get_if<std::string>(&readable))
            return invalid(*problem);
        id = std::get<Id>(std::move(readable));
    }

    const auto version = object.find("jsonrpc");
    if (version == object.end())
        return invalid("\"jsonrpc\": \"2.0\" is missing", id);
    if (!version->is_string() || version->get<std::string>() != "2.0")
        return invalid("\"jsonrpc\" must be \"2.0\", got " + version->dump(), id);

    const bool hasMethod = object.contains("method");
    const bool hasParams = object.contains("params");
    const bool hasResult = object.contains("result");
    const bool hasError = object.contains("error");

    if (hasMethod) {
        if (auto keys = json_fields::checkKeys(object, {"jsonrpc", "id", "method", "params"}, ""); !keys)
            return invalid(keys.error().message + (hasResult || hasError
                                                       ? " (a request or notification has no result or error)"
                                                       : ""),
                           id);
        auto method = json_fields::getString(object, "method", "");
        if (!method)
            return invalid(method.error().message, id);
        if (method->empty())
            return invalid("\"method\" is empty", id);
        json params;
        if (hasParams) {
            params = object.at("params");
            if (!isStructured(params))
                return invalid("\"params\" must be an object or an array, got " + describeJson(params), id);
        }
        if (!hasId)
            return Message(Notification{std::move(method).value(), std::move(params)});
        if (!id)
            return invalid("\"id\" of a request must be an integer or a string, got null");
        return Message(Request{*id, std::move(method).value(), std::move(params)});
    }

    if (auto keys = json_fields::checkKeys(object, {"jsonrpc", "id", "result", "error"}, ""); !keys)
        return invalid(keys.error().message + (hasParams ? " (\"params\" without \"method\")" : ""), id);
    if (hasResult && hasError)
        return invalid("a response has either \"result\" or \"error\", not both", id);
    if (!hasResult && !hasError)
        return invalid(
            "neither \"method\" nor \"result\" nor \"error\": not a request, notification or response", id);
    if (!hasId)
        return invalid("a response needs an \"id\"");

    if (hasResult) {
        if (!id)
            return invalid("\"id\" of a successful response must be an integer or a string, got null");
        return Message(Response{*id, object.at("result")});
    }

    auto errorObject = json_fields::getObject(object, "error", "");
    if (!errorObject)
        return invalid(errorObject.error().message, id);
    const json& error = *errorObject;
    if (auto keys = json_fields::checkKeys(error, {"code", "message", "data"}, "error"); !keys)
        return invalid(keys.error().message, id);
    auto code = json_fields::getInt(error, "code", "error", INT32_MIN, INT32_MAX);
    if (!code)
        return invalid(code.error().message, id);
    auto message = json_fields::getString(error, "message", "error");
    if (!message)
        return invalid(message.error().message, id);
    RpcError rpcError{static_cast<int>(*code), std::move(message).value(), {}};
    if (error.contains("data"))
        rpcError.data = error.at("data");
    return Message(ErrorResponse{id, std::move(rpcError)});
}

} // namespace

std::variant<Message, InvalidMessage> decodeMessage(std::string_view line) {
    auto parsed = json_fields::parseJson(line);
    if (!parsed)
        return InvalidMessage{RpcError{rpc_error::kParseError, "not JSON: " + parsed.error().message, {}},
                              {}};
    const json& document = parsed.value();
    if (document.is_array())
        return invalid("a JSON array (batches are not supported); send one object per line");
    if (!document.is_object())
        return invalid("a message must be a JSON object, got " + describeJson(document));
    return decodeObject(document);
}

Result<Message> parseMessage(std::string_view line) {
    auto decoded = decodeMessage(line);
    if (auto* failed = std::get_if<InvalidMessage>(&decoded))
        return makeError(ErrorCode::InvalidArgument, failed->error.message);
    return std::get<Message>(std::move(decoded));
}

ErrorResponse toErrorResponse(const InvalidMessage& invalidMessage) {
    return ErrorResponse{invalidMessage.id, invalidMessage.error};
}

json idToJson(const Id& id) {
    return std::visit([](const auto& value) { return json(value); }, id);
}

json toJson(const Message& message) {
    json out = json::object();
    out["jsonrpc"] = "2.0";
    std::visit(
        [&out](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, Request>) {
                out["id"] = idToJson(m.id);
                out["method"] = m.method;
                if (!m.params.is_null())
                    out["params"] = m.params;
            } else if constexpr (std::is_same_v<T, Notification>) {
                out["method"] = m.method;
                if (!m.params.is_null())
                    out["params"] = m.params;
            } else if constexpr (std::is_same_v<T, Response>) {
                out["id"] = idToJson(m.id);
                out["result"] = m.result;
            } else {
                out["id"] = m.id ? idToJson(*m.id) : json(nullptr);
                json error = {{"code", m.error.code}, {"message", m.error.message}};
                if (m.error.data)
                    error["data"] = *m.error.data;
                out["error"] = std::move(error);
            }
        },
        message);
    return out;
}

std::string serialize(const Message& message) {
    return toJson(message).dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace warren::protocol
