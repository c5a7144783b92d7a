#include "Event.h"

#include "EventTypes.h"
#include "JsonFields.h"
#include "Methods.h"

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
    out["data"] = event.data;
    return out;
}

Result<Event> eventFromJson(const json& value) {
    const std::string where = "event";
    Error error;
    Event event;
    std::string ts;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"seq", "ts", "type", "step", "tool", "token_usage", "duration_ms", "data"},
                        where),
              error) ||
        !take(getUint(value, "seq", where), event.seq, error) ||
        !take(getString(value, "ts", where), ts, error) ||
        !take(getString(value, "type", where), event.type, error) ||
        !take(getUint(value, "step", where), event.step, error) ||
        !take(getOptionalString(value, "tool", where), event.tool, error) ||
        !take(getOptionalUint(value, "duration_ms", where), event.durationMs, error))
        return error;
    auto parsedTs = parseTimestamp(ts);
    if (!parsedTs)
        return makeError(ErrorCode::InvalidArgument, "event.ts: " + parsedTs.error().message);
    event.ts = parsedTs.value();
    if (!isKnownEventType(event.type))
        return makeError(ErrorCode::InvalidArgument, "event.type: unknown event type \"" + event.type + "\"");
    if (const auto usage = value.find("token_usage"); usage != value.end()) {
        auto parsed = tokenUsageFromJson(*usage, "event.token_usage");
        if (!parsed)
            return parsed.error();
        event.tokenUsage = parsed.value();
    }
    if (!take(getObject(value, "data", "event"), event.data, error))
        return error;
    return event;
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
