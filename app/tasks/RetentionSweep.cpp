#include "app/tasks/RetentionSweep.h"

#include "app/tasks/TaskLock.h"
#include "app/tasks/TaskRetention.h"

#include <chrono>

namespace warren::control {

namespace {

protocol::UnixMillis nowMillis() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

RetentionSweep::RetentionSweep(Store& store, DataDir data, DaysFor days, FaceParts faceParts, DueIds dueIds)
    : m_store(store), m_data(std::move(data)), m_days(std::move(days)), m_faceParts(std::move(faceParts)),
      m_dueIds(std::move(dueIds)) {}

std::optional<TaskRecord> RetentionSweep::dueTask(const std::string& taskId) {
    auto task = m_store.task(taskId);
    if (!task || !*task || !retentionDue(**task, m_days(**task), nowMillis()))
        return std::nullopt;
    return std::move(**task);
}

Result<std::vector<std::string>> RetentionSweep::due() {
    if (m_dueIds)
        return m_dueIds();
    std::vector<std::string> due;
    const auto now = nowMillis();
    for (const TaskStatus status : allTaskStatuses()) {
        if (!isFinal(status))
            continue;
        auto tasks = m_store.tasksWithStatus(status);
        if (!tasks)
            return tasks.error();
        for (auto& task : *tasks)
            if (retentionDue(task, m_days(task), now))
                due.push_back(std::move(task.id));
    }
    return due;
}

Result<std::optional<RetentionSweep::Claim>> RetentionSweep::claim(const std::string& taskId) {
    auto lock = std::make_shared<UniqueFd>(takeTaskLock(m_data, taskId));
    if (!lock->valid())
        return std::optional<Claim>(); // queued, running, rewound: not now
    // Read again under the lock: a reply may have run it again since due() looked.
    const auto task = dueTask(taskId);
    if (!task)
        return std::optional<Claim>();
    Claim claim{std::move(lock), retainedParts(m_data, taskId)};
    if (m_faceParts)
        for (auto& path : m_faceParts(*task))
            claim.paths.push_back(std::move(path));
    return std::optional<Claim>(std::move(claim));
}

Status RetentionSweep::recordRemoved(const std::string& taskId) {
    auto task = m_store.task(taskId);
    if (!task)
        return task.error();
    if (!*task)
        return makeError(ErrorCode::NotFound, "task " + taskId + " is gone from the store");
    (*task)->removedAt = protocol::formatTimestamp(nowMillis());
    return m_store.updateTask(**task);
}

} // namespace warren::control
