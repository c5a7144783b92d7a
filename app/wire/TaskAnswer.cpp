#include "app/wire/TaskAnswer.h"

#include "app/wire/Member.h"
#include "common/JsonFields.h"

namespace warren::wire {

using nlohmann::json;
using namespace json_fields;

json taskToJson(const control::TaskRecord& task) {
    return {{"id", task.id},
            {"status", control::taskStatusName(task.status)},
            {"prompt", task.prompt},
            {"workspace", task.workspace},
            {"created_at", task.createdAt},
            {"started_at", task.startedAt},
            {"finished_at", task.finishedAt},
            {"finish_reason", task.finishReason},
            {"summary", task.summary},
            {"error", task.error},
            {"steps", task.steps},
            {"tokens_in", task.tokensIn},
            {"tokens_out", task.tokensOut},
            {"runs", task.runs},
            {"removed_at", task.removedAt},
            {"moved_to", task.movedTo},
            {"moved_as", task.movedAs},
            {"spec", json::parse(task.spec, nullptr, false)}};
}

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
    record.removedAt = memberString(task, "removed_at");
    record.movedTo = memberString(task, "moved_to");
    record.movedAs = memberString(task, "moved_as");
    const auto spec = task.find("spec");
    record.spec = spec != task.end() && spec->is_object() ? spec->dump() : "{}";
    return record;
}

json tasksToJson(const std::vector<control::TaskRecord>& tasks) {
    json list = json::array();
    for (const auto& task : tasks)
        list.push_back(taskToJson(task));
    return {{"tasks", list}};
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

} // namespace warren::wire
