#include "sandbox/container/ContainerSandbox.h"

#include "sandbox/Preflight.h"
#include "sandbox/container/ContainerLauncher.h"
#include "sandbox/container/KeptPreflight.h"
#include "sandbox/container/WarmPool.h"
#include "sandbox/container/WarmSlots.h"

#include <cstdlib>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::sandbox {
namespace {

class ContainerSandbox : public RunningSandbox {
public:
    ContainerSandbox(ContainerRun run, ContainerProcess process)
        : m_run(std::move(run)), m_process(std::move(process)) {}
    ~ContainerSandbox() override {
        m_process.reset(); // stops and removes the container if it still runs; then its files can go
        removeContainerScratch(m_run.warmScratch); // the slots first: they hold the task's mounts
        removeContainerScratch(m_run.scratch);
        m_run.placeholders.clear();
    }

    Backend backend() const override { return m_run.backend; }
    const SandboxProfile& profile() const override { return m_run.profile; }
    const ProtectionPlan& protection() const override { return m_run.protection; }
    std::string commandLine() const override { return m_run.commandLine; }
    int pidfd() const override { return m_process->pidfd(); }
    std::optional<SandboxExit> wait(std::optional<std::chrono::milliseconds> timeout,
                                    int interruptFd) override {
        return m_process->wait(timeout, interruptFd);
    }
    // The run client has exited, so this returns at once.
    std::optional<SandboxExit> exitStatus() override { return m_process->wait(std::nullopt); }
    void terminate() override { m_process->terminate(); }
    void kill() override { m_process->kill(); }
    bool startedWarm() const override { return !m_run.warmScratch.dataDir.empty(); }
    std::string setupFailureReport() const override {
        const auto report = runContainerPreflight(m_run.engine, m_run.image, m_run.profile.limits);
        return report.ok() ? "The host passes every preflight check of the " + backendName(m_run.backend) +
                                 " backend; its message above says what failed.\n"
                           : "Preflight:\n" + report.describe();
    }

private:
    ContainerRun m_run;
    std::optional<ContainerProcess> m_process;
};

class ContainerLaunch : public SandboxLaunch {
public:
    ContainerLaunch(Backend backend, PreparedContainer prepared, ContainerScratch scratch,
                    LaunchOptions stdio, int launcherDeathSignal, std::optional<WarmPlan> warm = std::nullopt)
        : m_backend(backend), m_prepared(std::move(prepared)), m_scratch(std::move(scratch)), m_stdio(stdio),
          m_launcherDeathSignal(launcherDeathSignal), m_warm(std::move(warm)) {}
    ~ContainerLaunch() override {
        if (!m_started)
            removeContainerScratch(m_scratch);
    }

    std::string explain() const override;
    std::optional<HostOwner> hostOwner() const override {
        if (!m_prepared.command.hostOwnerUid || !m_prepared.command.hostOwnerGid)
            return std::nullopt;
        return HostOwner{*m_prepared.command.hostOwnerUid, *m_prepared.command.hostOwnerGid};
    }
    Result<std::unique_ptr<RunningSandbox>> start() override {
        // Recorded before the engine (or createPlaceholders) makes any mount point in the workspace.
        auto placeholders =
            PlaceholderRecord::write(m_backend, m_prepared.profile.workspaceSource, m_prepared.protection);
        if (!placeholders)
            return placeholders.error();
        std::unique_ptr<WarmContainer> warm = m_warm ? WarmPool::instance().take(m_warm->key) : nullptr;
        if (warm) {
            auto claimed = claimWarmContainer(*warm, *m_warm, m_prepared,
                                              {m_stdio.stdinFd, m_stdio.stdoutFd, m_stdio.stderrFd});
            if (claimed)
                return started(std::move(*placeholders), std::move(*warm->process),
                               std::exchange(warm->scratch, {}));
            // Cold, then, from a clean scratch directory: the claim may have written the task's files there.
            warm.reset();
            placeholders->clear();
            removeContainerScratch(m_scratch);
            if (::mkdir(m_scratch.dataDir.c_str(), 0700) != 0)
                return makeError(ErrorCode::System, "cannot make " + m_scratch.dataDir +
                                                        " again after a warm container failed its claim (" +
                                                        claimed.error().message + ")");
            placeholders = PlaceholderRecord::write(m_backend, m_prepared.profile.workspaceSource,
                                                    m_prepared.protection);
            if (!placeholders)
                return placeholders.error();
        }
        auto process = ContainerProcess::start(m_prepared, m_stdio, m_launcherDeathSignal);
        if (!process) { // the engine may have made mount points before it failed
            placeholders->clear();
            return process.error();
        }
        return started(std::move(*placeholders), std::move(*process), {});
    }

private:
    // The running sandbox takes over; then warm containers of its shape are started for the next launches
    // (a failure there costs only warmth).
    std::unique_ptr<RunningSandbox> started(PlaceholderRecord placeholders, ContainerProcess process,
                                            ContainerScratch warmScratch) {
        m_started = true;
        const DockerRequest& request = m_prepared.request;
        auto sandbox = makeContainerSandbox(
            ContainerRun{m_backend, std::move(m_prepared.profile), std::move(m_prepared.protection),
                         m_prepared.command.commandLine(), request.engine, request.image,
                         std::move(m_scratch), std::move(placeholders), std::move(warmScratch)},
            std::move(process));
        if (m_warm)
            (void)WarmPool::instance().refill(*m_warm);
        return sandbox;
    }

    Backend m_backend;
    PreparedContainer m_prepared;
    ContainerScratch m_scratch;
    LaunchOptions m_stdio;
    int m_launcherDeathSignal;
    std::optional<WarmPlan> m_warm;
    bool m_started = false;
};

// Nothing is written, started or asked of the engine for it; the files listed are the ones a run writes
// before starting it.
std::string ContainerLaunch::explain() const {
    const DockerRequest& request = m_prepared.request;
    const DockerCommand& command = m_prepared.command;
    std::ostringstream out;
    out << "# Resolved profile\n"
        << m_prepared.profile.toJson().dump(2) << "\n\n# Backend\n- " << containerEngineName(request.engine)
        << (request.rootlessEngine ? ", rootless" : ", rootful")
        << " (assumed from the engine and the invoking uid, not asked), image " << request.image << "\n";
    explainList(out, "Not enforced as the profile says", command.notEnforced);
    explainList(out, "Not enforced by the container runtime's seccomp as by the bwrap filter",
              m_prepared.seccomp.differences);
    explainList(out, "Enforced in another way than under bwrap", command.notes);
    out << "\n# Protected paths in " << m_prepared.profile.workspaceSource << "\n";
    for (const auto& entry : m_prepared.protection.entries)
        out << "- " << entry.relative << ": " << protectionKindName(entry.kind) << "\n";
    out << "\n# Files written before the engine starts\n- " << request.seccompProfilePath
        << ": seccomp profile (" << m_prepared.seccomp.json.size() << " bytes)\n";
    for (const auto& file : command.files)
        out << "- " << file.hostPath << ": " << file.purpose << " (" << file.bytes.size() << " bytes)\n";
    if (const auto& view = command.workspaceView)
        out << "- " << view->path << ": idmapped view of " << view->source << " (uid " << view->hostUid
            << " and gid " << view->hostGid << " there as " << view->viewUid << ":" << view->viewGid << ")\n";
    out << "\n# Command line\n" << command.commandLine() << "\n";
    return out.str();
}

ContainerOptions containerOptions(const SandboxRequest& request, ContainerEngine engine) {
    ContainerOptions options;
    options.engine = engine;
    options.image = request.image;
    options.command = request.command;
    options.hostEnv = request.hostEnv;
    options.labels = request.labels;
    options.commandIsInit = request.commandIsInit;
    return options;
}

// A launch that may claim a warm container, and keeps some of its shape: its shape in the launch's own
// scratch directory (the claim's sources are the task's). nullopt: a cold launch only.
Result<std::optional<WarmPlan>> warmPlan(const SandboxRequest& request, const ContainerOptions& options,
                                         const ContainerScratch& scratch) {
    if (request.warm <= 0 || request.backend != Backend::Podman || request.warmWaiter.empty() ||
        !warmStartsPossible(options.engine, options.rootlessEngine))
        return std::optional<WarmPlan>();
    WarmPlan plan;
    plan.options = options;
    plan.options.labels = {{kWarmLabel, "1"}}; // nothing of a task's
    plan.options.warm = DockerRequest::Warm{{}, {}, request.warmWaiter};
    plan.profile = request.profile;
    plan.keep = request.warm;
    plan.launcherDeathSignal = request.launcherDeathSignal;
    ContainerOptions shapeOptions = plan.options;
    shapeOptions.warm->slotsDir = scratch.dataDir + "/" + kWarmSlotsName;
    shapeOptions.warm->claimDir = scratch.dataDir + "/" + kWarmClaimName;
    auto shape = prepareContainer(request.profile, shapeOptions, scratch.dataDir, scratch.containerName);
    if (!shape)
        return shape.error();
    plan.key = warmShapeKey(*shape, scratch);
    plan.shape = std::move(*shape);
    return std::optional<WarmPlan>(std::move(plan));
}

// --explain: the same profile through the same prepareContainer() as a run, with placeholder names for the
// files. Without asking the engine (preflight's job, at run time), podman run by a user is rootless and
// docker is rootful.
Result<std::unique_ptr<SandboxLaunch>> prepareExplanation(SandboxRequest request, ContainerEngine engine) {
    ContainerOptions options = containerOptions(request, engine);
    options.rootlessEngine = engine == ContainerEngine::Podman && getuid() != 0;
    const char* runtimeDir = std::getenv("XDG_RUNTIME_DIR");
    const std::string dataDir =
        std::string(runtimeDir && *runtimeDir ? runtimeDir : "/tmp") + "/warren-container-XXXXXX";
    auto prepared = prepareContainer(std::move(request.profile), options, dataDir,
                                     "warren-" + std::to_string(getpid()) + "-XXXXXX");
    if (!prepared)
        return prepared.error();
    return std::unique_ptr<SandboxLaunch>(new ContainerLaunch(request.backend, std::move(*prepared), {},
                                                              request.stdio, request.launcherDeathSignal));
}

} // namespace

void explainList(std::ostream& out, const std::string& title, const std::vector<std::string>& lines) {
    out << "\n# " << title << "\n";
    if (lines.empty())
        out << "- nothing\n";
    for (const auto& line : lines)
        out << "- " << line << "\n";
}

std::unique_ptr<RunningSandbox> makeContainerSandbox(ContainerRun run, ContainerProcess process) {
    return std::make_unique<ContainerSandbox>(std::move(run), std::move(process));
}

Result<std::unique_ptr<SandboxLaunch>> prepareContainerLaunch(SandboxRequest request) {
    const ContainerEngine engine = containerEngine(request.backend).value_or(ContainerEngine::Podman);
    if (request.explainOnly)
        return prepareExplanation(std::move(request), engine);

    ContainerOptions options = containerOptions(request, engine);
    const PreflightReport preflight = keptContainerPreflight(engine, options.image, request.profile.limits);
    if (!preflight.ok())
        return makeError(ErrorCode::Unsupported, "the " + backendName(request.backend) +
                                                     " backend cannot run here.\nPreflight:\n" +
                                                     preflight.describe());
    options.enginePath = preflight.enginePath;
    options.rootlessEngine = preflight.engine.rootless;
    if (sweepDue(options.enginePath))
        sweepOrphanedContainers(engine, options.enginePath);

    auto scratch = makeContainerScratch();
    if (!scratch)
        return scratch.error();
    auto warm = warmPlan(request, options, *scratch);
    auto prepared =
        prepareContainer(std::move(request.profile), options, scratch->dataDir, scratch->containerName);
    if (!prepared || !warm) {
        removeContainerScratch(*scratch);
        return prepared ? warm.error() : prepared.error();
    }
    return std::unique_ptr<SandboxLaunch>(new ContainerLaunch(request.backend, std::move(*prepared),
                                                              std::move(*scratch), request.stdio,
                                                              request.launcherDeathSignal, std::move(*warm)));
}

} // namespace warren::sandbox
