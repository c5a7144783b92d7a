#pragma once
// How each resource limit of a profile is enforced on this host: by a cgroup where one can be created,
// by an rlimit otherwise, or not at all, in which case the plan fails (fail closed) rather than run
// a sandbox with a limit silently dropped. Pure: the host's capabilities come in as arguments.

#include "common/Result.h"
#include "sandbox/bwrap/Cgroup.h"
#include "sandbox/policy/SandboxProfile.h"

#include <cstdint>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace warren::sandbox {

struct RlimitSetting {
    int resource = 0; // RLIMIT_*
    rlim_t soft = 0;
    rlim_t hard = 0;
    friend bool operator==(const RlimitSetting&, const RlimitSetting&) = default;
};

struct LimitPlan {
    CgroupLimits cgroup;               // zero where the cgroup does not enforce
    std::vector<RlimitSetting> rlimits; // applied to bwrap before exec, inherited by everything inside
    std::vector<std::string> notes;    // one line per limit: what enforces it
};

struct HostLimitFacts {
    CgroupSupport cgroups;
    bool runningAsRoot = false;       // real uid 0: the kernel ignores RLIMIT_NPROC for it
    std::uint64_t userTasks = 0;      // tasks (threads) the real uid already has: RLIMIT_NPROC counts them
};

Result<LimitPlan> planLimits(const SandboxLimits& limits, const HostLimitFacts& host);

} // namespace warren::sandbox
