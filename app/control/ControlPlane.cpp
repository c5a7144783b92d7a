// ControlPlane's own parts: a task's JSON as the faces show it, and the defaults of what not every control
// plane does (bring a task's changes home: a local task changed its workspace itself; review and rewind: a
// server's tasks keep no snapshots here).

#include "app/control/ControlPlane.h"

#include "app/wire/TaskAnswer.h"

namespace warren::control {

nlohmann::json toJson(const TaskRecord& task) {
    return wire::taskToJson(task); // the one shape, the API's (app/wire)
}

namespace {

Error noSnapshots() {
    return makeError(ErrorCode::Unsupported,
                     "this control plane keeps no snapshots of its tasks' workspaces: review and rewind are for "
                     "tasks run on this computer");
}

} // namespace

void ControlPlane::planChanges(const std::string&, const std::string&, Done<ChangesPlan> done) {
    answer<ChangesPlan>(std::move(done), makeError(ErrorCode::Unsupported,
                                                   "a local task changes the workspace itself: there is nothing to apply"));
}

void ControlPlane::applyChanges(const std::string& taskId, const std::string& workspace, Done<ChangesPlan> done) {
    planChanges(taskId, workspace, std::move(done));
}

void ControlPlane::taskChanges(const std::string&, std::optional<std::uint64_t>, Done<TaskChanges> done) {
    answer<TaskChanges>(std::move(done), noSnapshots());
}

void ControlPlane::previewRewind(const std::string&, const RewindRequest&, Done<RewindSummary> done) {
    answer<RewindSummary>(std::move(done), noSnapshots());
}

void ControlPlane::rewind(const std::string&, const RewindRequest&, Done<RewindSummary> done) {
    answer<RewindSummary>(std::move(done), noSnapshots());
}

void ControlPlane::fork(const std::string&, const ForkRequest&, Done<ForkSummary> done) {
    answer<ForkSummary>(std::move(done), noSnapshots());
}

} // namespace warren::control
