#pragma once
// Setting up one sandbox as an ordered list of small steps, each refusing to continue on failure:
// workspace -> seccomp filter -> protected paths -> bwrap command -> limit plan -> cgroup.
// warren-sandbox and the control plane both launch through this, so they cannot drift apart.

#include "common/Result.h"
#include "sandbox/bwrap/BwrapCommand.h"
#include "sandbox/bwrap/Cgroup.h"
#include "sandbox/bwrap/LimitPlan.h"
#include "sandbox/policy/ProtectedPaths.h"
#include "sandbox/policy/SandboxProfile.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

struct SetupOptions {
    std::string bwrapPath;                       // empty: search PATH
    std::map<std::string, std::string> hostEnv;  // for the profile's env_passthrough
    bool createCgroup = true;                    // false for --explain: decide, but touch nothing
    bool commandIsInit = false;                  // SandboxRequest::commandIsInit
};

struct PreparedSandbox {
    SandboxProfile profile; // with the workspace source canonicalised
    BwrapCommand command;
    ProtectionPlan protection;
    LimitPlan limits;
    std::optional<Cgroup> cgroup;
};

Result<PreparedSandbox> prepareSandbox(SandboxProfile profile, const std::vector<std::string>& command,
                                       const SetupOptions& options);

// The workspace as realpath() gives it, refused when it is not a directory, is / or holds the user's home.
Result<std::string> canonicalWorkspace(const std::string& path);

std::string findExecutable(const std::string& name, const std::string& pathVariable);
std::map<std::string, std::string> currentEnvironment();

} // namespace warren::sandbox
