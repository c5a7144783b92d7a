#pragma once
// The catalog of event types. An event's type says what its data object holds (docs/PROTOCOL.md lists the
// fields of each); a type not in this catalog is refused, so a new type needs a protocol version bump.

#include <span>
#include <string_view>

namespace warren::protocol {

namespace event_type {
inline constexpr std::string_view kTaskStarted = "task_started"; // the task began: prompt, presets, config
inline constexpr std::string_view kTaskResumed = "task_resumed"; // started from a checkpoint: its step
inline constexpr std::string_view kStepStarted = "step_started"; // a new step of the loop begins
inline constexpr std::string_view kModelDelta = "model_delta";   // a streamed piece of the model's reply
inline constexpr std::string_view kModelResponse = "model_response"; // the model's complete reply of a step
inline constexpr std::string_view kToolCall = "tool_call";           // a tool is called with these arguments
inline constexpr std::string_view kToolOutput = "tool_output";   // a chunk of a running tool's stdout/stderr
inline constexpr std::string_view kToolResult = "tool_result";   // a tool ended: exit code, truncated?
inline constexpr std::string_view kFileChanged = "file_changed"; // a tool wrote or deleted a workspace file
inline constexpr std::string_view kApprovalRequested =
    "approval_requested";                                                  // a risky call waits for the user
inline constexpr std::string_view kApprovalResolved = "approval_resolved"; // the user (or policy) decided
inline constexpr std::string_view kCheckpoint = "checkpoint"; // state written to /state after a step
inline constexpr std::string_view kResourceSample =
    "resource_sample";                              // the agent's RSS, CPU time, open files
inline constexpr std::string_view kHook = "hook";   // a lifecycle hook ran, and its outcome
inline constexpr std::string_view kGuard = "guard"; // a self-protection limit warned or stopped
inline constexpr std::string_view kError = "error"; // something failed; the task may go on
inline constexpr std::string_view kLog = "log";     // a diagnostic message with a level
inline constexpr std::string_view kTaskFinished = "task_finished"; // the task ended: reason and summary
} // namespace event_type

struct EventTypeInfo {
    std::string_view name;
    std::string_view meaning;
};

// Every event type, in the order above, with its one-line meaning.
std::span<const EventTypeInfo> eventTypeCatalog();
bool isKnownEventType(std::string_view type);

} // namespace warren::protocol
