#pragma once
// One event of a task: what the agent did, as one JSON object. Events are both the live feed the control
// plane stores and shows, and the agent's structured log (production-log preset), so every one carries
// seq, ts, type and step; tool, token_usage and duration_ms where they apply; the rest goes in data,
// whose fields depend on the type (EventTypes.h, docs/PROTOCOL.md).

#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/Timestamp.h"
#include "agent_core/protocol/TokenUsage.h"
#include "common/Result.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace warren::protocol {

struct Event {
    std::uint64_t seq = 0; // strictly increasing within a task, across resumes
    UnixMillis ts = 0;
    std::string type;       // one of EventTypes.h
    std::uint64_t step = 0; // 0 before the first step
    std::optional<std::string> tool;
    std::optional<TokenUsage> tokenUsage;
    std::optional<std::uint64_t> durationMs;
    // The sub-agent the event came from (spawn_agent, docs/AGENT.md); absent for the task's own agent.
    std::optional<std::string> agent;
    nlohmann::json data = nlohmann::json::object();
    friend bool operator==(const Event&, const Event&) = default;
};

nlohmann::json toJson(const Event& event);

// Strict: unknown keys, unknown types, wrong JSON types and malformed timestamps are errors naming the key.
Result<Event> eventFromJson(const nlohmann::json& value);

// An event as a face reads it back (from the store, or built in code): the envelope is checked as strictly,
// but seq, ts and step may be absent (0) and so may data ({}), so that a face shows what it can.
Result<Event> eventForDisplay(const nlohmann::json& value);
// The same without copying data (left empty): for a reader that reads data in place, once per event.
Result<Event> envelopeForDisplay(const nlohmann::json& value);

// {"jsonrpc":"2.0","method":"event","params":<event>}
Notification toNotification(const Event& event);

// The seq after previous must be greater than it: a repeat or a step back means lost or replayed events.
Status checkSeqFollows(std::optional<std::uint64_t> previous, std::uint64_t seq);

} // namespace warren::protocol
