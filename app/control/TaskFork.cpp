#include "app/control/TaskFork.h"

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"
#include "agent_core/protocol/Timestamp.h"

#include <nlohmann/json.hpp>

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
    protocol::Event note;
    note.ts = tsMs;
    note.type = protocol::event_type::kLog;
    note.step = fromStep - 1;
    note.seq = past.empty() ? 1 : past.back().seq + 1;
    note.data = protocol::LogData{protocol::LogLevel::Info, "forked from task " + originalId + " before step " +
                                                                std::to_string(fromStep) + "; " + originalId +
                                                                " and its workspace are as they were"}
                    .toJson();
    return {newTaskId, note.seq, protocol::formatTimestamp(note.ts), note.type, note.step, "",
            protocol::toJson(note).dump()};
}

Result<std::string> checkpointForTask(const std::string& checkpoint, const std::string& newTaskId) {
    nlohmann::json value = nlohmann::json::parse(checkpoint, nullptr, false);
    if (!value.is_object() || !value.contains("task_id") || !value["task_id"].is_string())
        return makeError(ErrorCode::InvalidArgument,
                         "the kept checkpoint is not one of the agent's (no task_id)");
    value["task_id"] = newTaskId;
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace warren::control
