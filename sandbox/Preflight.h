#pragma once
// Can this host run the sandbox the profile asks for? Each check says what it found and, when it fails,
// what the user should do. Used by warren-sandbox before launching (a failed required check is exit
// status 125) and later by `warren doctor`.
//
// The checks: "bwrap" (found, version, setuid), "user namespaces" (the sysctls), "sandbox trial" (a
// real bwrap run with the namespaces Warren uses, skipped when bwrap itself is unusable), "seccomp",
// "cgroups" (a Warning at worst: rlimits stand in).

#include "Cgroup.h"

#include <string>
#include <vector>

namespace warren::sandbox {

struct PreflightCheck {
    enum class Status { Ok, Warning, Failed };
    std::string name; // "bwrap", "user namespaces", "sandbox trial", "seccomp", "cgroups"
    Status status = Status::Ok;
    std::string detail; // what was found
    std::string fix;    // what to do, when status is not Ok
};

struct BwrapVersion {
    int major = 0, minor = 0, patch = 0;
    friend auto operator<=>(const BwrapVersion&, const BwrapVersion&) = default;
};

struct PreflightReport {
    std::vector<PreflightCheck> checks;
    std::string bwrapPath; // resolved path of bwrap, empty when not found
    BwrapVersion bwrapVersion;
    bool bwrapSetuid = false;
    CgroupSupport cgroups;

    bool ok() const;                                           // no check Failed
    const PreflightCheck* find(const std::string& name) const; // nullptr when that check did not run
    std::string describe() const; // "ok"/"warning"/"FAILED" line per check, then its fix
};

// The minimum bwrap Warren needs (--disable-userns, --json-status-fd, --size).
inline constexpr BwrapVersion kMinimumBwrap{0, 8, 0};

// Runs every check. bwrapOverride: a path to use instead of searching PATH (empty: search PATH).
PreflightReport runPreflight(const std::string& bwrapOverride = {});

// Pure helpers, tested directly.
bool parseBwrapVersion(const std::string& versionOutput, BwrapVersion& out); // "bubblewrap 0.8.0\n"
// Interprets the sysctls that decide whether an unprivileged process may create a user namespace.
// Each argument is the file's trimmed content, or empty when the file does not exist. A restriction
// that only an AppArmor profile can lift is a Warning: the sandbox trial decides.
PreflightCheck userNamespaceCheck(const std::string& maxUserNamespaces,
                                  const std::string& unprivilegedUsernsClone,
                                  const std::string& apparmorRestrictUnprivilegedUserns, bool runningAsRoot,
                                  bool bwrapSetuid);
// procSelfStatus: /proc/self/status; actionsAvail: /proc/sys/kernel/seccomp/actions_avail (empty when
// the file does not exist).
PreflightCheck seccompCheck(const std::string& procSelfStatus, const std::string& actionsAvail);
// What Cgroup::probe() found, and what stands in for each limit a cgroup cannot enforce.
PreflightCheck cgroupCheck(const CgroupSupport& support);

} // namespace warren::sandbox
