#include "app/control/ControlPlane.h"

#include "app/wire/TaskAnswer.h"

namespace warren::control {

nlohmann::json toJson(const TaskRecord& task) {
    return wire::taskToJson(task); // the one shape, the API's (app/wire)
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
