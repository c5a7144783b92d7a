#pragma once
// The data object of each event type (docs/PROTOCOL.md "Catalog"), typed: the agent and the control plane
// write every event through one of these, and every face reads events back through them, so a field has
// one name, one JSON type and one reader.
//
// toJson() writes exactly the keys the protocol lists, in the form the writers have always sent (a
// nullable field as null, a flag that is only ever true only when true). fromJson() is strict like the
// envelope: an unknown key, a wrong JSON type or a value outside a field's set is refused with a message
// naming the type and the key ("file_changed data.added: must be a non-negative integer, got ...").
// Fields a writer may leave out (docs/PROTOCOL.md "where they apply") read as their empty value.

#include "agent_core/protocol/EventEnums.h"
#include "agent_core/protocol/EventTypes.h"
#include "agent_core/protocol/ToolCall.h"
#include "common/Result.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace warren::protocol {

struct TaskStartedData {
    static constexpr std::string_view kType = event_type::kTaskStarted;
    std::string taskId;
    std::string prompt;
    std::vector<std::string> presets;
    nlohmann::json config = nlohmann::json::object(); // the resolved settings
    nlohmann::json toJson() const;
    static Result<TaskStartedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const TaskStartedData&, const TaskStartedData&) = default;
};

struct TaskResumedData {
    static constexpr std::string_view kType = event_type::kTaskResumed;
    std::uint64_t fromStep = 0;
    std::optional<std::string> interruptedToolCall; // written as null when none
    nlohmann::json toJson() const;
    static Result<TaskResumedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const TaskResumedData&, const TaskResumedData&) = default;
};

// The user's reply (task.start's reply), as the model reads it.
struct UserMessageData {
    static constexpr std::string_view kType = event_type::kUserMessage;
    std::string text;
    nlohmann::json toJson() const;
    static Result<UserMessageData> fromJson(const nlohmann::json& data);
    friend bool operator==(const UserMessageData&, const UserMessageData&) = default;
};

struct StepStartedData {
    static constexpr std::string_view kType = event_type::kStepStarted;
    nlohmann::json toJson() const;
    static Result<StepStartedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const StepStartedData&, const StepStartedData&) = default;
};

struct ModelDeltaData {
    static constexpr std::string_view kType = event_type::kModelDelta;
    std::string text;
    nlohmann::json toJson() const;
    static Result<ModelDeltaData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ModelDeltaData&, const ModelDeltaData&) = default;
};

struct ModelResponseData {
    static constexpr std::string_view kType = event_type::kModelResponse;
    std::string content;
    std::vector<ToolCall> toolCalls;
    std::string finishReason;
    std::string reasoning = {}; // what the model thought, as its API showed it (a summary); "" when it showed none
    nlohmann::json toJson() const;
    static Result<ModelResponseData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ModelResponseData&, const ModelResponseData&) = default;
};

struct ToolCallData {
    static constexpr std::string_view kType = event_type::kToolCall;
    std::string id;
    nlohmann::json arguments = nlohmann::json::object();
    nlohmann::json toJson() const;
    static Result<ToolCallData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ToolCallData&, const ToolCallData&) = default;
};

enum class OutputStream { Stdout, Stderr };

struct ToolOutputData {
    static constexpr std::string_view kType = event_type::kToolOutput;
    std::string id;
    OutputStream stream = OutputStream::Stdout;
    std::string text;
    nlohmann::json toJson() const;
    static Result<ToolOutputData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ToolOutputData&, const ToolOutputData&) = default;
};

struct ToolResultData {
    static constexpr std::string_view kType = event_type::kToolResult;
    std::string id;
    std::optional<std::int64_t> exitCode; // null when the call did not run to an end
    bool truncated = false;               // the output was capped for the model
    std::string output;                   // what the model reads
    bool cached = false;                  // these four are written only when true
    bool timedOut = false;
    bool denied = false;
    bool interrupted = false;
    nlohmann::json toJson() const;
    static Result<ToolResultData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ToolResultData&, const ToolResultData&) = default;
};

enum class FileChange { Created, Modified, Deleted };
std::string_view toString(FileChange change);

struct FileChangedData {
    static constexpr std::string_view kType = event_type::kFileChanged;
    std::string path;
    FileChange change = FileChange::Modified;
    // From the tools that knew both contents (write_file, edit_file); absent for a change seen from outside.
    std::optional<std::string> diff;
    std::optional<std::uint64_t> added;
    std::optional<std::uint64_t> removed;
    bool diffTruncated = false; // written only when true
    bool binary = false;        // written only when true, instead of the diff and its counts
    nlohmann::json toJson() const;
    static Result<FileChangedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const FileChangedData&, const FileChangedData&) = default;
};

struct ApprovalRequestedData {
    static constexpr std::string_view kType = event_type::kApprovalRequested;
    std::string id;
    nlohmann::json arguments = nlohmann::json::object();
    std::string reason;
    nlohmann::json toJson() const;
    static Result<ApprovalRequestedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ApprovalRequestedData&, const ApprovalRequestedData&) = default;
};

struct ApprovalResolvedData {
    static constexpr std::string_view kType = event_type::kApprovalResolved;
    std::string id;
    bool approved = false;
    std::optional<std::string> note;      // written as null when none
    std::optional<std::string> decidedBy; // who decided, where the writer knows it
    nlohmann::json toJson() const;
    static Result<ApprovalResolvedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ApprovalResolvedData&, const ApprovalResolvedData&) = default;
};

// One file of the project's instructions, as the model read it (agent_core/prompt/ProjectInstructions.h).
struct ProjectInstructionsData {
    static constexpr std::string_view kType = event_type::kProjectInstructions;
    std::string path;        // relative to the workspace
    std::string text;        // what the model read
    std::uint64_t bytes = 0; // the file's size
    bool truncated = false;  // text is cut (the cap for project instructions)
    nlohmann::json toJson() const;
    static Result<ProjectInstructionsData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ProjectInstructionsData&, const ProjectInstructionsData&) = default;
};

struct CheckpointData {
    static constexpr std::string_view kType = event_type::kCheckpoint;
    std::string path;
    std::uint64_t bytes = 0;
    nlohmann::json toJson() const;
    static Result<CheckpointData> fromJson(const nlohmann::json& data);
    friend bool operator==(const CheckpointData&, const CheckpointData&) = default;
};

struct ResourceSampleData {
    static constexpr std::string_view kType = event_type::kResourceSample;
    std::uint64_t rssBytes = 0;
    std::uint64_t cpuMs = 0;
    nlohmann::json toJson() const;
    static Result<ResourceSampleData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ResourceSampleData&, const ResourceSampleData&) = default;
};

struct HookData {
    static constexpr std::string_view kType = event_type::kHook;
    std::string name;
    std::optional<std::string> command;   // null for a hook that is only a callback
    std::optional<std::int64_t> exitCode; // null without a command, or when it could not run
    std::string detail;                   // written only when not empty
    std::optional<std::string> output;    // when the command ran
    std::optional<std::string> error;     // when the command could not run
    nlohmann::json toJson() const;
    static Result<HookData> fromJson(const nlohmann::json& data);
    friend bool operator==(const HookData&, const HookData&) = default;
};

// The model's plan, whole, each time it changes it (update_plan): its steps in order, and why it changed.
enum class PlanStatus { Pending, InProgress, Completed };
std::string_view toString(PlanStatus status); // "pending", "in_progress", "completed"

struct PlanStep {
    std::string step;
    PlanStatus status = PlanStatus::Pending;
    friend bool operator==(const PlanStep&, const PlanStep&) = default;
};

struct PlanUpdatedData {
    static constexpr std::string_view kType = event_type::kPlanUpdated;
    std::vector<PlanStep> steps;
    std::string explanation; // written only when not empty
    nlohmann::json toJson() const;
    static Result<PlanUpdatedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const PlanUpdatedData&, const PlanUpdatedData&) = default;
};

struct GuardData {
    static constexpr std::string_view kType = event_type::kGuard;
    std::string guard;  // the setting, e.g. max_steps
    GuardAction action = GuardAction::Warn;
    std::string detail;
    nlohmann::json toJson() const;
    static Result<GuardData> fromJson(const nlohmann::json& data);
    friend bool operator==(const GuardData&, const GuardData&) = default;
};

struct ErrorData {
    static constexpr std::string_view kType = event_type::kError;
    std::string message;
    bool fatal = false;
    nlohmann::json toJson() const;
    static Result<ErrorData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ErrorData&, const ErrorData&) = default;
};

struct LogData {
    static constexpr std::string_view kType = event_type::kLog;
    LogLevel level = LogLevel::Info;
    std::string message;
    nlohmann::json toJson() const;
    static Result<LogData> fromJson(const nlohmann::json& data);
    friend bool operator==(const LogData&, const LogData&) = default;
};

struct NetworkRequestData {
    static constexpr std::string_view kType = event_type::kNetworkRequest;
    std::string method; // empty when the request could not be read
    std::string host;
    std::uint64_t port = 0;
    bool allowed = false;
    std::optional<std::string> address; // when allowed: what it connected to
    std::optional<std::string> reason;  // when refused: what the tool was told
    // A request the egress proxy made itself, to a host a task's secret is bound to (DESIGN §12): its path
    // (without the query), the status it was answered with, and the names of the secrets put in (never a
    // value). None for a connection only passed through.
    std::optional<std::string> path;
    std::optional<std::uint64_t> status;
    std::vector<std::string> secrets;
    nlohmann::json toJson() const;
    static Result<NetworkRequestData> fromJson(const nlohmann::json& data);
    friend bool operator==(const NetworkRequestData&, const NetworkRequestData&) = default;
};

// One call a CLI agent (Claude Code, Codex) made through the task's model proxy, once it ended.
struct ModelCallData {
    static constexpr std::string_view kType = event_type::kModelCall;
    std::string path;  // as the CLI sent it, without the query: "/v1/messages", "/v1/responses"
    std::string model; // the request's; empty when it named none
    std::uint64_t status = 0; // as answered to the CLI (the provider's, or the proxy's refusal); 0: none
    std::uint64_t inputTokens = 0;
    std::uint64_t outputTokens = 0;
    std::uint64_t durationMs = 0;
    std::optional<std::uint64_t> firstByteMs; // none when no answer began
    std::optional<std::string> error;         // why it failed
    nlohmann::json toJson() const;
    static Result<ModelCallData> fromJson(const nlohmann::json& data);
    friend bool operator==(const ModelCallData&, const ModelCallData&) = default;
};

// The limits a task's sandbox runs with when a server clamped them to its quotas: its first event. Keys are
// the sandbox profile's limit names (memory_mb, pids, cpu_seconds, timeout_sec, ...); decided_by says, for
// each, whose number it is: "request", "user" or "tenant".
struct LimitsAppliedData {
    static constexpr std::string_view kType = event_type::kLimitsApplied;
    std::map<std::string, std::uint64_t> limits;
    std::map<std::string, std::string> decidedBy;
    nlohmann::json toJson() const;
    static Result<LimitsAppliedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const LimitsAppliedData&, const LimitsAppliedData&) = default;
};

// The task went to sleep (its status `sleeping`): its agent had done nothing but wait for the user's answer
// to the questions named (approval_requested's ids) for idle_ms, so it checkpointed and its sandbox went. An
// answer to one of them, a reply or a resume wakes it.
struct TaskSleptData {
    static constexpr std::string_view kType = event_type::kTaskSlept;
    std::uint64_t idleMs = 0;
    std::vector<std::string> questions;
    nlohmann::json toJson() const;
    static Result<TaskSleptData> fromJson(const nlohmann::json& data);
    friend bool operator==(const TaskSleptData&, const TaskSleptData&) = default;
};

// A sub-agent's life (docs/AGENT.md, "Sub-agents"); the sub-agent's id is the envelope's agent.
struct AgentStartedData {
    static constexpr std::string_view kType = event_type::kAgentStarted;
    std::optional<std::string> parent; // the agent that started it; null: the task's own agent
    std::string callId;                // its spawn_agent call (a tool_call event of the parent)
    std::string role;                  // worker, explorer
    std::string brief;
    std::uint64_t depth = 1;           // 1: started by the task's own agent
    nlohmann::json toJson() const;
    static Result<AgentStartedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const AgentStartedData&, const AgentStartedData&) = default;
};

struct AgentFinishedData {
    static constexpr std::string_view kType = event_type::kAgentFinished;
    FinishReason reason = FinishReason::Failed; // cancelled: closed, or the task cancelled
    std::string summary;
    std::vector<std::string> files; // workspace files it changed, sorted
    nlohmann::json toJson() const;
    static Result<AgentFinishedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const AgentFinishedData&, const AgentFinishedData&) = default;
};

struct TaskFinishedData {
    static constexpr std::string_view kType = event_type::kTaskFinished;
    FinishReason reason = FinishReason::Failed;
    std::optional<std::string> summary;
    nlohmann::json toJson() const;
    static Result<TaskFinishedData> fromJson(const nlohmann::json& data);
    friend bool operator==(const TaskFinishedData&, const TaskFinishedData&) = default;
};

// One event's data, whichever its type.
using EventPayload =
    std::variant<TaskStartedData, ProjectInstructionsData, TaskResumedData, UserMessageData, StepStartedData,
                 ModelDeltaData, ModelResponseData, ToolCallData, ToolOutputData, ToolResultData, FileChangedData, ApprovalRequestedData,
                 ApprovalResolvedData, CheckpointData, ResourceSampleData, HookData, PlanUpdatedData, GuardData,
                 ErrorData, LogData, NetworkRequestData, ModelCallData, LimitsAppliedData, TaskSleptData, AgentStartedData,
                 AgentFinishedData, TaskFinishedData>;

// The data of an event of type, read by that type's fromJson; an unknown type is an error naming it.
Result<EventPayload> payloadFromJson(std::string_view type, const nlohmann::json& data);

} // namespace warren::protocol
