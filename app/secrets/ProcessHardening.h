#pragma once
// The control plane holds API keys: no core dumps (RLIMIT_CORE 0) and no ptrace attachment or /proc/<pid>/mem
// reads by other processes of the user (PR_SET_DUMPABLE 0). Called first thing in main().

#include "common/Result.h"

namespace warren::control {

Status hardenProcess();

} // namespace warren::control
