#include "app/remote/RemoteTaskJson.h"

#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"
#include "common/JsonFields.h"

#include <algorithm>

namespace warren::remote {

using nlohmann::json;
using namespace json_fields;

namespace {

// The member when the value is an object that has it, else null: find on a value of another type would
// read as absent too, but json::value and operator[] throw or assert there.
const json& member(const json& object, const char* key) {
    static const json none;
    if (!object.is_object())
        return none;
    const auto it = object.find(key);
    return it == object.end() ? none : *it;
}

bool hasSeq(const json& event) {
    return member(event, "seq").is_number_unsigned();
}

} // namespace

Result<control::TaskRecord> taskFromJson(const json& task) {
    if (auto object = requireObject(task, "warrend's task"); !object)
        return object.error();
    control::TaskRecord record;
    Error error;
    std::string status;
    if (!take(getString(task, "id", "warrend's task"), record.id, error) ||
        !take(getString(task, "status", "warrend's task"), status, error))
        return error;
    const auto parsed = control::taskStatusFromName(status);
    if (!parsed)
        return makeError(ErrorCode::System, "warrend's task " + record.id + " has the status \"" + status +
                                                "\", which this version of Warren does not know; update it");
    record.status = *parsed;
    record.prompt = memberString(task, "prompt");
    record.workspace = memberString(task, "workspace");
    record.createdAt = memberString(task, "created_at");
    record.startedAt = memberString(task, "started_at");
    record.finishedAt = memberString(task, "finished_at");
    record.finishReason = memberString(task, "finish_reason");
    record.summary = memberString(task, "summary");
    record.error = memberString(task, "error");
    record.steps = memberUint(task, "steps");
    record.tokensIn = memberUint(task, "tokens_in");
    record.tokensOut = memberUint(task, "tokens_out");
    record.runs = memberUint(task, "runs");
    const auto spec = task.find("spec");
    record.spec = spec != task.end() && spec->is_object() ? spec->dump() : "{}";
    return record;
}

json taskRequestJson(const std::string& prompt, const std::string& uploadId, const control::TaskSpec& spec,
                     const json& script) {
    json body = {{"prompt", prompt}, {"workspace", uploadId}, {"network", spec.network}};
    if (!script.is_null())
        body["script"] = script;
    else if (!spec.provider.empty())
        body["provider"] = spec.provider;
    if (!spec.model.empty())
        body["model"] = spec.model;
    if (!spec.presets.empty())
        body["presets"] = spec.presets;
    if (spec.overrides.is_object() && !spec.overrides.empty())
        body["settings"] = spec.overrides;
    if (spec.timeoutSec > 0)
        body["limits"] = {{"timeout_sec", spec.timeoutSec}};
    if (spec.tokenBudget > 0)
        body["token_budget"] = spec.tokenBudget;
    if (spec.attended)
        body["attended"] = true;
    return body;
}

std::optional<control::ApprovalRecord> approvalFromEvent(const std::string& taskId, const json& event) {
    if (!event.is_object() || memberString(event, "type") != protocol::event_type::kApprovalRequested)
        return std::nullopt;
    const auto data = event.find("data");
    if (data == event.end())
        return std::nullopt;
    auto payload = protocol::ApprovalRequestedData::fromJson(*data);
    if (!payload)
        return std::nullopt;
    control::ApprovalRecord approval;
    approval.taskId = taskId;
    approval.callId = payload->id;
    approval.tool = memberString(event, "tool");
    approval.arguments = payload->arguments.dump();
    approval.reason = payload->reason;
    approval.requestedAt = memberString(event, "ts");
    return approval;
}

Result<std::vector<control::ArtifactRecord>> artifactsFromJson(const std::string& taskId, const json& answer) {
    const json& list = member(answer, "artifacts");
    if (!list.is_array())
        return makeError(ErrorCode::System, "warrend's list of artifacts does not read: expected {\"artifacts\": [...]}");
    std::vector<control::ArtifactRecord> artifacts;
    for (const auto& item : list) {
        control::ArtifactRecord artifact;
        artifact.taskId = taskId;
        artifact.path = item.is_object() ? memberString(item, "path") : "";
        if (artifact.path.empty())
            return makeError(ErrorCode::System, "warrend listed an artifact without a path");
        artifact.bytes = memberUint(item, "bytes");
        artifact.sha256 = memberString(item, "sha256");
        artifacts.push_back(std::move(artifact));
    }
    return artifacts;
}

Result<std::vector<control::TaskRecord>> tasksFromJson(const json& answer) {
    const json& list = member(answer, "tasks");
    if (!list.is_array())
        return makeError(ErrorCode::System, "warrend's list of tasks does not read: expected {\"tasks\": [...]}");
    std::vector<control::TaskRecord> tasks;
    for (const auto& item : list) {
        auto task = taskFromJson(item);
        if (!task)
            return task.error();
        tasks.push_back(std::move(*task));
    }
    return tasks;
}

Result<EventsPage> eventsPageFromJson(const std::string& taskId, const json& answer) {
    const json& list = member(answer, "events");
    const json& last = member(answer, "last_seq");
    if (!list.is_array() || !last.is_number_unsigned())
        return makeError(ErrorCode::System, "warrend's events of " + taskId +
                                                " do not read: expected {\"events\": [...], \"last_seq\": N}");
    EventsPage page;
    page.lastSeq = last.get<std::uint64_t>();
    for (const auto& event : list) {
        if (!hasSeq(event))
            return makeError(ErrorCode::System, "warrend sent an event of " + taskId + " without its seq");
        page.events.push_back(event);
    }
    return page;
}

std::optional<json> eventFromStreamData(std::string_view data) {
    auto parsed = parseJson(data);
    if (!parsed || !hasSeq(*parsed))
        return std::nullopt;
    return std::move(*parsed);
}

bool listsProviderKey(const json& answer, const std::string& keyName) {
    const json& list = member(answer, "provider_keys");
    if (!list.is_array())
        return false;
    return std::any_of(list.begin(), list.end(), [&](const json& item) { return memberString(item, "provider") == keyName; });
}

} // namespace warren::remote
