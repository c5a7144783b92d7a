#pragma once
// A memory + pids cgroup for one sandbox, where the host lets us create one: cgroup v2 (a delegated
// subtree with the memory and pids controllers) or cgroup v1 (writable memory and pids hierarchies, as
// for root). Owns the directories: the destructor kills what is left inside and removes them.

#include "Result.h"

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace warren::sandbox {

struct CgroupLimits {
    std::uint64_t memoryBytes = 0; // 0: no memory limit
    std::uint64_t maxPids = 0;     // 0: no pids limit
};

enum class CgroupVersion { None, V1, V2 };

// What this host lets the current process do with cgroups (also reported by Preflight).
struct CgroupSupport {
    CgroupVersion version = CgroupVersion::None;
    bool memory = false; // can create a cgroup with a memory limit
    bool pids = false;   // can create a cgroup with a pids limit
    bool kill = false;   // can kill a whole cgroup (v2 cgroup.kill, or v1 by iterating cgroup.procs)
    std::string detail;  // where, or why not, in words a user can act on
};

class Cgroup {
public:
    static CgroupSupport probe();

    // Creates "warren-<name>" cgroups carrying the limits. Fails (with what to do) if a non-zero limit
    // cannot be enforced by a cgroup here; the caller decides whether an rlimit can stand in.
    static Result<Cgroup> create(const std::string& name, const CgroupLimits& limits);

    Cgroup(Cgroup&& other) noexcept;
    Cgroup& operator=(Cgroup&& other) noexcept;
    Cgroup(const Cgroup&) = delete;
    Cgroup& operator=(const Cgroup&) = delete;
    ~Cgroup();

    // Open O_WRONLY|O_CLOEXEC descriptors of every cgroup.procs file. A forked child writes "0" to each
    // (async-signal-safe) to move itself in before exec.
    const std::vector<int>& procsFds() const { return m_procsFds; }
    static bool joinFromChild(const std::vector<int>& procsFds); // async-signal-safe

    void killAll();             // SIGKILL every process in the cgroup, until it is empty
    bool oomKilled() const;     // the memory limit killed something
    bool pidsLimitHit() const;  // a fork failed on the pids limit
    const std::vector<std::string>& paths() const { return m_paths; }

private:
    Cgroup() = default;
    void release();

    CgroupVersion m_version = CgroupVersion::None;
    std::vector<std::string> m_paths; // one per hierarchy (v1) or one (v2)
    std::vector<int> m_procsFds;
};

} // namespace warren::sandbox
