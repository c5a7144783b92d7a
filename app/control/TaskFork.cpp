#include "app/control/TaskFork.h"

#include "agent_core/protocol/EventTypes.h"

namespace warren::control {

std::vector<EventRow> eventsBeforeStep(const std::vector<EventRow>& events, std::uint64_t step,
                                       const std::string& newTaskId) {
    std::size_t end = events.size();
    for (std::size_t i = events.size(); i-- > 0;)
        if (events[i].type == protocol::event_type::kStepStarted && events[i].step == step) {
            end = i;
            break;
        }
    std::vector<EventRow> kept(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(end));
    for (auto& row : kept)
        row.taskId = newTaskId;
    return kept;
}

EventRow forkedNote(const std::vector<EventRow>& past, const std::string& originalId, std::uint64_t fromStep,
                    const std::string& newTaskId, std::int64_t tsMs) {
    return historyNote(past, newTaskId, fromStep - 1,
                       "forked from task " + originalId + " before step " + std::to_string(fromStep) + "; " +
                           originalId + " and its workspace are as they were",
                       tsMs);
}

} // namespace warren::control
