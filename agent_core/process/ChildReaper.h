#pragma once
// When a tool returns, nothing it started may be left running: not the background job it forgot, not the
// daemon that double-forked, not the process that called setsid() to leave the tool's process group. The
// agent is a child subreaper (PR_SET_CHILD_SUBREAPER, set in its main()), so every such orphan becomes the
// agent's own child, where this finds it. A process that is not a subreaper only finds its direct children.

#include <sys/types.h>

namespace warren::agent {

// SIGKILLs every child of this process except exceptPid, and the process group each one leads (never
// this process's own group), reaps them, and repeats as their orphans re-parent here, until no
// child but exceptPid is left. Bounded: gives up after a few seconds if a process cannot be killed (a
// task stuck in the kernel), and never blocks longer. Processes that are not descendants are not touched.
// Not for concurrent use with other code that waits for this process's children.
void killAndReapDescendants(pid_t exceptPid = -1);

} // namespace warren::agent
