#pragma once
// The retention periods applied to a store's final tasks (TaskRetention.h), in three steps a face runs where
// its work runs: which tasks are due now (due); one of them claimed under its lock, checked again, with the
// paths to remove (claim, on the face's thread); the paths removed (removeParts, off it); the record marked
// (recordRemoved, on the face's thread again). The lock is the one a queued or running task holds
// (TaskLock.h): a task that runs, is queued, rewound or replied to meanwhile is not claimed, and a claimed
// task cannot be queued until its claim is let go. A removal that fails is tried again at the next sweep; a
// crash between removal and mark leaves the task due, and the next sweep finishes it.

#include "app/store/Store.h"
#include "app/tasks/DataDir.h"
#include "common/Result.h"
#include "common/UniqueFd.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warren::control {

class RetentionSweep {
public:
    // days: the period that applies to a task (0: kept for ever). faceParts: what the face keeps of a task
    // beyond the data directory's parts (warrend: its workspace copy and script); may be empty.
    // dueIds: the face's own query of the tasks due now (warrend asks the database, where the owners' periods
    // are, in one statement); empty: every final task's record is read and decided here.
    using DaysFor = std::function<std::uint64_t(const TaskRecord&)>;
    using FaceParts = std::function<std::vector<std::string>(const TaskRecord&)>;
    using DueIds = std::function<Result<std::vector<std::string>>()>;
    RetentionSweep(Store& store, DataDir data, DaysFor days, FaceParts faceParts = {}, DueIds dueIds = {});

    // The ids of the final tasks due now (claim decides again, under the lock, with days).
    Result<std::vector<std::string>> due();

    struct Claim {
        std::shared_ptr<UniqueFd> lock; // held until the record is marked
        std::vector<std::string> paths;
    };
    // The task under its lock, due still; nullopt when it is not (any more) or its lock is taken.
    Result<std::optional<Claim>> claim(const std::string& taskId);
    // The parts are gone: the record says when (now).
    Status recordRemoved(const std::string& taskId);

private:
    std::optional<TaskRecord> dueTask(const std::string& taskId);

    Store& m_store;
    DataDir m_data;
    DaysFor m_days;
    FaceParts m_faceParts;
    DueIds m_dueIds;
};

} // namespace warren::control
