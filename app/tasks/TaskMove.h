#pragma once
// A task moved to another control plane (`warren move`, DESIGN §14): from this machine to a warrend, or
// from a warrend home. What travels is the task's history: its events, seqs unchanged, and the agent's
// checkpoint (its conversation and where it was); its workspace travels as an upload. The task goes on
// there from its checkpoint and its record here says where it went (TaskStatus::Moved).
//
// The pure half: which tasks may move, the history written and read back (strictly: on a server it is the
// caller's file, and each event is read as an agent's event is), the refusals of what a moved task can no
// longer do here. The file half: a move under way, kept beside the task (tasks/<id>/move.json) from before
// anything is sent until the record says moved, so a move killed at any moment is finished by running it
// again (the same uploads and the same Idempotency-Key: the server answers with the task it made), and
// the task is never resumed here meanwhile.

#include "app/store/StoreTypes.h"
#include "app/tasks/MovedTask.h" // checkNotMoved
#include "common/Result.h"
#include "common/UniqueFd.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::control {

struct DataDir;
struct TaskSpec;

// The history's two files, as a directory uploaded beside the workspace.
inline constexpr const char* kMovedEventsFile = "events.jsonl"; // one stored event a line, seq 1, 2, ...
inline constexpr const char* kMovedCheckpointFile = "checkpoint.json"; // the agent's, as it kept it
inline constexpr std::size_t kMaxMovedEvents = 1'000'000;

// Paused, interrupted, waiting for a reply or asleep: no process runs it and its agent left a checkpoint to
// go on from. The error says why not and what to do.
Status checkMovable(const TaskRecord& task, const TaskSpec& spec, bool checkpointExists);

// The events as kMovedEventsFile holds them: each row's body, one a line, in seq order.
std::string movedEventsText(const std::vector<EventRow>& events);

// What a control plane takes in: the events under taskId (each envelope read strictly and its data by its
// type, as an agent's event is; seqs 1, 2, ... without a gap), and the checkpoint made taskId's (it must
// read as the agent's). An error names the line or the field.
struct MovedHistory {
    std::vector<EventRow> events;
    std::string checkpoint; // kMovedCheckpointFile's text, its task_id taskId's
};
Result<MovedHistory> readMovedHistory(std::string_view eventsText, std::string_view checkpointText,
                                      const std::string& taskId);

// A log line the control plane adds after a history it copied or moved (after its last seq, at tsMs): "moved
// to URL as t-…" here, "moved here from t-…" there, "forked from t-…".
EventRow historyNote(const std::vector<EventRow>& history, const std::string& taskId, std::uint64_t step,
                     const std::string& message, std::int64_t tsMs);
// The same for any event the control plane writes after such a history (a moved task's limits there).
EventRow historyEvent(const std::vector<EventRow>& history, const std::string& taskId, std::uint64_t step,
                      std::string_view type, nlohmann::json data, std::int64_t tsMs);

// The checkpoint text (agent_core/state/Checkpoint) with its task_id replaced by taskId, the rest as it was
// (the agent refuses a checkpoint of another task): a fork's and a moved task's. An error when the text is
// not a checkpoint.
Result<std::string> checkpointForTask(const std::string& checkpoint, const std::string& taskId);

// A move under way (tasks/<id>/move.json).
struct MoveUnderWay {
    std::string to;              // the warrend's URL
    std::string workspaceUpload; // the uploads made for it there
    std::string historyUpload;
    std::string key;         // the Idempotency-Key of its POST /v1/tasks
    nlohmann::json manifest; // what was uploaded of the workspace (for `warren apply`)
    friend bool operator==(const MoveUnderWay&, const MoveUnderWay&) = default;
};
Status keepMove(const DataDir& data, const std::string& taskId, const MoveUnderWay& move);
Result<std::optional<MoveUnderWay>> keptMove(const DataDir& data, const std::string& taskId);
void forgetMove(const DataDir& data, const std::string& taskId);
// Ok unless a move of the task is under way: the error says to finish it (`warren move` again).
Status checkNoMoveUnderWay(const DataDir& data, const std::string& taskId, const std::string& doing);

// A server's task come home (`warren move TASK --remote URL --to local`, LocalControlPlane::arrive): its
// record as the server keeps it (spec and all, its script's file a local one), what it was before it moved,
// its agent's checkpoint and its events, one a line, and where it came from.
struct ArrivingTask {
    TaskRecord task;
    TaskStatus was = TaskStatus::Paused;
    std::string checkpoint;
    std::string events;    // kMovedEventsFile's text
    std::string workspace; // here, its change applied
    std::string from;      // the warrend's URL
};

// The spec it runs with here: the server's, but for what only the server meant (its memory prefix and
// backend, its sandbox's image and clamped limits).
TaskSpec specHere(const TaskSpec& there);
// What it is here: waiting for its user's reply or interrupted as there; paused otherwise (a question it
// slept on is asked again when it resumes).
TaskStatus statusHere(TaskStatus was);

// A task taken for its move (LocalControlPlane::leave): what goes, and its lock, held until this goes, so no
// process of this machine runs it meanwhile.
struct LeavingTask {
    TaskRecord task;
    std::string events;                   // kMovedEventsFile's text
    std::string checkpoint;               // kMovedCheckpointFile's
    std::optional<MoveUnderWay> underWay; // from an earlier try, killed or refused
    UniqueFd lock;
};

} // namespace warren::control
