#include "agent_core/protocol/Event.h"

#include "agent_core/protocol/EventTypes.h"
#include "agent_core/protocol/Methods.h"
#include "common/JsonFields.h"

namespace warren::protocol {

using nlohmann::json;
using namespace json_fields;

json toJson(const Event& event) {
    json out = {
        {"seq", event.seq}, {"ts", formatTimestamp(event.ts)}, {"type", event.type}, {"step", event.step}};
    if (event.tool)
        out["tool"] = *event.tool;
    if (event.tokenUsage)
        out["token_usage"] = toJson(*event.tokenUsage);
    if (event.durationMs)
        out["duration_ms"] = *event.durationMs;
    if (event.agent)
        out["agent"] = *event.agent;
    out["data"] = event.data;
    return out;
}

namespace {

// complete: the wire's rule (every envelope key there); else a face's, where seq, ts, step and data may be
// absent. withData: data is copied into the event (else only checked).
Result<Event> readEvent(const json& value, bool complete, bool withData) {
    const std::string where = "event";
    Error error;
    Event event;
    std::optional<std::uint64_t> seq, step;
    std::optional<std::string> ts;
    // In the wire's form these keys are required; checked in their place, so the first problem is named.
    const auto present = [&](const char* key) -> Status {
        if (complete && !value.contains(key))
            return makeError(ErrorCode::InvalidArgument, joinPath(where, key) + ": missing");
        return Ok{};
    };
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"seq", "ts", "type", "step", "tool", "token_usage", "duration_ms", "agent", "data"},
                        where),
              error) ||
        !take(present("seq"), error) || !take(getOptionalUint(value, "seq", where), seq, error) ||
        !take(present("ts"), error) || !take(getOptionalString(value, "ts", where), ts, error) ||
        !take(getString(value, "type", where), event.type, error) || !take(present("step"), error) ||
        !take(getOptionalUint(value, "step", where), step, error) ||
        !take(getOptionalString(value, "tool", where), event.tool, error) ||
        !take(getOptionalUint(value, "duration_ms", where), event.durationMs, error) ||
        !take(getOptionalString(value, "agent", where), event.agent, error))
        return error;
    if (event.agent && event.agent->empty())
        return makeError(ErrorCode::InvalidArgument, "event.agent: must not be empty (absent: the task's own agent)");
    event.seq = seq.value_or(0);
    event.step = step.value_or(0);
    if (ts) {
        auto parsedTs = parseTimestamp(*ts);
        if (!parsedTs)
            return makeError(ErrorCode::InvalidArgument, "event.ts: " + parsedTs.error().message);
        event.ts = parsedTs.value();
    }
    if (!isKnownEventType(event.type))
        return makeError(ErrorCode::InvalidArgument, "event.type: unknown event type \"" + event.type + "\"");
    if (const auto usage = value.find("token_usage"); usage != value.end()) {
        auto parsed = tokenUsageFromJson(*usage, "event.token_usage");
        if (!parsed)
            return parsed.error();
        event.tokenUsage = parsed.value();
    }
    const auto data = value.find("data");
    if (data == value.end()) {
        if (complete)
            return makeError(ErrorCode::InvalidArgument, "event.data: missing");
        return event;
    }
    if (!data->is_object())
        return makeError(ErrorCode::InvalidArgument,
                         "event.data: must be an object, got " + describeJson(*data));
    if (withData)
        event.data = *data;
    return event;
}

} // namespace

Result<Event> eventFromJson(const json& value) {
    return readEvent(value, true, true);
}

Result<Event> eventForDisplay(const json& value) {
    return readEvent(value, false, true);
}

Result<Event> envelopeForDisplay(const json& value) {
    return readEvent(value, false, false);
}

Notification toNotification(const Event& event) {
    return Notification{method::kEvent, toJson(event)};
}

Status checkSeqFollows(std::optional<std::uint64_t> previous, std::uint64_t seq) {
    if (previous && seq <= *previous)
        return makeError(ErrorCode::InvalidArgument, "event seq " + std::to_string(seq) +
                                                         " does not follow seq " + std::to_string(*previous) +
                                                         ": events were lost, repeated or reordered");
    return Ok{};
}

} // namespace warren::protocol
