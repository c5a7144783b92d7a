#include "app/tasks/TaskMove.h"

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"
#include "agent_core/state/Checkpoint.h"
#include "app/tasks/DataDir.h"
#include "app/tasks/TaskRetention.h"
#include "app/tasks/TaskSpec.h"
#include "common/FileText.h"
#include "common/JsonFields.h"

namespace warren::control {

using nlohmann::json;

namespace {

constexpr const char* kMoveFile = "move.json";

Error refuse(const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, message);
}

Result<EventRow> movedEvent(std::string_view line, std::uint64_t seq, const std::string& taskId) {
    const std::string where = std::string(kMovedEventsFile) + " line " + std::to_string(seq);
    auto value = json_fields::parseJson(line);
    if (!value)
        return refuse(where + ": not JSON: " + value.error().message);
    auto event = protocol::eventFromJson(*value);
    if (!event)
        return refuse(where + ": not an event: " + event.error().message);
    if (event->seq != seq)
        return refuse(where + ": seq " + std::to_string(event->seq) + ", expected " + std::to_string(seq) +
                      " (the events go in seq order, from 1, without a gap)");
    if (auto payload = protocol::payloadFromJson(event->type, event->data); !payload)
        return refuse(where + ": " + event->type + "'s data: " + payload.error().message);
    return EventRow{taskId,
                    event->seq,
                    protocol::formatTimestamp(event->ts),
                    event->type,
                    event->step,
                    event->tool.value_or(""),
                    value->dump(-1, ' ', false, json::error_handler_t::replace)};
}

} // namespace

Status checkMovable(const TaskRecord& task, const TaskSpec& spec, bool checkpointExists) {
    if (auto here = checkNotMoved(task, "move"); !here)
        return here;
    if (!canMove(task.status))
        return refuse("task " + task.id + " is " + taskStatusName(task.status) +
                      "; only a paused, interrupted, waiting or sleeping task moves" +
                      (isFinal(task.status) ? "" : " (pause it first: Pause in the window)"));
    if (spec.agent != protocol::AgentKind::Warren)
        return refuse("task " + task.id + " runs " + std::string(protocol::agentKindName(spec.agent)) +
                      ", whose session lives in the CLI's own files: only a task of Warren's agent moves");
    if (auto kept = checkPartsKept(task, "move"); !kept)
        return kept;
    if (!checkpointExists)
        return refuse("task " + task.id +
                      " cannot move: its agent left no checkpoint (the run ended before its "
                      "first step); start it there as a new task instead");
    return Ok{};
}

TaskSpec specHere(const TaskSpec& there) {
    TaskSpec here;
    here.provider = there.provider;
    here.model = there.model;
    here.presets = there.presets;
    here.overrides = there.overrides;
    if (here.overrides.is_object())
        for (const char* serverOnly : {"memory_prefix", "memory_backend"})
            here.overrides.erase(serverOnly);
    here.network = there.network;
    here.tokenBudget = there.tokenBudget;
    here.agent = there.agent;
    here.secrets = there.secrets;
    here.demo = there.demo;
    here.approval = there.approval;
    return here;
}

TaskStatus statusHere(TaskStatus was) {
    return was == TaskStatus::Waiting || was == TaskStatus::Interrupted ? was : TaskStatus::Paused;
}

std::string movedEventsText(const std::vector<EventRow>& events) {
    std::string text;
    for (const auto& row : events) {
        text += row.body;
        text += '\n';
    }
    return text;
}

Result<MovedHistory> readMovedHistory(std::string_view eventsText, std::string_view checkpointText,
                                      const std::string& taskId) {
    MovedHistory history;
    std::uint64_t seq = 0;
    while (!eventsText.empty()) {
        const std::size_t end = eventsText.find('\n');
        const std::string_view line = eventsText.substr(0, end);
        eventsText.remove_prefix(end == std::string_view::npos ? eventsText.size() : end + 1);
        if (line.empty() && eventsText.empty())
            break;
        if (++seq > kMaxMovedEvents)
            return refuse(std::string(kMovedEventsFile) + ": more than " + std::to_string(kMaxMovedEvents) +
                          " events");
        auto row = movedEvent(line, seq, taskId);
        if (!row)
            return row.error();
        history.events.push_back(std::move(*row));
    }
    auto checkpoint = json_fields::parseJson(checkpointText);
    if (!checkpoint)
        return refuse(std::string(kMovedCheckpointFile) + ": not JSON: " + checkpoint.error().message);
    if (auto state = agent::agentStateFromJson(*checkpoint); !state)
        return refuse(std::string(kMovedCheckpointFile) +
                      ": not the agent's checkpoint: " + state.error().message);
    auto made = checkpointForTask(std::string(checkpointText), taskId);
    if (!made)
        return made.error();
    history.checkpoint = std::move(*made);
    return history;
}

EventRow historyNote(const std::vector<EventRow>& history, const std::string& taskId, std::uint64_t step,
                     const std::string& message, std::int64_t tsMs) {
    return historyEvent(history, taskId, step, protocol::event_type::kLog,
                        protocol::LogData{protocol::LogLevel::Info, message}.toJson(), tsMs);
}

EventRow historyEvent(const std::vector<EventRow>& history, const std::string& taskId, std::uint64_t step,
                      std::string_view type, json data, std::int64_t tsMs) {
    protocol::Event event;
    event.ts = tsMs;
    event.type = std::string(type);
    event.step = step;
    event.seq = history.empty() ? 1 : history.back().seq + 1;
    event.data = std::move(data);
    return {taskId,     event.seq, protocol::formatTimestamp(event.ts), event.type,
            event.step, "",        protocol::toJson(event).dump()};
}

Result<std::string> checkpointForTask(const std::string& checkpoint, const std::string& taskId) {
    json value = json::parse(checkpoint, nullptr, false);
    if (!value.is_object() || !value.contains("task_id") || !value["task_id"].is_string())
        return refuse("the kept checkpoint is not one of the agent's (no task_id)");
    value["task_id"] = taskId;
    return value.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

Status keepMove(const DataDir& data, const std::string& taskId, const MoveUnderWay& move) {
    const json text = {{"to", move.to},
                       {"workspace_upload", move.workspaceUpload},
                       {"history_upload", move.historyUpload},
                       {"key", move.key},
                       {"manifest", move.manifest}};
    return data.keepTaskFile(taskId, kMoveFile, text.dump());
}

Result<std::optional<MoveUnderWay>> keptMove(const DataDir& data, const std::string& taskId) {
    const std::string path = data.taskFile(taskId, kMoveFile);
    auto text = readFileText(path);
    if (!text && text.error().code == ErrorCode::NotFound)
        return std::optional<MoveUnderWay>{};
    if (!text)
        return text.error();
    const json value = json::parse(*text, nullptr, false);
    const auto field = [&](const char* name) -> const json* {
        const auto it = value.is_object() ? value.find(name) : value.end();
        return value.is_object() && it != value.end() && it->is_string() ? &*it : nullptr;
    };
    const json* to = field("to");
    const json* workspace = field("workspace_upload");
    const json* history = field("history_upload");
    const json* key = field("key");
    if (!to || !workspace || !history || !key || !value.contains("manifest"))
        return makeError(ErrorCode::System, path + " does not read as a move under way; remove it to move "
                                                   "the task again from the start");
    return std::optional<MoveUnderWay>{MoveUnderWay{to->get<std::string>(), workspace->get<std::string>(),
                                                    history->get<std::string>(), key->get<std::string>(),
                                                    value["manifest"]}};
}

void forgetMove(const DataDir& data, const std::string& taskId) {
    data.forgetTaskFile(taskId, kMoveFile);
}

Status checkNoMoveUnderWay(const DataDir& data, const std::string& taskId, const std::string& doing) {
    auto move = keptMove(data, taskId);
    if (!move)
        return move.error();
    if (!*move)
        return Ok{};
    return refuse("task " + taskId + " cannot " + doing + ": a move of it to " + (*move)->to +
                  " began and did not finish; run `warren move " + taskId + " --to " + (*move)->to +
                  "` again to finish it");
}

} // namespace warren::control
