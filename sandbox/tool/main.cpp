// warren-sandbox: run one command in the sandbox a profile describes (DESIGN §4).

#include "CommandLine.h"
#include "ContainerLauncher.h"
#include "DockerCommand.h"
#include "DockerSeccomp.h"
#include "Launcher.h"
#include "Preflight.h"
#include "SandboxPaths.h"
#include "SandboxProfile.h"
#include "SandboxSetup.h"
#include "SeccompPolicy.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <signal.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

using namespace warren;
using namespace warren::sandbox;

namespace {

constexpr int kExitSetupFailed = 125;
constexpr int kExitTimedOut = 124;
constexpr int kExitCommandNotFound = 127; // as env(1), timeout(1) and the shells

int setupFailed(const std::string& message) {
    std::cerr << "warren-sandbox: " << message << "\n";
    return kExitSetupFailed;
}

Result<nlohmann::json> readProfileFile(const std::string& path) {
    std::ifstream file(path);
    if (!file)
        return makeError(ErrorCode::NotFound, "cannot read profile " + path + ": " + std::strerror(errno));
    std::stringstream text;
    text << file.rdbuf();
    return parseProfileLayer(text.str(), path);
}

std::string protectionKindName(ProtectionEntry::Kind kind) {
    switch (kind) {
    case ProtectionEntry::Kind::Pin:
        return "pinned (cannot be renamed or replaced)";
    case ProtectionEntry::Kind::ReadOnly:
        return "read-only";
    case ProtectionEntry::Kind::PlaceholderFile:
        return "cannot be created (empty read-only placeholder)";
    case ProtectionEntry::Kind::PlaceholderDir:
        return "cannot be created (empty read-only directory)";
    }
    return "";
}

void explain(const PreparedSandbox& sandbox) {
    std::cout << "# Resolved profile\n" << sandbox.profile.toJson().dump(2) << "\n\n# Limits\n";
    for (const auto& note : sandbox.limits.notes)
        std::cout << "- " << note << "\n";
    std::cout << "\n# Protected paths in " << sandbox.profile.workspaceSource << "\n";
    for (const auto& entry : sandbox.protection.entries)
        std::cout << "- " << entry.relative << ": " << protectionKindName(entry.kind) << "\n";
    std::cout << "\n# Descriptors passed to bwrap\n- " << BwrapCommand::kStatusFd << ": bwrap status (JSON)\n";
    for (const auto& data : sandbox.command.dataFds)
        std::cout << "- " << data.fd << ": " << data.purpose << " (" << data.bytes.size() << " bytes)\n";
    std::cout << "\n# Command line\n" << sandbox.command.commandLine() << "\n";
}

void printList(const std::string& title, const std::vector<std::string>& lines) {
    std::cout << "\n# " << title << "\n";
    if (lines.empty())
        std::cout << "- nothing\n";
    for (const auto& line : lines)
        std::cout << "- " << line << "\n";
}

ContainerOptions containerOptions(const SandboxCommandLine& line) {
    ContainerOptions options;
    options.engine = line.backend == "podman" ? ContainerEngine::Podman : ContainerEngine::Docker;
    options.image = line.image.value_or(kDefaultContainerImage);
    options.command = line.command;
    options.hostEnv = currentEnvironment();
    return options;
}

// --backend docker|podman --explain: the same profile through the same prepareContainer() as a run. Nothing
// is written, started or asked of the engine; the files listed are the ones a run writes before starting it.
int explainContainer(const SandboxCommandLine& line, SandboxProfile profile) {
    ContainerOptions options = containerOptions(line);
    // Without asking the engine (preflight's job, at run time), podman run by a user is rootless and docker
    // is rootful.
    options.rootlessEngine = options.engine == ContainerEngine::Podman && getuid() != 0;
    const char* runtimeDir = std::getenv("XDG_RUNTIME_DIR");
    const std::string dataDir = std::string(runtimeDir && *runtimeDir ? runtimeDir : "/tmp") + "/warren-container-XXXXXX";
    auto container = prepareContainer(std::move(profile), options, dataDir,
                                      "warren-" + std::to_string(getpid()) + "-XXXXXX");
    if (!container)
        return setupFailed(container.error().message);
    const DockerRequest& request = container->request;
    const DockerCommand& command = container->command;

    std::cout << "# Resolved profile\n" << container->profile.toJson().dump(2) << "\n\n# Backend\n- "
              << containerEngineName(request.engine) << (request.rootlessEngine ? ", rootless" : ", rootful")
              << " (assumed from the engine and the invoking uid, not asked), image " << request.image << "\n";
    printList("Not enforced as the profile says", command.notEnforced);
    printList("Not enforced by the container runtime's seccomp as by the bwrap filter", container->seccomp.differences);
    printList("Enforced in another way than under bwrap", command.notes);
    std::cout << "\n# Protected paths in " << container->profile.workspaceSource << "\n";
    for (const auto& entry : container->protection.entries)
        std::cout << "- " << entry.relative << ": " << protectionKindName(entry.kind) << "\n";
    std::cout << "\n# Files written before the engine starts\n- " << request.seccompProfilePath
              << ": seccomp profile (" << container->seccomp.json.size() << " bytes)\n";
    for (const auto& file : command.files)
        std::cout << "- " << file.hostPath << ": " << file.purpose << " (" << file.bytes.size() << " bytes)\n";
    std::cout << "\n# Command line\n" << command.commandLine() << "\n";
    return 0;
}

int blockedSignals() {
    sigset_t handled;
    sigemptyset(&handled);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
        sigaddset(&handled, sig);
    sigprocmask(SIG_BLOCK, &handled, nullptr);
    return signalfd(-1, &handled, SFD_CLOEXEC);
}

// --backend docker|podman: preflight (a failed check is 125 with its fix), the sweep of containers a killed
// launcher left, then the container, stopped and removed on a timeout or a signal.
// Waits for the sandbox (bwrap or a container) to end within timeoutSec (0: none). A stop signal on the
// signalfd kills it; the signal's number is returned with the exit.
template <typename Process>
std::pair<SandboxExit, int> waitForExit(Process& process, std::uint64_t timeoutSec, int signals) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSec);
    int interruptedBy = 0;
    while (true) {
        std::optional<std::chrono::milliseconds> left;
        if (timeoutSec)
            left = std::max(std::chrono::milliseconds(0), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                             deadline - std::chrono::steady_clock::now()));
        if (auto exit = process.wait(left, signals))
            return {*exit, interruptedBy};
        signalfd_siginfo info{};
        if (read(signals, &info, sizeof info) == sizeof info)
            interruptedBy = static_cast<int>(info.ssi_signo);
        process.kill();
    }
}

int runContainer(const SandboxCommandLine& line, SandboxProfile profile) {
    ContainerOptions options = containerOptions(line);
    const PreflightReport preflight = runContainerPreflight(options.engine, options.image, profile.limits);
    if (!preflight.ok())
        return setupFailed("the " + line.backend + " backend cannot run here.\nPreflight:\n" + preflight.describe());
    options.enginePath = preflight.enginePath;
    options.rootlessEngine = preflight.engine.rootless;
    sweepOrphanedContainers(options.engine, options.enginePath);

    auto scratch = makeContainerScratch();
    if (!scratch)
        return setupFailed(scratch.error().message);
    auto container = prepareContainer(std::move(profile), options, scratch->dataDir, scratch->containerName);
    if (!container) {
        removeContainerScratch(*scratch);
        return setupFailed(container.error().message);
    }
    const int signals = blockedSignals();
    auto process = ContainerProcess::start(*container);
    if (!process) {
        removeContainerScratch(*scratch);
        return setupFailed(process.error().message);
    }

    const std::uint64_t timeoutSec = container->profile.limits.timeoutSec;
    const auto [exit, interruptedBy] = waitForExit(*process, timeoutSec, signals);
    removeContainerScratch(*scratch);
    removePlaceholders(container->profile.workspaceSource, container->protection);

    switch (exit.reason) {
    case SandboxExit::Reason::SetupFailed:
        return setupFailed(line.backend + " run exited with status 125: the engine could not create or start the "
                           "container (its message above says why), or the command itself exited 125. The engine "
                           "command line was:\n" + container->command.commandLine());
    case SandboxExit::Reason::TimedOut:
        std::cerr << "warren-sandbox: timed out after " << timeoutSec << " s; the container was killed and removed\n";
        return kExitTimedOut;
    case SandboxExit::Reason::Killed:
        return 128 + (interruptedBy ? interruptedBy : SIGKILL);
    case SandboxExit::Reason::Exited:
    case SandboxExit::Reason::Signaled:
        return exit.exitCode;
    }
    return exit.exitCode;
}

std::string failedChecks() {
    const PreflightReport report = runPreflight();
    if (report.ok())
        return "The host passes every preflight check; bwrap's message above says what failed.";
    return "Preflight:\n" + report.describe();
}

} // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return setupFailed(std::string("cannot read the current directory: ") + std::strerror(errno));

    auto commandLine = parseCommandLine(args, cwd);
    if (!commandLine)
        return setupFailed(commandLine.error().message + "\nTry 'warren-sandbox --help'.");
    if (commandLine->help) {
        std::cout << usageText();
        return 0;
    }

    std::vector<nlohmann::json> layers{defaultProfileJson()};
    if (commandLine->profileFile) {
        auto layer = readProfileFile(*commandLine->profileFile);
        if (!layer)
            return setupFailed(layer.error().message);
        layers.push_back(std::move(*layer));
    }
    layers.push_back(commandLine->overrides);
    auto profile = resolveProfile(layers);
    if (!profile)
        return setupFailed(profile.error().message);
    if (commandLine->backend != "bwrap") {
        if (commandLine->explain)
            return explainContainer(*commandLine, std::move(*profile));
        return runContainer(*commandLine, std::move(*profile));
    }

    SetupOptions options;
    options.hostEnv = currentEnvironment();
    options.createCgroup = !commandLine->explain;
    auto sandbox = prepareSandbox(std::move(*profile), commandLine->command, options);
    if (!sandbox)
        return setupFailed(sandbox.error().message);
    if (commandLine->explain) {
        explain(*sandbox);
        return 0;
    }

    // Orphans of the sandbox come back to us, so nothing it started outlives this process unreaped.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    const int signals = blockedSignals();

    auto process = SandboxProcess::start(sandbox->command, sandbox->limits, std::move(sandbox->cgroup));
    if (!process) {
        removePlaceholders(sandbox->profile.workspaceSource, sandbox->protection);
        return setupFailed(process.error().message + "\n" + failedChecks());
    }

    const std::uint64_t timeoutSec = sandbox->profile.limits.timeoutSec;
    const auto [exit, interruptedBy] = waitForExit(*process, timeoutSec, signals);
    removePlaceholders(sandbox->profile.workspaceSource, sandbox->protection);

    if (exit.oomKilled)
        std::cerr << "warren-sandbox: the sandbox reached its memory limit (" << sandbox->profile.limits.memoryMb
                  << " MiB) and the kernel killed a process in it\n";
    if (exit.pidsLimitHit)
        std::cerr << "warren-sandbox: the sandbox reached its process limit (" << sandbox->profile.limits.pids
                  << "); a fork failed\n";
    switch (exit.reason) {
    case SandboxExit::Reason::SetupFailed:
        if (!commandFound(sandbox->profile, commandLine->command.front(),
                          [](const std::string& path) { return access(path.c_str(), X_OK) == 0; })) {
            std::cerr << "warren-sandbox: " << commandLine->command.front() << ": command not found in the sandbox\n";
            return kExitCommandNotFound;
        }
        return setupFailed("the command did not start: bwrap failed while setting up the sandbox or executing "
                           "the command (its message above says which).\n" +
                           failedChecks());
    case SandboxExit::Reason::TimedOut:
        std::cerr << "warren-sandbox: timed out after " << timeoutSec << " s; the whole sandbox was killed\n";
        return kExitTimedOut;
    case SandboxExit::Reason::Killed:
        return 128 + (interruptedBy ? interruptedBy : SIGKILL);
    case SandboxExit::Reason::Exited:
    case SandboxExit::Reason::Signaled:
        return exit.exitCode;
    }
    return exit.exitCode;
}
