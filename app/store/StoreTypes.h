#pragma once
// The rows of the control plane's database, as plain values.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warren::control {

enum class TaskStatus {
    Queued,      // waiting for a free slot
    Running,     // an agent process is working on it
    Paused,      // stopped with a checkpoint by the user; resumable
    Waiting,     // the agent asked the user (an attended run); `warren reply` continues it
    Sleeping,    // it only waited for the user's answer, long enough that its sandbox went (TaskSleep.h);
                 // the answer, a reply or a resume wakes it
    Interrupted, // its process died (crash, kill, reboot); resumable from the checkpoint
    Succeeded,   // the agent called finish
    Failed,      // the agent, the sandbox or the model failed; error says what
    Cancelled,   // stopped by the user
    Moved, // sent to another control plane (`warren move`), where it goes on: movedTo and movedAs say where
};
const char* taskStatusName(TaskStatus status); // "queued", "running", ...
std::vector<TaskStatus> allTaskStatuses();      // every one, in the order above
std::optional<TaskStatus> taskStatusFromName(const std::string& name);
// Succeeded, Failed, Cancelled, Moved: nothing more of it happens here (not Waiting or Sleeping: its user has
// the turn).
bool isFinal(TaskStatus status);
// Paused, Interrupted, Waiting, Sleeping: no process runs it and it goes on from its checkpoint, so it may
// move to another control plane (`warren move`, app/tasks/TaskMove.h).
bool canMove(TaskStatus status);

// TaskRecord::movedTo of a server's task brought home; also what `warren move --to` and POST
// /v1/tasks/{id}/move name home by.
inline constexpr const char* kMovedHome = "local";

struct TaskRecord {
    std::string id;        // "t-" + 12 hex digits, unique
    std::string prompt;
    std::string workspace; // absolute host path
    std::string spec;      // JSON: how to run it (TaskSpec::toJson); never a key
    TaskStatus status = TaskStatus::Queued;
    std::string createdAt; // RFC 3339, ms
    std::string startedAt; // empty until it first runs
    std::string finishedAt;
    std::string finishReason; // task_finished's reason, or "timeout", "budget", "sandbox", ...
    std::string summary;
    std::string error; // what went wrong and what to do, when it failed
    std::uint64_t steps = 0;
    std::uint64_t tokensIn = 0;
    std::uint64_t tokensOut = 0;
    std::uint64_t runs = 0; // how many times an agent was launched for it (1 + resumes)
    // When its retention period removed its checkpoints, snapshots and artifacts (TaskRetention.h); empty
    // while they are kept. Once set, an update never clears it.
    std::string removedAt;
    // A task moved away (TaskStatus::Moved): the warrend's URL it went to, or kMovedHome for a server's task
    // brought home, and its id there. Empty otherwise.
    std::string movedTo;
    std::string movedAs;
};

struct EventRow {
    std::string taskId;
    std::uint64_t seq = 0;
    std::string ts;   // RFC 3339, ms
    std::string type; // EventTypes.h
    std::uint64_t step = 0;
    std::string tool; // empty when none
    std::string body; // the whole event object as JSON text (the envelope the agent sent)
};

struct ApprovalRecord {
    std::string taskId;
    std::string callId; // the tool call's id
    std::string tool;
    std::string arguments; // JSON text
    std::string reason;
    std::string requestedAt;
    std::optional<bool> approved; // nullopt while waiting
    std::string decidedBy;        // "user", "rule", "auto", "deny"
    std::string note;
    std::string decidedAt;
};

struct ArtifactRecord {
    std::string taskId;
    std::string path; // relative to the task's output directory
    std::uint64_t bytes = 0;
    std::string sha256; // hex
};

struct MemoryRow {
    std::string ns;
    std::string key;
    std::string value;
};

} // namespace warren::control
