#include "app/wire/EventsPage.h"

#include "app/wire/Member.h"

namespace warren::wire {

using nlohmann::json;

bool hasSeq(const json& event) {
    return member(event, "seq").is_number_unsigned();
}

json EventsPage::toJson() const {
    return {{"events", events}, {"last_seq", lastSeq}};
}

Result<EventsPage> EventsPage::fromJson(const json& answer) {
    const json& list = member(answer, "events");
    const json& last = member(answer, "last_seq");
    if (!list.is_array() || !last.is_number_unsigned())
        return makeError(ErrorCode::System, "expected {\"events\": [...], \"last_seq\": N}");
    EventsPage page;
    page.lastSeq = last.get<std::uint64_t>();
    for (const auto& event : list) {
        if (!hasSeq(event))
            return makeError(ErrorCode::System, "events: an event without its seq");
        page.events.push_back(event);
    }
    return page;
}

} // namespace warren::wire
