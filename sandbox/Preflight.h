#pragma once
// Can this host run the sandbox the profile asks for? Each check says what it found and, when it fails,
// what the user should do. Used by warren-sandbox before launching (a failed required check is exit
// status 125) and later by `warren doctor`.
//
// The bwrap checks: "bwrap" (found, version, setuid), "user namespaces" (the sysctls), "apparmor" (Ubuntu's
// restriction of user namespaces and Warren's profile that lifts it), "sandbox trial" (a
// real bwrap run with the namespaces Warren uses, skipped when bwrap itself is unusable), "seccomp",
// "cgroups" (a Warning at worst: rlimits stand in).

#include "common/Result.h"
#include "sandbox/bwrap/Cgroup.h"
#include "sandbox/container/DockerCommand.h"
#include "sandbox/policy/SandboxProfile.h"

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

// What a container engine said about itself (`podman info`, `docker info`).
struct EngineInfo {
    std::string version;
    bool rootless = false;
    bool seccomp = false;     // the engine applies seccomp profiles
    bool memoryLimit = false; // --memory is enforced (the memory cgroup controller is the engine's)
    bool pidsLimit = false;   // --pids-limit likewise
    std::string cgroups;      // "cgroup v2 (systemd)", for the report
};

struct PreflightReport {
    std::vector<PreflightCheck> checks;
    std::string bwrapPath; // resolved path of bwrap, empty when not found
    BwrapVersion bwrapVersion;
    bool bwrapSetuid = false;
    CgroupSupport cgroups;
    std::string enginePath; // container backend: the engine found
    EngineInfo engine;      // container backend: what it said

    bool ok() const;                                           // no check Failed
    const PreflightCheck* find(const std::string& name) const; // nullptr when that check did not run
    std::string describe() const; // "ok"/"warning"/"FAILED" line per check, then its fix
};

// The minimum bwrap Warren needs (--disable-userns, --json-status-fd, --size).
inline constexpr BwrapVersion kMinimumBwrap{0, 8, 0};

// Runs every check. bwrapOverride: a path to use instead of searching PATH (empty: search PATH).
PreflightReport runPreflight(const std::string& bwrapOverride = {});

// The container backend's checks: "engine" (found on PATH), "engine info" (it answers; rootless or not),
// "seccomp" (the engine applies profiles), "image" (present locally: Warren never pulls), "container limits"
// (the engine can enforce the profile's memory and process limits here).
PreflightReport runContainerPreflight(ContainerEngine engine, const std::string& image, const SandboxLimits& limits,
                                      const std::string& enginePath = {});
// Its parts: the engine's own checks ("engine", "engine info", "seccomp"; enginePath and engine set when
// found and answered), the image's, and whether the engine answered (the other checks need its answer).
PreflightReport containerEngineChecks(ContainerEngine engine, const std::string& enginePath = {});
PreflightCheck containerImageCheck(ContainerEngine engine, const std::string& enginePath, const std::string& image);
bool engineAnswered(const PreflightReport& report);
// Parses `podman info --format json` or `docker info --format '{{json .}}'`.
Result<EngineInfo> parseEngineInfo(ContainerEngine engine, const std::string& json);
// Whether the engine can enforce the limits, and what to do when not.
PreflightCheck containerLimitsCheck(ContainerEngine engine, const EngineInfo& info, const SandboxLimits& limits);

// Running a helper program (bwrap --version, the engine's info): stdin from /dev/null, stdout (and stderr
// unless withStderr is false, when it goes to /dev/null) captured up to 64 KiB, killed after 15 s.
struct ProcessOutcome {
    int spawnError = 0; // posix_spawn's error: the program could not be started at all
    bool timedOut = false;
    int waitStatus = 0;
    std::string output;
};
ProcessOutcome runCapturing(const std::vector<std::string>& argv, bool withStderr = true);
bool succeeded(const ProcessOutcome& outcome);         // exited with status 0
std::string describeOutcome(const ProcessOutcome& outcome); // "exited with status 1: <output>"

// Pure helpers, tested directly.
bool parseBwrapVersion(const std::string& versionOutput, BwrapVersion& out); // "bubblewrap 0.8.0\n"
// Interprets the sysctls that decide whether an unprivileged process may create a user namespace, whatever
// AppArmor says (that restriction is the "apparmor" check: sandbox/bwrap/UsernsRestriction.h). Each argument is
// the file's trimmed content, or empty when the file does not exist.
PreflightCheck userNamespaceCheck(const std::string& maxUserNamespaces,
                                  const std::string& unprivilegedUsernsClone, bool runningAsRoot,
                                  bool bwrapSetuid);
// procSelfStatus: /proc/self/status; actionsAvail: /proc/sys/kernel/seccomp/actions_avail (empty when
// the file does not exist).
PreflightCheck seccompCheck(const std::string& procSelfStatus, const std::string& actionsAvail);
// What Cgroup::probe() found, and what stands in for each limit a cgroup cannot enforce.
PreflightCheck cgroupCheck(const CgroupSupport& support);

} // namespace warren::sandbox
