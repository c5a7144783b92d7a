#include "app/tasks/AgentLaunch.h"

#include "app/tasks/AgentSandbox.h"
#include "sandbox/SandboxLaunch.h"
#include "sandbox/bwrap/SandboxSetup.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::control {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDoctorHint = "\nRun `warren doctor` for what this machine lacks and how to fix it.";

// As root, gives the task's directories to the uid the sandbox writes as (SandboxLaunch::hostOwner). Not
// following symlinks: the sandbox wrote them. A directory already owned by that uid was handed over before,
// with all it holds.
Status handOver(const std::vector<std::string>& dirs, const std::optional<sandbox::HostOwner>& owner) {
    if (::getuid() != 0 || !owner)
        return Ok{};
    const auto change = [&](const std::string& path) -> Status {
        if (::lchown(path.c_str(), owner->uid, owner->gid) != 0)
            return makeError(ErrorCode::System, "cannot give " + path + " to uid " +
                                                    std::to_string(owner->uid) +
                                                    ", who the sandbox writes as: " + std::strerror(errno));
        return Ok{};
    };
    for (const auto& dir : dirs) {
        struct stat st {};
        if (dir.empty() || ::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
            (st.st_uid == owner->uid && st.st_gid == owner->gid))
            continue;
        std::error_code error;
        for (auto it = fs::recursive_directory_iterator(dir, error);
             !error && it != fs::recursive_directory_iterator(); it.increment(error))
            if (auto changed = change(it->path().string()); !changed)
                return changed;
        if (auto changed = change(dir); !changed) // last: an interrupted hand-over is retried in full
            return changed;
    }
    return Ok{};
}

// What failed, in the words of the step, and what to do about it.
Error explained(const Error& error, sandbox::Backend backend, bool started) {
    if (backend == sandbox::Backend::Bwrap)
        return makeError(error.code, std::string(started ? "the sandbox did not start: "
                                                         : "the sandbox could not be set up: ") +
                                         error.message + kDoctorHint);
    const std::string message = "the " + sandbox::backendName(backend) + " container " +
                                (started ? "did not start: " : "could not be set up: ") + error.message;
    return makeError(error.code, message + (message.back() == '\n' ? "" : "\n") +
                                     "Or run the task with --backend bwrap.");
}

} // namespace

Result<std::unique_ptr<sandbox::RunningSandbox>> launchAgent(const AgentLaunch& launch) {
    auto profile = sandbox::resolveProfile(launch.layers);
    if (!profile)
        return profile.error();
    sandbox::SandboxRequest request;
    request.backend = launch.backend;
    request.profile = std::move(*profile);
    request.command = launch.command;
    request.commandIsInit = true; // the agent reaps and handles SIGTERM and SIGHUP (warren-agent's main)
    request.hostEnv = sandbox::currentEnvironment();
    request.stdio = launch.stdio;
    request.image = launch.image;
    request.labels = launch.labels;
    request.labels[sandbox::kTaskLabel] = launch.taskId;
    // When warren dies, a container's agent is told to pause (SIGHUP): it checkpoints and its container ends
    // and is removed, and `warren resume` continues the task, as after bwrap's sandbox dies with its
    // launcher.
    request.launcherDeathSignal = SIGHUP;
    request.taskToken = launch.taskToken;
    request.rejoin = launch.rejoin;
    request.tokenDir = launch.tokenDir;
    request.controlPlane = launch.controlPlane;
    request.runtimeClass = launch.runtimeClass;
    request.warm = launch.warm;
    request.warmWaiter = launch.warmWaiter;
    auto prepared = sandbox::prepareLaunch(std::move(request));
    if (!prepared)
        return explained(prepared.error(), launch.backend, false);
    if (auto handed = handOver(launch.ownedDirs, (*prepared)->hostOwner()); !handed)
        return handed.error();
    auto running = (*prepared)->start();
    if (!running)
        return explained(running.error(), launch.backend, true);
    return std::move(*running);
}

} // namespace warren::control
