#include "app/tasks/MovedTask.h"

namespace warren::control {

Status checkNotMoved(const TaskRecord& task, const std::string& doing) {
    if (task.status != TaskStatus::Moved)
        return Ok{};
    const std::string there =
        task.movedTo == kMovedHome
            ? "this machine's control plane (warren show " + task.movedAs + ")"
            : task.movedTo + " (warren show " + task.movedAs + " --remote " + task.movedTo + ")";
    return makeError(ErrorCode::InvalidArgument, "task " + task.id + " cannot " + doing +
                                                     " here: it was moved to " + there + " as " +
                                                     task.movedAs + ", and goes on there");
}

} // namespace warren::control
