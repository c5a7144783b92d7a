#include "AgentProcess.h"

#include "AgentSandbox.h"
#include "ContainerLauncher.h"
#include "Preflight.h"
#include "SandboxSetup.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::control {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDoctorHint = "\nRun `warren doctor` for what this machine lacks and how to fix it.";

// As root, gives the task's directories to the uid the sandbox writes as: bwrap maps its user to the
// invoker (root), a rootful engine runs the container as the profile's uid. Not following symlinks: the
// sandbox wrote them. A directory already owned by that uid was handed over before, with all it holds.
Status handOver(const std::vector<std::string>& dirs, std::optional<std::uint32_t> uid,
                std::optional<std::uint32_t> gid) {
    if (::getuid() != 0 || !uid || !gid)
        return Ok{};
    const auto change = [&](const std::string& path) -> Status {
        if (::lchown(path.c_str(), *uid, *gid) != 0)
            return makeError(ErrorCode::System, "cannot give " + path + " to uid " + std::to_string(*uid) +
                                                    ", who the sandbox writes as: " + std::strerror(errno));
        return Ok{};
    };
    for (const auto& dir : dirs) {
        struct stat st {};
        if (dir.empty() || ::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
            (st.st_uid == *uid && st.st_gid == *gid))
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

class BwrapAgentProcess : public AgentProcess {
public:
    BwrapAgentProcess(sandbox::SandboxProcess process, std::string workspaceSource,
                      sandbox::ProtectionPlan protection)
        : AgentProcess(std::move(workspaceSource), std::move(protection)), m_process(std::move(process)) {}

    int pidfd() const override { return m_process.pidfd(); }
    int statusFd() const override { return m_process.statusFd(); }
    void readStatus() override { m_process.readStatus(); }
    std::optional<sandbox::SandboxExit> exitStatus() override {
        return m_process.wait(std::chrono::milliseconds(0));
    }
    void terminate() override { m_process.terminate(); }
    void kill() override { m_process.kill(); }
    std::string setupFailureReport() const override {
        return sandbox::runPreflight().describe() + "Run `warren doctor` for how to fix it.";
    }

private:
    sandbox::SandboxProcess m_process;
};

class ContainerAgentProcess : public AgentProcess {
public:
    ContainerAgentProcess(sandbox::ContainerProcess process, sandbox::ContainerScratch scratch,
                          const sandbox::PreparedContainer& container)
        : AgentProcess(container.profile.workspaceSource, container.protection),
          m_process(std::move(process)), m_scratch(std::move(scratch)), m_engine(container.request.engine),
          m_image(container.request.image), m_limits(container.profile.limits) {}
    ~ContainerAgentProcess() override {
        m_process.reset(); // stops and removes the container if it still runs; then its files can go
        sandbox::removeContainerScratch(m_scratch);
    }

    int pidfd() const override { return m_process->pidfd(); }
    // The run client has exited, so this returns at once.
    std::optional<sandbox::SandboxExit> exitStatus() override { return m_process->wait(std::nullopt); }
    void terminate() override { m_process->terminate(); }
    void kill() override { m_process->kill(); }
    std::string setupFailureReport() const override {
        const auto report = sandbox::runContainerPreflight(m_engine, m_image, m_limits);
        return (report.ok() ? std::string("The host passes every preflight check of the ") +
                                  sandbox::containerEngineName(m_engine) +
                                  " backend; its message above says what failed.\n"
                            : "Preflight:\n" + report.describe());
    }

private:
    std::optional<sandbox::ContainerProcess> m_process;
    sandbox::ContainerScratch m_scratch;
    sandbox::ContainerEngine m_engine;
    std::string m_image;
    sandbox::SandboxLimits m_limits;
};

Result<std::unique_ptr<AgentProcess>> startBwrap(const AgentLaunch& launch, sandbox::SandboxProfile profile) {
    sandbox::SetupOptions setup;
    setup.hostEnv = sandbox::currentEnvironment();
    auto prepared = sandbox::prepareSandbox(std::move(profile), agentCommand(), setup);
    if (!prepared)
        return makeError(prepared.error().code,
                         "the sandbox could not be set up: " + prepared.error().message + kDoctorHint);
    if (auto handed = handOver(launch.ownedDirs, ::getuid(), ::getgid()); !handed) {
        sandbox::removePlaceholders(prepared->profile.workspaceSource, prepared->protection);
        return handed.error();
    }
    auto process = sandbox::SandboxProcess::start(prepared->command, prepared->limits,
                                                  std::move(prepared->cgroup), launch.stdio);
    if (!process) {
        sandbox::removePlaceholders(prepared->profile.workspaceSource, prepared->protection);
        return makeError(process.error().code,
                         "the sandbox did not start: " + process.error().message + kDoctorHint);
    }
    return std::unique_ptr<AgentProcess>(
        new BwrapAgentProcess(std::move(*process), prepared->profile.workspaceSource, prepared->protection));
}

// The same steps as `warren-sandbox --backend`: preflight (Warren never pulls; a missing image is a failed
// check with its fix), the sweep of containers a killed launcher left, then the container.
Result<std::unique_ptr<AgentProcess>> startContainer(const AgentLaunch& launch,
                                                     sandbox::SandboxProfile profile) {
    sandbox::ContainerOptions options;
    options.engine =
        launch.backend == "podman" ? sandbox::ContainerEngine::Podman : sandbox::ContainerEngine::Docker;
    options.image = launch.image;
    const auto preflight = sandbox::runContainerPreflight(options.engine, options.image, profile.limits);
    if (!preflight.ok())
        return makeError(ErrorCode::Unsupported, "the " + launch.backend +
                                                     " backend cannot run the agent here.\n"
                                                     "Preflight:\n" +
                                                     preflight.describe() +
                                                     "Or run the task with --backend bwrap.");
    options.enginePath = preflight.enginePath;
    options.rootlessEngine = preflight.engine.rootless;
    options.command = agentCommand();
    options.hostEnv = sandbox::currentEnvironment();
    options.labels["warren.task"] = launch.taskId;
    sandbox::sweepOrphanedContainers(options.engine, options.enginePath);

    auto scratch = sandbox::makeContainerScratch();
    if (!scratch)
        return scratch.error();
    auto prepared =
        sandbox::prepareContainer(std::move(profile), options, scratch->dataDir, scratch->containerName);
    if (!prepared) {
        sandbox::removeContainerScratch(*scratch);
        return makeError(prepared.error().code, "the " + launch.backend + " container could not be set up: " +
                                                    prepared.error().message);
    }
    if (auto handed =
            handOver(launch.ownedDirs, prepared->command.hostOwnerUid, prepared->command.hostOwnerGid);
        !handed) {
        sandbox::removeContainerScratch(*scratch);
        return handed.error();
    }
    // When warren dies, the agent is told to pause (SIGHUP): it checkpoints and its container ends and is
    // removed, and `warren resume` continues the task, as after bwrap's sandbox dies with its launcher.
    auto process = sandbox::ContainerProcess::start(*prepared, launch.stdio, SIGHUP);
    if (!process) {
        sandbox::removeContainerScratch(*scratch);
        sandbox::removePlaceholders(prepared->profile.workspaceSource, prepared->protection);
        return makeError(process.error().code,
                         "the " + launch.backend + " container did not start: " + process.error().message);
    }
    return std::unique_ptr<AgentProcess>(
        new ContainerAgentProcess(std::move(*process), std::move(*scratch), *prepared));
}

} // namespace

Result<std::unique_ptr<AgentProcess>> AgentProcess::start(const AgentLaunch& launch) {
    auto profile = sandbox::resolveProfile(launch.layers);
    if (!profile)
        return profile.error();
    if (launch.backend == "bwrap")
        return startBwrap(launch, std::move(*profile));
    if (launch.backend == "docker" || launch.backend == "podman")
        return startContainer(launch, std::move(*profile));
    return makeError(ErrorCode::InvalidArgument,
                     "backend \"" + launch.backend +
                         "\": the sandbox is bwrap (bubblewrap), docker or podman");
}

} // namespace warren::control
