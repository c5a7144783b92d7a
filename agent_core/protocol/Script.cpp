#include "agent_core/protocol/Script.h"

#include "agent_core/protocol/Methods.h"
#include "common/JsonFields.h"

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
        !take(checkKeys(value, {"id", "name", "arguments", "invalid_arguments"}, where), error) ||
        !take(getOptionalString(value, "id", where), id, error) ||
        !take(getString(value, "name", where), call.name, error) ||
        !take(getOptionalString(value, "invalid_arguments", where), call.invalidArguments, error))
        return error;
    if (call.invalidArguments && value.contains("arguments"))
        return makeError(ErrorCode::InvalidArgument,
                         where + ": a call has \"arguments\" or \"invalid_arguments\" (the text a model wrote "
                                 "that is not a JSON object), not both");
    if (call.name.empty())
        return makeError(ErrorCode::InvalidArgument, where + ".name: is empty");
    if (value.contains("arguments") && !take(getObject(value, "arguments", where), call.arguments, error))
        return error;
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
    auto calls =
        getArray<ToolCall>(value, "tool_calls", where, false,
                           [turn, index = std::size_t{0}](const json& call, const std::string& at) mutable {
                               return readToolCall(call, at, turn, index++);
                           });
    if (!take(std::move(calls), result.toolCalls, error))
        return error;
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

constexpr std::uint64_t kMaxPaceMs = 60000;

Error located(const std::string& origin, const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, origin + ": " + message);
}

// One agent's turns (at: where they are, "" or "agents"): a non-empty array, no call id used twice.
Result<std::vector<ScriptTurn>> readTurns(const json& parent, const char* key, const std::string& at) {
    auto turns = getArray<ScriptTurn>(
        parent, key, at, true, [index = std::size_t{0}](const json& turn, const std::string& where) mutable {
            return readTurn(turn, where, index++);
        });
    if (!turns)
        return turns.error();
    const std::string where = joinPath(at, key);
    if (turns->empty())
        return makeError(ErrorCode::InvalidArgument, where + ": is empty; a script needs at least one turn");
    std::set<std::string> ids;
    for (std::size_t i = 0; i < turns->size(); ++i) {
        // The id pairs a call with its result in the conversation; two calls with one id would be confused.
        const auto& calls = (*turns)[i].toolCalls;
        for (std::size_t k = 0; k < calls.size(); ++k) {
            if (!ids.insert(calls[k].id).second)
                return makeError(ErrorCode::InvalidArgument, where + "[" + std::to_string(i) + "].tool_calls[" +
                                                                 std::to_string(k) + "].id: \"" + calls[k].id +
                                                                 "\" is used twice");
        }
    }
    return turns;
}

} // namespace

Result<Script> parseScript(std::string_view text, std::string origin) {
    auto document = parseJson(text);
    if (!document)
        return located(origin, "not JSON: " + document.error().message);
    const json& root = document.value();
    if (!root.is_object())
        return located(origin, "a script is an object {\"turns\": [...]}, got " + describeJson(root));
    if (auto keys = checkKeys(root, {"turns", "agents", "pace_ms"}, ""); !keys)
        return located(origin, keys.error().message);
    auto turns = readTurns(root, "turns", "");
    if (!turns)
        return located(origin, turns.error().message);

    Script script;
    script.origin = std::move(origin);
    script.turns = std::move(turns).value();
    auto pace = getOptionalUint(root, "pace_ms", "");
    if (!pace)
        return located(script.origin, pace.error().message);
    if (pace->value_or(0) > kMaxPaceMs)
        return located(script.origin,
                       "pace_ms: at most " + std::to_string(kMaxPaceMs) + " (a turn a minute)");
    script.pace = std::chrono::milliseconds(pace->value_or(0));
    if (const auto agents = root.find("agents"); agents != root.end()) {
        if (!agents->is_object())
            return located(script.origin, "agents: must be an object of sub-agent id -> turns, got " +
                                              describeJson(*agents));
        for (const auto& [id, list] : agents->items()) {
            auto agentTurns = readTurns(*agents, id.c_str(), "agents");
            if (!agentTurns)
                return located(script.origin, agentTurns.error().message);
            script.agents[id] = std::move(agentTurns).value();
        }
    }
    return script;
}

const std::vector<ScriptTurn>* Script::turnsOf(const std::optional<std::string>& agent) const {
    if (!agent)
        return &turns;
    const auto found = agents.find(*agent);
    return found == agents.end() ? nullptr : &found->second;
}

} // namespace warren::protocol
