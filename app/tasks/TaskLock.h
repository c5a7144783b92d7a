#pragma once
// One process at a time queues or runs a task of a data directory: it holds the task's lock file
// (tasks/<id>/lock, flock) from the moment it queues the task until its run ends, and a process that opens
// the same directory (the window and `warren run` at once, or the window started again) leaves a task whose
// lock is held alone, and takes up one whose lock nobody holds. A lock is the process's open file: a crash
// releases it.

#include "app/tasks/DataDir.h"
#include "common/UniqueFd.h"

#include <string>

namespace warren::control {

// The lock, taken now; invalid when another open file holds it (in another process, or this one).
UniqueFd takeTaskLock(const DataDir& data, const std::string& taskId);

// Whether some open file holds the task's lock now (a test that takes and drops it).
bool taskLockHeld(const DataDir& data, const std::string& taskId);

} // namespace warren::control
