#pragma once
// When a tool returns, nothing it started may be left running: not the background job it forgot, not the
// daemon that double-forked, not the process that called setsid() to leave the tool's process group. The
// agent is a child subreaper (PR_SET_CHILD_SUBREAPER, set in its main()), so every such orphan becomes the
// agent's own child, where this finds it. A process that is not a subreaper only finds its direct children.

#include <sys/types.h>

namespace warren::agent {

// SIGKILLs every child of this process except exceptPid and the spared (spareProcessGroup), and the
// process group each one leads (never this process's own group), reaps them, and repeats as their orphans
// re-parent here, until no child but those is left. Bounded: gives up after a few seconds if a process cannot
// be killed (a task stuck in the kernel), and never blocks longer. Processes that are not descendants are not
// touched. Not for concurrent use with other code that waits for this process's children.
void killAndReapDescendants(pid_t exceptPid = -1);

// A process group killAndReapDescendants leaves alone, leader and members, running or exited (their exit
// status stays for whoever started them to collect): a long-lived process the agent started itself and
// stops on its own, an MCP server (agent_core/mcp). A member that leaves the group (setsid) is no longer
// spared. Thread-safe; sparing a group twice needs two stops.
void spareProcessGroup(pid_t pgid);
void stopSparingProcessGroup(pid_t pgid);

// SIGKILLs the process group pgid and reaps those of its members that are this process's children (its
// leader, and as a subreaper the orphans that re-parented here), bounded as killAndReapDescendants is.
void killAndReapGroup(pid_t pgid);

} // namespace warren::agent
