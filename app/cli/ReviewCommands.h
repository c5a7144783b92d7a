#pragma once
// `warren diff` and `warren rewind`: a task's snapshots on the terminal, through this machine's plane (the
// window offers the same calls), so what is listed before a rewind is what the rewind does.

#include "app/cli/CliArguments.h"

namespace warren::control {

class LocalControlPlane;

int diffTask(LocalControlPlane& plane, const DiffCommand& command);
int rewindTask(LocalControlPlane& plane, const RewindCommand& command);

} // namespace warren::control
