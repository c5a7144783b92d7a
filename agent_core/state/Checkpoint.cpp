#include "agent_core/state/Checkpoint.h"

#include "common/JsonFields.h"

namespace warren::agent {

using nlohmann::json;
using namespace json_fields;

namespace {

const std::string kWhere = "checkpoint";

template <typename T> json arrayToJson(const std::vector<T>& items) {
    json out = json::array();
    for (const auto& item : items) {
        if constexpr (std::is_same_v<T, std::string>)
            out.push_back(item);
        else
            out.push_back(protocol::toJson(item));
    }
    return out;
}

// One counter: the RunCounters member and its key.
struct CounterField {
    const char* key;
    std::uint64_t RunCounters::*member;
};

constexpr CounterField kCounterFields[] = {
    {"steps", &RunCounters::steps},
    {"model_calls", &RunCounters::modelCalls},
    {"tokens_in", &RunCounters::tokensIn},
    {"tokens_out", &RunCounters::tokensOut},
    {"cache_hits", &RunCounters::cacheHits},
    {"checkpoints", &RunCounters::checkpoints},
    {"bytes_written", &RunCounters::bytesWritten},
    {"resumes", &RunCounters::resumes},
    {"interrupted_calls", &RunCounters::interruptedCalls},
    {"wall_ms", &RunCounters::wallMs},
    {"cpu_ms", &RunCounters::cpuMs},
    {"peak_rss_bytes", &RunCounters::peakRssBytes},
};

} // namespace

json toJson(const RunCounters& counters) {
    json out = json::object();
    for (const auto& field : kCounterFields)
        out[field.key] = counters.*field.member;
    json toolCalls = json::object();
    for (const auto& [name, count] : counters.toolCalls)
        toolCalls[name] = count;
    out["tool_calls"] = std::move(toolCalls);
    if (counters.tokensReasoning)
        out["tokens_reasoning"] = counters.tokensReasoning;
    return out;
}

Result<RunCounters> runCountersFromJson(const json& value, const std::string& where) {
    Error error;
    RunCounters counters;
    if (!take(requireObject(value, where), error))
        return error;
    std::vector<std::string_view> keys{"tool_calls", "tokens_reasoning"};
    for (const auto& field : kCounterFields)
        keys.push_back(field.key);
    if (!take(checkKeys(value, keys, where), error))
        return error;
    for (const auto& field : kCounterFields) {
        if (!take(getUint(value, field.key, where), counters.*field.member, error))
            return error;
    }
    std::optional<std::uint64_t> reasoning;
    if (!take(getOptionalUint(value, "tokens_reasoning", where), reasoning, error))
        return error;
    counters.tokensReasoning = reasoning.value_or(0);
    json toolCalls;
    if (!take(getObject(value, "tool_calls", where), toolCalls, error))
        return error;
    for (const auto& item : toolCalls.items()) {
        std::uint64_t count = 0;
        if (!take(getUint(toolCalls, item.key().c_str(), joinPath(where, "tool_calls")), count, error))
            return error;
        counters.toolCalls[item.key()] = count;
    }
    return counters;
}

json toJson(const AgentState& state) {
    json value = toJsonWithoutMessages(state);
    value["messages"] = arrayToJson(state.messages);
    return value;
}

json toJsonWithoutMessages(const AgentState& state) {
    json out{{"format", kCheckpointFormat},
             {"task_id", state.taskId},
             {"prompt", state.prompt},
             {"presets", arrayToJson(state.presets)},
             {"overrides", state.overrides},
             {"step", state.step},
             {"next_seq", state.nextSeq},
             {"pending_calls", arrayToJson(state.pendingCalls)},
             {"running_call", state.runningCall ? protocol::toJson(*state.runningCall) : json(nullptr)},
             {"recent_call_keys", arrayToJson(state.recentCallKeys)},
             {"loop_warned", state.loopWarned},
             {"counters", toJson(state.counters)},
             {"extra", state.extra}};
    if (state.askedCall)
        out["asked_call"] = *state.askedCall;
    return out;
}

Result<AgentState> agentStateFromJson(const json& value) {
    Error error;
    AgentState state;
    std::uint64_t format = 0;
    // The format first: a newer checkpoint should be refused for its version, not for a key it added.
    if (!take(requireObject(value, kWhere), error) || !take(getUint(value, "format", kWhere), format, error))
        return error;
    if (format != kCheckpointFormat)
        return makeError(ErrorCode::InvalidArgument, kWhere + ".format: " + std::to_string(format) +
                                                         " is not supported (this agent reads " +
                                                         std::to_string(kCheckpointFormat) + ")");
    json runningCall;
    json counters;
    if (!take(checkKeys(value,
                        {"format", "task_id", "prompt", "presets", "overrides", "step", "next_seq",
                         "messages", "pending_calls", "running_call", "recent_call_keys", "loop_warned",
                         "counters", "extra", "asked_call"},
                        kWhere),
              error) ||
        !take(getString(value, "task_id", kWhere), state.taskId, error) ||
        !take(getString(value, "prompt", kWhere), state.prompt, error) ||
        !take(getStringArray(value, "presets", kWhere, true), state.presets, error) ||
        !take(getObject(value, "overrides", kWhere), state.overrides, error) ||
        !take(getUint(value, "step", kWhere), state.step, error) ||
        !take(getUint(value, "next_seq", kWhere), state.nextSeq, error) ||
        !take(getArray<protocol::ChatMessage>(value, "messages", kWhere, true, protocol::chatMessageFromJson),
              state.messages, error) ||
        !take(getArray<protocol::ToolCall>(value, "pending_calls", kWhere, true, protocol::toolCallFromJson),
              state.pendingCalls, error) ||
        !take(getValue(value, "running_call", kWhere), runningCall, error) ||
        !take(getStringArray(value, "recent_call_keys", kWhere, true), state.recentCallKeys, error) ||
        !take(getBool(value, "loop_warned", kWhere), state.loopWarned, error) ||
        !take(getValue(value, "counters", kWhere), counters, error) ||
        !take(runCountersFromJson(counters, joinPath(kWhere, "counters")), state.counters, error) ||
        !take(getObject(value, "extra", kWhere), state.extra, error) ||
        !take(getOptionalString(value, "asked_call", kWhere), state.askedCall, error))
        return error;
    if (!runningCall.is_null()) {
        auto call = protocol::toolCallFromJson(runningCall, joinPath(kWhere, "running_call"));
        if (!call)
            return call.error();
        state.runningCall = std::move(call).value();
    }
    return state;
}

} // namespace warren::agent
