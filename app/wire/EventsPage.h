#pragma once
// A page of GET /v1/tasks/{id}/events: {"events": [event, ...], "last_seq": N}, each event an object with
// its seq (a whole number). Pure; the reader refuses a page of another shape (a server that is not an
// honest warrend), never throws.

#include "common/Result.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace warren::wire {

struct EventsPage {
    std::vector<nlohmann::json> events;
    std::uint64_t lastSeq = 0; // the last event's seq, or where the page started when it is empty

    nlohmann::json toJson() const;
    static Result<EventsPage> fromJson(const nlohmann::json& answer);
};

// Whether event is an object with its seq, as every event of a page and of the live stream is.
bool hasSeq(const nlohmann::json& event);

} // namespace warren::wire
