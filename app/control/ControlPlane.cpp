// ControlPlane's own parts: a task's JSON as the faces show it, and the defaults of what not every control
// plane does (bring a task's changes home: a local task changed its workspace itself; review and rewind: a
// server's tasks keep no snapshots here).

#include "app/control/ControlPlane.h"

namespace warren::control {

nlohmann::json toJson(const TaskRecord& task) {
    return {{"id", task.id},
            {"status", taskStatusName(task.status)},
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
            {"spec", nlohmann::json::parse(task.spec, nullptr, false)}};
}

Result<ChangesPlan> ControlPlane::planChanges(const std::string&, const std::string&) {
    return makeError(ErrorCode::Unsupported, "a local task changes the workspace itself: there is nothing to apply");
}

Result<ChangesPlan> ControlPlane::applyChanges(const std::string& taskId, const std::string& workspace) {
    return planChanges(taskId, workspace);
}

namespace {
Error noSnapshots() {
    return makeError(ErrorCode::Unsupported,
                     "this control plane keeps no snapshots of its tasks' workspaces: review and rewind are for "
                     "tasks run on this computer");
}
} // namespace

Result<TaskChanges> ControlPlane::taskChanges(const std::string&, std::optional<std::uint64_t>) {
    return noSnapshots();
}

Result<RewindSummary> ControlPlane::previewRewind(const std::string&, const RewindRequest&) {
    return noSnapshots();
}

Result<RewindSummary> ControlPlane::rewind(const std::string&, const RewindRequest&) {
    return noSnapshots();
}

Result<ForkSummary> ControlPlane::fork(const std::string&, const ForkRequest&) {
    return noSnapshots();
}

} // namespace warren::control
