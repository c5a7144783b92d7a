#include "sandbox/bwrap/LimitPlan.h"

#include <algorithm>

namespace warren::sandbox {
namespace {

rlim_t toRlim(std::uint64_t value) { return static_cast<rlim_t>(value); }

} // namespace

Result<LimitPlan> planLimits(const SandboxLimits& limits, const HostLimitFacts& host) {
    LimitPlan plan;
    auto rlimit = [&plan](int resource, std::uint64_t soft, std::uint64_t hard) {
        plan.rlimits.push_back({resource, toRlim(soft), toRlim(hard)});
    };

    // A crashing program inside must not write a core file (with its memory) into the workspace or hand
    // it to the host's core_pattern helper.
    rlimit(RLIMIT_CORE, 0, 0);

    std::uint64_t addressSpace = limits.addressSpaceMb;
    if (limits.memoryMb) {
        if (host.cgroups.memory) {
            plan.cgroup.memoryBytes = mebibytesToBytes(limits.memoryMb);
            plan.notes.push_back("memory: " + std::to_string(limits.memoryMb) + " MiB for the whole sandbox (cgroup)");
        } else {
            const std::uint64_t fallback = std::max(limits.memoryMb, limits.addressSpaceFloorMb);
            if (!addressSpace || fallback < addressSpace)
                addressSpace = fallback;
            plan.notes.push_back(
                "memory: " + std::to_string(fallback) + " MiB of address space per process" +
                (fallback > limits.memoryMb ? " (memory_mb is " + std::to_string(limits.memoryMb) +
                                                  "; address_space_floor_mb raises the cap for a runtime that "
                                                  "reserves more than it uses)"
                                            : std::string()) +
                " (no writable memory cgroup here: " + host.cgroups.detail + ")");
        }
    }
    if (addressSpace) {
        rlimit(RLIMIT_AS, mebibytesToBytes(addressSpace), mebibytesToBytes(addressSpace));
        if (limits.addressSpaceMb)
            plan.notes.push_back("address space: " + std::to_string(addressSpace) + " MiB per process (rlimit)");
    }

    if (limits.pids) {
        if (host.cgroups.pids) {
            plan.cgroup.maxPids = limits.pids;
            plan.notes.push_back("processes: " + std::to_string(limits.pids) + " for the whole sandbox (cgroup)");
        } else if (host.runningAsRoot) {
            return makeError(ErrorCode::Unsupported,
                             "the process limit (" + std::to_string(limits.pids) +
                                 ") cannot be enforced: the kernel ignores RLIMIT_NPROC for root and no pids "
                                 "cgroup could be created (" + host.cgroups.detail +
                                 "). Run as a normal user, make the pids cgroup controller writable, or set "
                                 "limits.pids to 0 to run without a process limit.");
        } else {
            // RLIMIT_NPROC counts every task of the real uid on the host, so the sandbox's share is the
            // limit on top of what the user already runs.
            const std::uint64_t nproc = limits.pids + host.userTasks;
            rlimit(RLIMIT_NPROC, nproc, nproc);
            plan.notes.push_back("processes: " + std::to_string(limits.pids) +
                                 " beyond the " + std::to_string(host.userTasks) + " tasks the user already runs" +
                                 " (RLIMIT_NPROC; no writable pids cgroup here)");
        }
    }

    if (limits.cpuSeconds) {
        // SIGXCPU at the soft limit, SIGKILL a second later for a program that ignores it.
        rlimit(RLIMIT_CPU, limits.cpuSeconds, limits.cpuSeconds + 1);
        plan.notes.push_back("CPU: " + std::to_string(limits.cpuSeconds) + " s per process (rlimit)");
    }
    if (limits.fileSizeMb) {
        rlimit(RLIMIT_FSIZE, mebibytesToBytes(limits.fileSizeMb), mebibytesToBytes(limits.fileSizeMb));
        plan.notes.push_back("file size: " + std::to_string(limits.fileSizeMb) + " MiB per file (rlimit)");
    }
    if (limits.openFiles) {
        rlimit(RLIMIT_NOFILE, limits.openFiles, limits.openFiles);
        plan.notes.push_back("open files: " + std::to_string(limits.openFiles) + " per process (rlimit)");
    }
    if (limits.timeoutSec)
        plan.notes.push_back("wall clock: " + std::to_string(limits.timeoutSec) + " s, then the whole sandbox is killed");
    return plan;
}

} // namespace warren::sandbox
