#include "Script.h"

#include "JsonFields.h"
#include "Methods.h"

#include <set>

namespace warren::protocol {

using nlohmann::json;
using namespace json_fields;

namespace {

Result<ToolCall> readToolCall(const json& value, const std::string& where, std::size_t turn,
                              std::size_t index) {
    Error error;
    ToolCall call;
    std::optional<std::string> id;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"id", "name", "arguments"}, where), error) ||
        !take(getOptionalString(value, "id", where), id, error) ||
        !take(getString(value, "name", where), call.name, error))
        return error;
    if (call.name.empty())
        return makeError(ErrorCode::InvalidArgument, where + ".name: is empty");
    if (const auto arguments = value.find("arguments"); arguments != value.end()) {
        if (!arguments->is_object())
            return makeError(ErrorCode::InvalidArgument,
                             where + ".arguments: must be an object, got " + describeJson(*arguments));
        call.arguments = *arguments;
    }
    // Deterministic ids: a replayed script must produce the same conversation, and so the same checkpoints.
    call.id = id ? *id : "call_" + std::to_string(turn) + "_" + std::to_string(index);
    return call;
}

Result<ScriptTurn> readTurn(const json& value, const std::string& where, std::size_t turn) {
    Error error;
    ScriptTurn result;
    std::optional<std::string> content;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"content", "tool_calls", "usage"}, where), error) ||
        !take(getOptionalString(value, "content", where), content, error))
        return error;
    result.content = content.value_or("");
    if (value.contains("tool_calls")) {
        const json& calls = value.at("tool_calls");
        if (!calls.is_array())
            return makeError(ErrorCode::InvalidArgument,
                             where + ".tool_calls: must be an array, got " + describeJson(calls));
        for (std::size_t i = 0; i < calls.size(); ++i) {
            auto call = readToolCall(calls[i], where + ".tool_calls[" + std::to_string(i) + "]", turn, i);
            if (!call)
                return call.error();
            result.toolCalls.push_back(std::move(call).value());
        }
    }
    if (!content && result.toolCalls.empty())
        return makeError(ErrorCode::InvalidArgument, where + ": a turn needs \"content\" or \"tool_calls\"");
    if (const auto usage = value.find("usage"); usage != value.end()) {
        auto parsed = tokenUsageFromJson(*usage, where + ".usage");
        if (!parsed)
            return parsed.error();
        result.usage = parsed.value();
    }
    return result;
}

Error located(const std::string& origin, const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, origin + ": " + message);
}

} // namespace

Result<Script> parseScript(std::string_view text, std::string origin) {
    auto document = parseJson(text);
    if (!document)
        return located(origin, "not JSON: " + document.error().message);
    const json& root = document.value();
    if (!root.is_object())
        return located(origin, "a script is an object {\"turns\": [...]}, got " + describeJson(root));
    if (auto keys = checkKeys(root, {"turns"}, ""); !keys)
        return located(origin, keys.error().message);
    const auto turns = root.find("turns");
    if (turns == root.end())
        return located(origin, "turns: missing");
    if (!turns->is_array())
        return located(origin, "turns: must be an array, got " + describeJson(*turns));
    if (turns->empty())
        return located(origin, "turns: is empty; a script needs at least one turn");

    Script script;
    script.origin = std::move(origin);
    std::set<std::string> ids;
    for (std::size_t i = 0; i < turns->size(); ++i) {
        auto turn = readTurn((*turns)[i], "turns[" + std::to_string(i) + "]", i);
        if (!turn)
            return located(script.origin, turn.error().message);
        // The id pairs a call with its result in the conversation; two calls with one id would be confused.
        for (std::size_t k = 0; k < turn->toolCalls.size(); ++k) {
            if (!ids.insert(turn->toolCalls[k].id).second)
                return located(script.origin, "turns[" + std::to_string(i) + "].tool_calls[" +
                                                  std::to_string(k) + "].id: \"" + turn->toolCalls[k].id +
                                                  "\" is used twice");
        }
        script.turns.push_back(std::move(turn).value());
    }
    return script;
}

} // namespace warren::protocol
