#pragma once
// Which control plane runs a task, where several share one database (warrend's replicas, DESIGN §15): a task
// is claimed before it enters a TaskManager's queue and stays claimed while it is queued or runs there; a
// claim another control plane holds, alive, is refused. The desktop has none: its processes share one
// machine, where the task's lock file (TaskRunner::takeLock) says the same. warrend's are leases in
// PostgreSQL (server/replicas/TaskLeases).

#include "common/Result.h"

#include <string>

namespace warren::control {

class TaskClaims {
public:
    virtual ~TaskClaims() = default;
    // The task is this control plane's now (it was free, its holder's claim expired, or it was ours), or
    // false: another holds it.
    virtual Result<bool> claim(const std::string& taskId) = 0;
    // Another control plane holds the task, alive (its cancel goes there).
    virtual bool heldElsewhere(const std::string& taskId) = 0;
    // The task is neither queued nor running here any more: whoever comes next may take it at once.
    virtual void release(const std::string& taskId) = 0;
};

} // namespace warren::control
