#pragma once
// `warren diff` and `warren rewind`: a task's snapshots on the terminal, through the ControlPlane (the
// window offers the same calls), so what is listed before a rewind is what the rewind does.

#include "app/cli/CliArguments.h"

namespace warren::control {

class ControlPlane;

int diffTask(ControlPlane& plane, const DiffCommand& command);
int rewindTask(ControlPlane& plane, const RewindCommand& command);

} // namespace warren::control
