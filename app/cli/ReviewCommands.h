#pragma once
// `warren diff` and `warren rewind`: a task's snapshots (app/snapshots) on the terminal. Local tasks only:
// the snapshots are in the task's directory of the control plane that ran it.

#include "app/cli/CliArguments.h"
#include "app/store/StoreTypes.h"

namespace warren::control {

class LocalControlPlane;

int diffTask(LocalControlPlane& plane, const TaskRecord& task, const DiffCommand& command);
int rewindTask(LocalControlPlane& plane, const TaskRecord& task, const RewindCommand& command);

// What a rewind cannot take back, said wherever one is offered.
extern const char* const kRewindLimits;

} // namespace warren::control
