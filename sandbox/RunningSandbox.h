#pragma once
// A sandbox that runs its command, whichever backend runs it (bubblewrap, a Docker or Podman container):
// what warren-sandbox and the control plane both need to watch and stop it. The destructor stops a sandbox
// still running and removes everything the launch left on the host: the placeholders of protected paths,
// and for a container its files and the container itself.

#include "sandbox/Backend.h"
#include "sandbox/bwrap/Launcher.h"
#include "sandbox/policy/ProtectedPaths.h"
#include "sandbox/policy/SandboxProfile.h"

#include <chrono>
#include <optional>
#include <string>

namespace warren::sandbox {

class RunningSandbox {
public:
    RunningSandbox() = default;
    RunningSandbox(const RunningSandbox&) = delete;
    RunningSandbox& operator=(const RunningSandbox&) = delete;
    virtual ~RunningSandbox() = default;

    virtual Backend backend() const = 0;
    // The profile it runs, with the workspace source canonicalised, and the plan for its protected paths.
    virtual const SandboxProfile& profile() const = 0;
    virtual const ProtectionPlan& protection() const = 0;
    // The command line that started it (shell-quoted), for messages.
    virtual std::string commandLine() const = 0;

    virtual int pidfd() const = 0; // readable when the sandbox has ended: for an event loop
    // bwrap's status pipe (see SandboxProcess::statusFd); -1 when the backend has none.
    virtual int statusFd() const { return -1; }
    virtual void readStatus() {}

    // Waits until the sandbox ends, the timeout passes (then it is killed: TimedOut) or interruptFd becomes
    // readable (nullopt; the sandbox keeps running).
    virtual std::optional<SandboxExit> wait(std::optional<std::chrono::milliseconds> timeout,
                                            int interruptFd = -1) = 0;
    // Once pidfd() is readable: how the sandbox ended (nullopt only if that cannot be told).
    virtual std::optional<SandboxExit> exitStatus() = 0;
    virtual void terminate() = 0; // SIGTERM to the command: a graceful stop
    virtual void kill() = 0;      // everything of the sandbox, now; wait() then reports Killed

    // Why the sandbox could not start the command (SetupFailed): what this host lacks for the backend.
    virtual std::string setupFailureReport() const = 0;
    // Stops following the sandbox and leaves it running, its objects no longer this launch's to delete: a
    // cluster's pod whose agent lost its connection and reconnects to the task's next launch
    // (SandboxRequest::rejoin). False where the backend cannot: the sandbox stays this launch's.
    virtual bool detach() { return false; }
    // It was a warm container, started before its task (container/WarmPool.h).
    virtual bool startedWarm() const { return false; }
};

} // namespace warren::sandbox
