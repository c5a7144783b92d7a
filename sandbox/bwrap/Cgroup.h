#pragma once
// The cgroup(s) of one sandbox, where the host lets us create them: they enforce the memory and
// process-count limits and let the Launcher kill the whole process tree, however it daemonises.
//
// Where the directories go (below this process's own cgroup, so the limits of whatever started us still
// apply to the sandbox; beside it when our own cgroup holds processes and so cannot hand controllers
// down). Each name ends in "@<pid>.<starttime>" of the creating process: when a creator was killed
// before its destructor ran, the next create() in that place sees the owner is gone and removes the
// empty leftover.
// - cgroup v2: "warren-<name>" in the unified hierarchy. It carries memory.max, memory.swap.max=0 and
//   pids.max when those controllers are available (root, or a systemd-delegated subtree), and in any
//   case gives cgroup.kill, the kernel's whole-tree kill.
// - cgroup v1: "warren/<name>" in the memory and pids hierarchies, for limits v2 cannot carry here
//   (memory.limit_in_bytes, memory.memsw.limit_in_bytes when swap accounting exists, pids.max).
// On hybrid hosts both are used: v1 for the limits, v2 for the kill. One directory per hierarchy.
//
// With zero limits, create() still makes whatever cgroup it can so killAll() reaches the whole tree,
// and succeeds with no paths() when it can make none: there is nothing to enforce, and the sandbox's
// pid namespace still ends every process when its init dies. paths().empty() tells the caller so.

#include "common/Result.h"
#include "sandbox/bwrap/CgroupFiles.h"

#include <cstdint>
#include <optional>
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
    // The hierarchy that enforces the limits (V1 on hybrid hosts whose v2 has no controllers); when no
    // limit can be enforced, the one that gives the kill; None when no cgroup can be made at all.
    CgroupVersion version = CgroupVersion::None;
    bool memory = false; // can create a cgroup with a memory limit
    bool pids = false;   // can create a cgroup with a pids limit
    bool kill = false;   // can kill a whole cgroup (v2 cgroup.kill, or by iterating cgroup.procs)
    std::string detail;  // where, or why not, in words a user can act on
};

class Cgroup {
public:
    // Creates and removes throwaway cgroups, exactly as create() would, to see what works here.
    static CgroupSupport probe();

    // name: one path component of [A-Za-z0-9._-], unique among this process's live sandboxes (the task
    // id). An empty cgroup of that name (a crashed run) is replaced; one with processes is an error. Fails,
    // saying what to do, if a non-zero limit cannot be enforced by any cgroup here; the caller decides
    // whether an rlimit can stand in.
    static Result<Cgroup> create(const std::string& name, const CgroupLimits& limits);

    Cgroup(Cgroup&& other) noexcept;
    Cgroup& operator=(Cgroup&& other) noexcept;
    Cgroup(const Cgroup&) = delete;
    Cgroup& operator=(const Cgroup&) = delete;
    ~Cgroup(); // killAll(), then removes the directories

    // How a new process joins, before it execs (every descriptor is O_CLOEXEC):
    // - the v2 cgroup by being created in it: clone3(CLONE_INTO_CGROUP) with v2DirectoryFd() (-1: none);
    // - each v1 hierarchy by writing "0" to its tasks file (v1TaskFds()), which moves only the calling
    //   thread, the whole of a just-forked process. Both skip the global lock a cgroup.procs migration
    //   takes, whose RCU grace period cost 10-20 ms per launch here.
    // procsFds() (every cgroup.procs) is the fallback for kernels without CLONE_INTO_CGROUP.
    int v2DirectoryFd() const { return m_v2DirectoryFd; }
    const std::vector<int>& v1TaskFds() const { return m_v1TaskFds; }
    const std::vector<int>& procsFds() const { return m_procsFds; }
    static bool joinFromChild(const std::vector<int>& fds); // writes "0" to each; async-signal-safe

    // SIGKILLs every process in every hierarchy and returns once all of them are empty (or after a
    // bounded wait, for processes stuck in the kernel). Returns false if something is still inside.
    bool killAll();
    // The building block of killAll() where there is no cgroup.kill: SIGKILL every pid in dir's
    // cgroup.procs, again and again, until it is empty (the pids limit bounds a fork bomb's race).
    static bool killMembers(const std::string& dir);

    bool oomKilled() const;    // the memory limit killed something
    bool pidsLimitHit() const; // a fork failed on the pids limit
    const std::vector<std::string>& paths() const { return m_paths; }

private:
    struct Attempt; // what create() tried, and why each hierarchy could not serve

    Cgroup() = default;
    static Result<Cgroup> make(const std::string& name, const CgroupLimits& limits, Attempt& attempt);
    void addV2(const std::string& own, const std::string& mountPoint, const std::string& name,
               const CgroupLimits& limits, Attempt& attempt);
    std::string addV1(const std::string& hierarchy, const std::string& name, const std::string& controller,
                      std::vector<std::string>& problems, Attempt& attempt);
    Status applyLimits(const CgroupLimits& limits);
    Status openProcsFds();
    void release();

    std::string m_v2Path;     // empty when there is no v2 cgroup
    std::string m_memoryPath; // the directory enforcing the memory limit (v1 or v2), if any
    std::string m_pidsPath;   // the directory enforcing the pids limit (v1 or v2), if any
    bool m_memoryIsV1 = false;
    std::vector<std::string> m_paths;          // every directory made, one per hierarchy
    std::vector<std::string> m_v1GroupingDirs; // the v1 "warren" parents, removed when left empty
    std::vector<int> m_procsFds;
    std::vector<int> m_v1TaskFds;
    int m_v2DirectoryFd = -1;
};

} // namespace warren::sandbox
