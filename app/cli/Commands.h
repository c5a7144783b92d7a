#pragma once
// What each `warren` command does, over a ControlPlane: this machine's, or with --remote a warrend's. Exit
// statuses (DESIGN §4): 0 success, 1 the task failed (apply: files were left because they conflict), 2 usage
// error, 3 the sandbox is unavailable.

#include "app/cli/CliArguments.h"

namespace warren::control {

inline constexpr int kExitOk = 0;
inline constexpr int kExitTaskFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitSandboxUnavailable = 3;

int runCommand(const CliArguments& arguments);

} // namespace warren::control
