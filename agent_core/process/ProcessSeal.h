#pragma once
// What keeps the agent's own process out of its tools' reach. The tools run as the agent's uid, in the same
// sandbox: a dumpable agent would let any of them open /proc/<agent>/fd/1 (and write events of its choosing
// to the control plane), /proc/<agent>/fd/0 (and answer the agent's requests, an approval), or
// /proc/<agent>/mem. docs/SECURITY.md, "Inside the sandbox: the agent".

#include "common/Result.h"

#include <sys/types.h>

namespace warren::agent {

// Not dumpable and no core file, first thing in main, before anything is read: /proc/<agent>/ then belongs
// to root and the kernel's ptrace check refuses every process without CAP_SYS_PTRACE (the tools have no
// capability); a tool's exec makes the tool dumpable again, never the agent.
Status sealProcess();

// Whether a stop signal (SIGTERM: cancel; SIGINT, SIGHUP: pause) comes from the control plane rather than
// from a tool. The control plane signals from outside the sandbox's pid namespace, where the kernel gives
// the sender as pid 0 with SI_USER; a terminal's key is SI_KERNEL. A tool's kill() carries its own pid, and
// the codes a process may forge with rt_sigqueueinfo (SI_QUEUE and other negative ones) are never trusted.
// launcherPid: the agent's parent when it started (a control plane that runs it without a sandbox), 0 when
// it had none in its namespace.
bool isControlPlaneStop(int siCode, pid_t siPid, pid_t launcherPid);

} // namespace warren::agent
