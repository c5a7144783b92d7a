#pragma once
// The catalog of event types. An event's type says what its data object holds (docs/PROTOCOL.md lists the
// fields of each); a type not in this catalog is refused, so a new type needs a protocol version bump.

#include <span>
#include <string_view>

namespace warren::protocol {

namespace event_type {
// What each type means: eventTypeCatalog() and docs/PROTOCOL.md.
inline constexpr std::string_view kTaskStarted = "task_started";
inline constexpr std::string_view kProjectInstructions = "project_instructions";
inline constexpr std::string_view kTaskResumed = "task_resumed";
inline constexpr std::string_view kUserMessage = "user_message";
inline constexpr std::string_view kStepStarted = "step_started";
inline constexpr std::string_view kModelDelta = "model_delta";
inline constexpr std::string_view kModelResponse = "model_response";
inline constexpr std::string_view kToolCall = "tool_call";
inline constexpr std::string_view kToolOutput = "tool_output";
inline constexpr std::string_view kToolResult = "tool_result";
inline constexpr std::string_view kFileChanged = "file_changed";
inline constexpr std::string_view kApprovalRequested = "approval_requested";
inline constexpr std::string_view kApprovalResolved = "approval_resolved";
inline constexpr std::string_view kCheckpoint = "checkpoint";
inline constexpr std::string_view kResourceSample = "resource_sample";
inline constexpr std::string_view kHook = "hook";
inline constexpr std::string_view kPlanUpdated = "plan_updated";
inline constexpr std::string_view kGuard = "guard";
inline constexpr std::string_view kError = "error";
inline constexpr std::string_view kLog = "log";
inline constexpr std::string_view kNetworkRequest = "network_request"; // written by the control plane
inline constexpr std::string_view kLimitsApplied = "limits_applied";   // written by the control plane
inline constexpr std::string_view kModelCall = "model_call";           // written by the control plane
inline constexpr std::string_view kTaskSlept = "task_slept";           // written by the control plane
inline constexpr std::string_view kAgentStarted = "agent_started";
inline constexpr std::string_view kAgentFinished = "agent_finished";
inline constexpr std::string_view kTaskFinished = "task_finished";
} // namespace event_type

struct EventTypeInfo {
    std::string_view name;
    std::string_view meaning;
};

// Every event type, in the order above, with its one-line meaning.
std::span<const EventTypeInfo> eventTypeCatalog();
bool isKnownEventType(std::string_view type);

// The types only the control plane writes (what its egress and model proxies saw, the limits it applied):
// an agent that sends one is forging the audit trail, and its event is refused, not stored.
bool isControlPlaneEventType(std::string_view type);

} // namespace warren::protocol
