#include "app/tasks/TaskRetention.h"

#include "app/tasks/DataDir.h"
#include "common/RemoveTree.h"

namespace warren::control {

namespace {

constexpr protocol::UnixMillis kMillisPerDay = 86'400'000;

} // namespace

bool retentionDue(const TaskRecord& task, std::uint64_t days, protocol::UnixMillis now) {
    if (days == 0 || days > kMaxRetentionDays || !isFinal(task.status) || !task.removedAt.empty())
        return false;
    const auto finished = protocol::parseTimestamp(task.finishedAt);
    return finished && now - *finished >= static_cast<protocol::UnixMillis>(days) * kMillisPerDay;
}

Status checkPartsKept(const TaskRecord& task, const std::string& doing) {
    if (task.removedAt.empty())
        return Ok{};
    return makeError(
        ErrorCode::InvalidArgument,
        "task " + task.id + " cannot " + doing +
            ": its checkpoints, snapshots and artifacts were removed on " + task.removedAt.substr(0, 10) +
            ", when its retention period ended; its record and events remain. Run it again as a new "
            "task to redo its work");
}

std::vector<std::string> retainedParts(const DataDir& data, const std::string& taskId) {
    return {data.stateDir(taskId), data.snapshotsDir(taskId), data.outputDir(taskId)};
}

Status removeParts(const std::vector<std::string>& paths) {
    for (const auto& path : paths)
        if (auto removed = files::removeTree(path); !removed)
            return removed;
    return Ok{};
}

} // namespace warren::control
