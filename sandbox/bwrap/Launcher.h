#pragma once
// Starts bwrap with its data descriptors, rlimits and cgroup, and watches it: a wall-clock deadline,
// whole-tree kill, and telling a sandbox that could not be set up from a command that failed (bwrap's
// --json-status-fd reports "exit-code" only for a command it managed to start).
// The thin process edge of the sandbox library; everything it runs was decided by BwrapCommand and
// LimitPlan.

#include "common/Result.h"
#include "sandbox/bwrap/BwrapCommand.h"
#include "sandbox/bwrap/Cgroup.h"
#include "sandbox/bwrap/LimitPlan.h"

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>

namespace warren::sandbox {

// The parent of process pid as /proc says now; -1 when there is none to read (gone, not ours to see).
pid_t parentOf(pid_t pid);
// A pidfd of pid only while it is parent's child: bwrap reports its child's number, and by the time that is
// read the child may be gone and the number another process's (pid_max can be 32768). -1 otherwise.
int openChildPidfd(pid_t pid, pid_t parent);

struct LaunchOptions {
    int stdinFd = -1; // -1: inherit the caller's
    int stdoutFd = -1;
    int stderrFd = -1;
};

struct SandboxExit {
    enum class Reason {
        Exited,      // the command exited (exitCode is its status)
        Signaled,    // the command was killed by a signal (exitCode is 128 + signal)
        TimedOut,    // the wall-clock deadline passed; the tree was killed
        Killed,      // kill() was called
        SetupFailed, // bwrap failed before the command started
    };
    Reason reason = Reason::Exited;
    int exitCode = 0;
    bool oomKilled = false;    // the memory cgroup killed something
    bool pidsLimitHit = false; // a fork failed on the pids cgroup limit
};

class SandboxProcess {
public:
    // cgroup: the one prepareSandbox() made for limits.cgroup, if any; the process owns it from here.
    // Call from a thread that lives as long as the sandbox should: the kernel's parent-death signal,
    // which ends the sandbox when the launcher dies, fires when the *thread* that forked exits.
    static Result<SandboxProcess> start(const BwrapCommand& command, const LimitPlan& limits,
                                        std::optional<Cgroup> cgroup, const LaunchOptions& options = {});

    SandboxProcess(SandboxProcess&& other) noexcept;
    SandboxProcess& operator=(SandboxProcess&&) = delete;
    SandboxProcess(const SandboxProcess&) = delete;
    SandboxProcess& operator=(const SandboxProcess&) = delete;
    ~SandboxProcess(); // kills and reaps a sandbox still running

    pid_t pid() const { return m_pid; }
    int pidfd() const { return m_pidfd; } // readable when bwrap exits: for an event loop

    // Waits until the sandbox ends, the timeout passes (then it is killed: TimedOut) or interruptFd becomes
    // readable (returns std::nullopt; the sandbox keeps running).
    std::optional<SandboxExit> wait(std::optional<std::chrono::milliseconds> timeout, int interruptFd = -1);

    // SIGKILL to every process of the sandbox; wait() then reports Killed.
    void kill();
    // SIGTERM to the command (the sandbox's pid 1 when it is the command, else the children of bwrap's
    // init), a graceful stop before kill(). Does nothing until bwrap has reported the sandbox's init (see statusFd()).
    void terminate();

    // For an event loop that does not call wait() until the end: call readStatus() whenever statusFd() is
    // readable, so that the sandbox's init is known to terminate() and kill(). -1 once bwrap closed it.
    int statusFd() const { return m_statusFd; }
    void readStatus();

private:
    SandboxProcess() = default;
    SandboxExit reap(int waitStatus);
    void waitForInnerTree();

    pid_t m_pid = -1;
    int m_pidfd = -1;
    int m_statusFd = -1;          // read end of bwrap's --json-status-fd
    std::string m_statusText;     // what bwrap has reported so far
    pid_t m_innerPid = -1;        // the sandbox's pid 1 as the host sees it
    bool m_commandIsInit = false; // pid 1 is the command itself (BwrapCommand::commandIsInit)
    int m_innerPidfd = -1;
    bool m_killed = false;
    bool m_timedOut = false;
    std::optional<Cgroup> m_cgroup;
    std::optional<SandboxExit> m_exit;
};

} // namespace warren::sandbox
