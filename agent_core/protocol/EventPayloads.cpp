#include "agent_core/protocol/EventPayloads.h"

#include "agent_core/protocol/Methods.h"
#include "common/JsonFields.h"

namespace warren::protocol {

using nlohmann::json;
using namespace json_fields;

namespace {

// "tool_call data": where each type's fields are named in its errors.
template <typename Data> std::string where() {
    return std::string(Data::kType) + " data";
}

// The object check and the allowed keys every reader starts with.
template <typename Data> Status checkObject(const json& data, std::initializer_list<std::string_view> keys) {
    if (auto object = requireObject(data, where<Data>()); !object)
        return object;
    return checkKeys(data, keys, where<Data>());
}

// A member of a closed set by its name (EventEnums.h): an error names the field and the names it takes.
template <typename Enum>
bool takeName(Result<std::string>&& name, std::optional<Enum> (*fromName)(std::string_view), const std::string& field,
              const char* names, Enum& out, Error& error) {
    if (!name) {
        error = name.error();
        return false;
    }
    const auto member = fromName(*name);
    if (!member) {
        error = Error{ErrorCode::InvalidArgument, field + ": must be " + names + ", got \"" + *name + "\""};
        return false;
    }
    out = *member;
    return true;
}

constexpr const char* kFinishReasons = "finished, failed, cancelled, paused, guard or waiting";

json nullable(const std::optional<std::string>& value) {
    return value ? json(*value) : json();
}

json nullable(const std::optional<std::int64_t>& value) {
    return value ? json(*value) : json();
}

bool takeFlag(Result<std::optional<bool>>&& result, bool& out, Error& error) {
    std::optional<bool> value;
    if (!take(std::move(result), value, error))
        return false;
    out = value.value_or(false);
    return true;
}

bool takeText(Result<std::optional<std::string>>&& result, std::string& out, Error& error) {
    std::optional<std::string> value;
    if (!take(std::move(result), value, error))
        return false;
    out = std::move(value).value_or("");
    return true;
}

} // namespace

// ---- task_started, task_resumed, step_started ----------------------------------------------------------

json TaskStartedData::toJson() const {
    return {{"task_id", taskId}, {"prompt", prompt}, {"presets", presets}, {"config", config}};
}

Result<TaskStartedData> TaskStartedData::fromJson(const json& data) {
    const auto at = where<TaskStartedData>();
    Error error;
    TaskStartedData out;
    if (!take(checkObject<TaskStartedData>(data, {"task_id", "prompt", "presets", "config"}), error) ||
        !takeText(getOptionalString(data, "task_id", at), out.taskId, error) ||
        !take(getString(data, "prompt", at), out.prompt, error) ||
        !take(getArray<std::string>(data, "presets", at, false, readString), out.presets, error) ||
        !take(getOptionalObject(data, "config", at), out.config, error))
        return error;
    return out;
}

json TaskResumedData::toJson() const {
    return {{"from_step", fromStep}, {"interrupted_tool_call", nullable(interruptedToolCall)}};
}

Result<TaskResumedData> TaskResumedData::fromJson(const json& data) {
    const auto at = where<TaskResumedData>();
    Error error;
    TaskResumedData out;
    if (!take(checkObject<TaskResumedData>(data, {"from_step", "interrupted_tool_call"}), error) ||
        !take(getUint(data, "from_step", at), out.fromStep, error) ||
        !take(getNullableString(data, "interrupted_tool_call", at), out.interruptedToolCall, error))
        return error;
    return out;
}

json UserMessageData::toJson() const {
    return {{"text", text}};
}

Result<UserMessageData> UserMessageData::fromJson(const json& data) {
    const auto at = where<UserMessageData>();
    Error error;
    UserMessageData out;
    if (!take(checkObject<UserMessageData>(data, {"text"}), error) || !take(getString(data, "text", at), out.text, error))
        return error;
    return out;
}

json StepStartedData::toJson() const {
    return json::object();
}

Result<StepStartedData> StepStartedData::fromJson(const json& data) {
    if (auto checked = checkObject<StepStartedData>(data, {}); !checked)
        return checked.error();
    return StepStartedData{};
}

// ---- the model ------------------------------------------------------------------------------------------

json ModelDeltaData::toJson() const {
    return {{"text", text}};
}

Result<ModelDeltaData> ModelDeltaData::fromJson(const json& data) {
    Error error;
    ModelDeltaData out;
    if (!take(checkObject<ModelDeltaData>(data, {"text"}), error) ||
        !take(getString(data, "text", where<ModelDeltaData>()), out.text, error))
        return error;
    return out;
}

json ModelResponseData::toJson() const {
    json calls = json::array();
    for (const auto& call : toolCalls)
        calls.push_back(protocol::toJson(call));
    json out = {{"content", content}, {"tool_calls", std::move(calls)}, {"finish_reason", finishReason}};
    if (!reasoning.empty())
        out["reasoning"] = reasoning;
    return out;
}

Result<ModelResponseData> ModelResponseData::fromJson(const json& data) {
    const auto at = where<ModelResponseData>();
    Error error;
    ModelResponseData out;
    if (!take(checkObject<ModelResponseData>(data, {"content", "tool_calls", "finish_reason", "reasoning"}), error) ||
        !take(getString(data, "content", at), out.content, error) ||
        !take(getArray<ToolCall>(data, "tool_calls", at, false, toolCallFromJson), out.toolCalls, error) ||
        !takeText(getOptionalString(data, "finish_reason", at), out.finishReason, error) ||
        !takeText(getOptionalString(data, "reasoning", at), out.reasoning, error))
        return error;
    return out;
}

// ---- tools ----------------------------------------------------------------------------------------------

json ToolCallData::toJson() const {
    return {{"id", id}, {"arguments", arguments}};
}

Result<ToolCallData> ToolCallData::fromJson(const json& data) {
    const auto at = where<ToolCallData>();
    Error error;
    ToolCallData out;
    if (!take(checkObject<ToolCallData>(data, {"id", "arguments"}), error) ||
        !take(getString(data, "id", at), out.id, error) ||
        !take(getObject(data, "arguments", at), out.arguments, error))
        return error;
    return out;
}

json ToolOutputData::toJson() const {
    return {{"id", id}, {"stream", stream == OutputStream::Stderr ? "stderr" : "stdout"}, {"text", text}};
}

Result<ToolOutputData> ToolOutputData::fromJson(const json& data) {
    const auto at = where<ToolOutputData>();
    Error error;
    ToolOutputData out;
    std::string stream;
    if (!take(checkObject<ToolOutputData>(data, {"id", "stream", "text"}), error) ||
        !take(getString(data, "id", at), out.id, error) ||
        !take(getString(data, "stream", at), stream, error) ||
        !take(getString(data, "text", at), out.text, error))
        return error;
    if (stream != "stdout" && stream != "stderr")
        return makeError(ErrorCode::InvalidArgument,
                         joinPath(at, "stream") + ": must be stdout or stderr, got \"" + stream + "\"");
    out.stream = stream == "stderr" ? OutputStream::Stderr : OutputStream::Stdout;
    return out;
}

json ToolResultData::toJson() const {
    json out = {{"id", id}, {"exit_code", nullable(exitCode)}, {"truncated", truncated}, {"output", output}};
    if (cached)
        out["cached"] = true;
    if (timedOut)
        out["timed_out"] = true;
    if (denied)
        out["denied"] = true;
    if (interrupted)
        out["interrupted"] = true;
    return out;
}

Result<ToolResultData> ToolResultData::fromJson(const json& data) {
    const auto at = where<ToolResultData>();
    Error error;
    ToolResultData out;
    if (!take(checkObject<ToolResultData>(data, {"id", "exit_code", "truncated", "output", "cached",
                                                 "timed_out", "denied", "interrupted"}),
              error) ||
        !take(getString(data, "id", at), out.id, error) ||
        !take(getNullableInt(data, "exit_code", at), out.exitCode, error) ||
        !takeFlag(getOptionalBool(data, "truncated", at), out.truncated, error) ||
        !takeText(getOptionalString(data, "output", at), out.output, error) ||
        !takeFlag(getOptionalBool(data, "cached", at), out.cached, error) ||
        !takeFlag(getOptionalBool(data, "timed_out", at), out.timedOut, error) ||
        !takeFlag(getOptionalBool(data, "denied", at), out.denied, error) ||
        !takeFlag(getOptionalBool(data, "interrupted", at), out.interrupted, error))
        return error;
    return out;
}

std::string_view toString(FileChange change) {
    switch (change) {
    case FileChange::Created:
        return "created";
    case FileChange::Deleted:
        return "deleted";
    case FileChange::Modified:
        break;
    }
    return "modified";
}

json FileChangedData::toJson() const {
    json out = {{"path", path}, {"change", toString(change)}};
    if (binary)
        out["binary"] = true;
    if (diff)
        out["diff"] = *diff;
    if (added)
        out["added"] = *added;
    if (removed)
        out["removed"] = *removed;
    if (diffTruncated)
        out["diff_truncated"] = true;
    return out;
}

Result<FileChangedData> FileChangedData::fromJson(const json& data) {
    const auto at = where<FileChangedData>();
    Error error;
    FileChangedData out;
    std::string change;
    if (!take(checkObject<FileChangedData>(
                  data, {"path", "change", "diff", "added", "removed", "diff_truncated", "binary"}),
              error) ||
        !take(getString(data, "path", at), out.path, error) ||
        !take(getString(data, "change", at), change, error) ||
        !take(getOptionalString(data, "diff", at), out.diff, error) ||
        !take(getOptionalUint(data, "added", at), out.added, error) ||
        !take(getOptionalUint(data, "removed", at), out.removed, error) ||
        !takeFlag(getOptionalBool(data, "diff_truncated", at), out.diffTruncated, error) ||
        !takeFlag(getOptionalBool(data, "binary", at), out.binary, error))
        return error;
    if (change == "created")
        out.change = FileChange::Created;
    else if (change == "modified")
        out.change = FileChange::Modified;
    else if (change == "deleted")
        out.change = FileChange::Deleted;
    else
        return makeError(ErrorCode::InvalidArgument, joinPath(at, "change") +
                                                         ": must be created, modified or deleted, got \"" +
                                                         change + "\"");
    return out;
}

// ---- approvals ------------------------------------------------------------------------------------------

json ApprovalRequestedData::toJson() const {
    return {{"id", id}, {"arguments", arguments}, {"reason", reason}};
}

Result<ApprovalRequestedData> ApprovalRequestedData::fromJson(const json& data) {
    const auto at = where<ApprovalRequestedData>();
    Error error;
    ApprovalRequestedData out;
    if (!take(checkObject<ApprovalRequestedData>(data, {"id", "arguments", "reason"}), error) ||
        !take(getString(data, "id", at), out.id, error) ||
        !take(getObject(data, "arguments", at), out.arguments, error) ||
        !takeText(getOptionalString(data, "reason", at), out.reason, error))
        return error;
    return out;
}

json ApprovalResolvedData::toJson() const {
    json out = {{"id", id}, {"approved", approved}, {"note", nullable(note)}};
    if (decidedBy)
        out["decided_by"] = *decidedBy;
    return out;
}

Result<ApprovalResolvedData> ApprovalResolvedData::fromJson(const json& data) {
    const auto at = where<ApprovalResolvedData>();
    Error error;
    ApprovalResolvedData out;
    if (!take(checkObject<ApprovalResolvedData>(data, {"id", "approved", "note", "decided_by"}), error) ||
        !take(getString(data, "id", at), out.id, error) ||
        !take(getBool(data, "approved", at), out.approved, error) ||
        !take(getNullableString(data, "note", at), out.note, error) ||
        !take(getOptionalString(data, "decided_by", at), out.decidedBy, error))
        return error;
    return out;
}

// ---- the agent's own state ------------------------------------------------------------------------------

json ProjectInstructionsData::toJson() const {
    json out = {{"path", path}, {"text", text}, {"bytes", bytes}};
    if (truncated)
        out["truncated"] = true;
    return out;
}

Result<ProjectInstructionsData> ProjectInstructionsData::fromJson(const json& data) {
    const auto at = where<ProjectInstructionsData>();
    Error error;
    ProjectInstructionsData out;
    if (!take(checkObject<ProjectInstructionsData>(data, {"path", "text", "bytes", "truncated"}), error) ||
        !take(getString(data, "path", at), out.path, error) ||
        !take(getString(data, "text", at), out.text, error) ||
        !take(getUint(data, "bytes", at), out.bytes, error) ||
        !takeFlag(getOptionalBool(data, "truncated", at), out.truncated, error))
        return error;
    return out;
}

json CheckpointData::toJson() const {
    return {{"path", path}, {"bytes", bytes}};
}

Result<CheckpointData> CheckpointData::fromJson(const json& data) {
    const auto at = where<CheckpointData>();
    Error error;
    CheckpointData out;
    if (!take(checkObject<CheckpointData>(data, {"path", "bytes"}), error) ||
        !take(getString(data, "path", at), out.path, error) ||
        !take(getUint(data, "bytes", at), out.bytes, error))
        return error;
    return out;
}

json ResourceSampleData::toJson() const {
    return {{"rss_bytes", rssBytes}, {"cpu_ms", cpuMs}};
}

Result<ResourceSampleData> ResourceSampleData::fromJson(const json& data) {
    const auto at = where<ResourceSampleData>();
    Error error;
    ResourceSampleData out;
    if (!take(checkObject<ResourceSampleData>(data, {"rss_bytes", "cpu_ms"}), error) ||
        !take(getUint(data, "rss_bytes", at), out.rssBytes, error) ||
        !take(getUint(data, "cpu_ms", at), out.cpuMs, error))
        return error;
    return out;
}

json HookData::toJson() const {
    json out = {{"name", name}, {"command", nullable(command)}, {"exit_code", nullable(exitCode)}};
    if (!detail.empty())
        out["detail"] = detail;
    if (output)
        out["output"] = *output;
    if (error)
        out["error"] = *error;
    return out;
}

Result<HookData> HookData::fromJson(const json& data) {
    const auto at = where<HookData>();
    Error error;
    HookData out;
    if (!take(checkObject<HookData>(data, {"name", "command", "exit_code", "detail", "output", "error"}),
              error) ||
        !take(getString(data, "name", at), out.name, error) ||
        !take(getNullableString(data, "command", at), out.command, error) ||
        !take(getNullableInt(data, "exit_code", at), out.exitCode, error) ||
        !takeText(getOptionalString(data, "detail", at), out.detail, error) ||
        !take(getOptionalString(data, "output", at), out.output, error) ||
        !take(getOptionalString(data, "error", at), out.error, error))
        return error;
    return out;
}

std::string_view toString(PlanStatus status) {
    switch (status) {
    case PlanStatus::Pending:
        return "pending";
    case PlanStatus::InProgress:
        return "in_progress";
    case PlanStatus::Completed:
        return "completed";
    }
    return "pending";
}

namespace {

Result<PlanStep> planStepFromJson(const json& value, const std::string& at) {
    Error error;
    PlanStep step;
    std::string status;
    if (!take(requireObject(value, at), error) || !take(checkKeys(value, {"step", "status"}, at), error) ||
        !take(getString(value, "step", at), step.step, error) ||
        !take(getString(value, "status", at), status, error))
        return error;
    for (const PlanStatus known : {PlanStatus::Pending, PlanStatus::InProgress, PlanStatus::Completed})
        if (status == toString(known)) {
            step.status = known;
            return step;
        }
    return makeError(ErrorCode::InvalidArgument, joinPath(at, "status") +
                                                     ": must be pending, in_progress or completed, got \"" +
                                                     status + "\"");
}

} // namespace

json PlanUpdatedData::toJson() const {
    json list = json::array();
    for (const PlanStep& item : steps)
        list.push_back({{"step", item.step}, {"status", toString(item.status)}});
    json out{{"steps", std::move(list)}};
    if (!explanation.empty())
        out["explanation"] = explanation;
    return out;
}

Result<PlanUpdatedData> PlanUpdatedData::fromJson(const json& data) {
    const auto at = where<PlanUpdatedData>();
    Error error;
    PlanUpdatedData out;
    if (!take(checkObject<PlanUpdatedData>(data, {"steps", "explanation"}), error) ||
        !take(getArray<PlanStep>(data, "steps", at, true, planStepFromJson), out.steps, error) ||
        !takeText(getOptionalString(data, "explanation", at), out.explanation, error))
        return error;
    return out;
}

json GuardData::toJson() const {
    return {{"guard", guard}, {"action", toString(action)}, {"detail", detail}};
}

Result<GuardData> GuardData::fromJson(const json& data) {
    const auto at = where<GuardData>();
    Error error;
    GuardData out;
    if (!take(checkObject<GuardData>(data, {"guard", "action", "detail"}), error) ||
        !take(getString(data, "guard", at), out.guard, error) ||
        !takeName(getString(data, "action", at), guardActionFromName, joinPath(at, "action"), "warn or stop",
                  out.action, error) ||
        !take(getString(data, "detail", at), out.detail, error))
        return error;
    return out;
}

// ---- diagnostics, the network, the end ------------------------------------------------------------------

json ErrorData::toJson() const {
    return {{"message", message}, {"fatal", fatal}};
}

Result<ErrorData> ErrorData::fromJson(const json& data) {
    const auto at = where<ErrorData>();
    Error error;
    ErrorData out;
    if (!take(checkObject<ErrorData>(data, {"message", "fatal"}), error) ||
        !take(getString(data, "message", at), out.message, error) ||
        !takeFlag(getOptionalBool(data, "fatal", at), out.fatal, error))
        return error;
    return out;
}

json LogData::toJson() const {
    return {{"level", toString(level)}, {"message", message}};
}

Result<LogData> LogData::fromJson(const json& data) {
    const auto at = where<LogData>();
    Error error;
    LogData out;
    if (!take(checkObject<LogData>(data, {"level", "message"}), error) ||
        !takeName(getString(data, "level", at), logLevelFromName, joinPath(at, "level"),
                  "debug, info, warn or error", out.level, error) ||
        !take(getString(data, "message", at), out.message, error))
        return error;
    return out;
}

json NetworkRequestData::toJson() const {
    json out = {{"method", method}, {"host", host}, {"port", port}, {"allowed", allowed}};
    if (address)
        out["address"] = *address;
    if (reason)
        out["reason"] = *reason;
    if (path)
        out["path"] = *path;
    if (status)
        out["status"] = *status;
    if (!secrets.empty())
        out["secrets"] = secrets;
    return out;
}

Result<NetworkRequestData> NetworkRequestData::fromJson(const json& data) {
    const auto at = where<NetworkRequestData>();
    Error error;
    NetworkRequestData out;
    if (!take(
            checkObject<NetworkRequestData>(
                data, {"method", "host", "port", "allowed", "address", "reason", "path", "status", "secrets"}),
            error) ||
        !take(getString(data, "method", at), out.method, error) ||
        !take(getString(data, "host", at), out.host, error) ||
        !take(getUint(data, "port", at), out.port, error) ||
        !take(getBool(data, "allowed", at), out.allowed, error) ||
        !take(getOptionalString(data, "address", at), out.address, error) ||
        !take(getOptionalString(data, "reason", at), out.reason, error) ||
        !take(getOptionalString(data, "path", at), out.path, error) ||
        !take(getOptionalUint(data, "status", at), out.status, error) ||
        !take(getStringArray(data, "secrets", at, false), out.secrets, error))
        return error;
    return out;
}

json ModelCallData::toJson() const {
    json out = {{"path", path},
                {"model", model},
                {"status", status},
                {"input_tokens", inputTokens},
                {"output_tokens", outputTokens},
                {"duration_ms", durationMs}};
    if (firstByteMs)
        out["first_byte_ms"] = *firstByteMs;
    if (error)
        out["error"] = *error;
    return out;
}

Result<ModelCallData> ModelCallData::fromJson(const json& data) {
    const auto at = where<ModelCallData>();
    Error error;
    ModelCallData out;
    if (!take(checkObject<ModelCallData>(data, {"path", "model", "status", "input_tokens", "output_tokens",
                                                "duration_ms", "first_byte_ms", "error"}),
              error) ||
        !take(getString(data, "path", at), out.path, error) || !take(getString(data, "model", at), out.model, error) ||
        !take(getUint(data, "status", at), out.status, error) ||
        !take(getUint(data, "input_tokens", at), out.inputTokens, error) ||
        !take(getUint(data, "output_tokens", at), out.outputTokens, error) ||
        !take(getUint(data, "duration_ms", at), out.durationMs, error) ||
        !take(getOptionalUint(data, "first_byte_ms", at), out.firstByteMs, error) ||
        !take(getOptionalString(data, "error", at), out.error, error))
        return error;
    return out;
}

json LimitsAppliedData::toJson() const {
    return {{"limits", limits}, {"decided_by", decidedBy}};
}

Result<LimitsAppliedData> LimitsAppliedData::fromJson(const json& data) {
    const auto at = where<LimitsAppliedData>();
    Error error;
    json limits, decidedBy;
    if (!take(checkObject<LimitsAppliedData>(data, {"limits", "decided_by"}), error) ||
        !take(getObject(data, "limits", at), limits, error) ||
        !take(getObject(data, "decided_by", at), decidedBy, error))
        return error;
    LimitsAppliedData out;
    for (const auto& [name, value] : limits.items()) {
        if (!value.is_number_unsigned())
            return makeError(ErrorCode::InvalidArgument,
                             at + ".limits." + name + ": must be a non-negative integer, got " + value.dump());
        out.limits[name] = value.get<std::uint64_t>();
    }
    for (const auto& [name, value] : decidedBy.items()) {
        if (!value.is_string() || !out.limits.contains(name))
            return makeError(ErrorCode::InvalidArgument, at + ".decided_by." + name +
                                                             ": must name who decided a limit in limits, got " +
                                                             value.dump());
        out.decidedBy[name] = value.get<std::string>();
    }
    return out;
}

json TaskSleptData::toJson() const { return {{"idle_ms", idleMs}, {"questions", questions}}; }

Result<TaskSleptData> TaskSleptData::fromJson(const json& data) {
    const auto at = where<TaskSleptData>();
    Error error;
    TaskSleptData out;
    if (!take(checkObject<TaskSleptData>(data, {"idle_ms", "questions"}), error) ||
        !take(getUint(data, "idle_ms", at), out.idleMs, error) ||
        !take(getStringArray(data, "questions", at, true), out.questions, error))
        return error;
    return out;
}

// ---- sub-agents ----------------------------------------------------------------------------------------

json AgentStartedData::toJson() const {
    return {{"parent", nullable(parent)}, {"call_id", callId}, {"role", role}, {"brief", brief}, {"depth", depth}};
}

Result<AgentStartedData> AgentStartedData::fromJson(const json& data) {
    const auto at = where<AgentStartedData>();
    Error error;
    AgentStartedData out;
    if (!take(checkObject<AgentStartedData>(data, {"parent", "call_id", "role", "brief", "depth"}), error) ||
        !take(getNullableString(data, "parent", at), out.parent, error) ||
        !take(getString(data, "call_id", at), out.callId, error) ||
        !take(getString(data, "role", at), out.role, error) ||
        !take(getString(data, "brief", at), out.brief, error) ||
        !take(getUint(data, "depth", at), out.depth, error))
        return error;
    return out;
}

json AgentFinishedData::toJson() const {
    return {{"reason", toString(reason)}, {"summary", summary}, {"files", files}};
}

Result<AgentFinishedData> AgentFinishedData::fromJson(const json& data) {
    const auto at = where<AgentFinishedData>();
    Error error;
    AgentFinishedData out;
    if (!take(checkObject<AgentFinishedData>(data, {"reason", "summary", "files"}), error) ||
        !takeName(getString(data, "reason", at), finishReasonFromName, joinPath(at, "reason"), kFinishReasons,
                  out.reason, error) ||
        !take(getString(data, "summary", at), out.summary, error) ||
        !take(getStringArray(data, "files", at, true), out.files, error))
        return error;
    return out;
}

json TaskFinishedData::toJson() const {
    return {{"reason", toString(reason)}, {"summary", nullable(summary)}};
}

Result<TaskFinishedData> TaskFinishedData::fromJson(const json& data) {
    const auto at = where<TaskFinishedData>();
    Error error;
    TaskFinishedData out;
    if (!take(checkObject<TaskFinishedData>(data, {"reason", "summary"}), error) ||
        !takeName(getString(data, "reason", at), finishReasonFromName, joinPath(at, "reason"), kFinishReasons,
                  out.reason, error) ||
        !take(getNullableString(data, "summary", at), out.summary, error))
        return error;
    return out;
}

// ---- any type -------------------------------------------------------------------------------------------

namespace {

template <typename Data> Result<EventPayload> readAs(const json& data) {
    auto read = Data::fromJson(data);
    if (!read)
        return read.error();
    return EventPayload(std::move(read).value());
}

template <std::size_t... I>
Result<EventPayload> readByType(std::string_view type, const json& data, std::index_sequence<I...>) {
    Result<EventPayload> out =
        makeError(ErrorCode::InvalidArgument, "event.type: unknown event type \"" + std::string(type) + "\"");
    // The first alternative whose kType matches reads the data; the fold stops there.
    const bool known = ((std::variant_alternative_t<I, EventPayload>::kType == type
                             ? (out = readAs<std::variant_alternative_t<I, EventPayload>>(data), true)
                             : false) ||
                        ...);
    (void)known; // an unknown type keeps out's error
    return out;
}

} // namespace

Result<EventPayload> payloadFromJson(std::string_view type, const json& data) {
    return readByType(type, data, std::make_index_sequence<std::variant_size_v<EventPayload>>{});
}

} // namespace warren::protocol
