// warren-sandbox: run one command in the sandbox a profile describes (DESIGN §4).

#include "sandbox/CommandLine.h"
#include "sandbox/SandboxLaunch.h"
#include "sandbox/bwrap/SandboxSetup.h"
#include "sandbox/policy/SandboxPaths.h"
#include "sandbox/policy/SandboxProfile.h"

#include <cerrno>
#include <chrono>
#include <climits>
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

Result<SandboxProfile> resolveCommandLineProfile(const SandboxCommandLine& line) {
    std::vector<nlohmann::json> layers{defaultProfileJson()};
    if (line.profileFile) {
        auto layer = readProfileFile(*line.profileFile);
        if (!layer)
            return layer.error();
        layers.push_back(std::move(*layer));
    }
    layers.push_back(line.overrides);
    return resolveProfile(layers);
}

int blockedSignals() {
    sigset_t handled;
    sigemptyset(&handled);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
        sigaddset(&handled, sig);
    sigprocmask(SIG_BLOCK, &handled, nullptr);
    return signalfd(-1, &handled, SFD_CLOEXEC);
}

// Waits for the sandbox to end within timeoutSec (0: none). A stop signal on the signalfd kills it; the
// signal's number is returned with the exit.
std::pair<SandboxExit, int> waitForExit(RunningSandbox& sandbox, std::uint64_t timeoutSec, int signals) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSec);
    int interruptedBy = 0;
    while (true) {
        std::optional<std::chrono::milliseconds> left;
        if (timeoutSec)
            left =
                std::max(std::chrono::milliseconds(0), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                           deadline - std::chrono::steady_clock::now()));
        if (auto exit = sandbox.wait(left, signals))
            return {*exit, interruptedBy};
        signalfd_siginfo info{};
        if (read(signals, &info, sizeof info) == sizeof info)
            interruptedBy = static_cast<int>(info.ssi_signo);
        sandbox.kill();
    }
}

// bwrap failed before the command ran: 127 when the command does not exist inside, else the sandbox's own
// failure with what the host lacks. A container engine's 125 is its own failure or the command's.
int setupFailedAfterStart(const RunningSandbox& sandbox, const std::string& program) {
    if (sandbox.backend() == Backend::Kubernetes) // the cluster's reason: a stuck or vanished pod
        return setupFailed(sandbox.setupFailureReport());
    if (sandbox.backend() != Backend::Bwrap)
        return setupFailed(
            backendName(sandbox.backend()) +
            " run exited with status 125: the engine could not create or start the "
            "container (its message above says why), or the command itself exited 125. The engine "
            "command line was:\n" +
            sandbox.commandLine());
    if (!commandFound(sandbox.profile(), program,
                      [](const std::string& path) { return access(path.c_str(), X_OK) == 0; })) {
        std::cerr << "warren-sandbox: " << program << ": command not found in the sandbox\n";
        return kExitCommandNotFound;
    }
    return setupFailed("the command did not start: bwrap failed while setting up the sandbox or executing "
                       "the command (its message above says which).\n" +
                       sandbox.setupFailureReport());
}

int exitCodeOf(const RunningSandbox& sandbox, const SandboxExit& exit, int interruptedBy,
               const std::string& program) {
    const SandboxLimits& limits = sandbox.profile().limits;
    if (exit.oomKilled)
        std::cerr << "warren-sandbox: the sandbox reached its memory limit (" << limits.memoryMb
                  << " MiB) and the kernel killed a process in it\n";
    if (exit.pidsLimitHit)
        std::cerr << "warren-sandbox: the sandbox reached its process limit (" << limits.pids
                  << "); a fork failed\n";
    switch (exit.reason) {
    case SandboxExit::Reason::SetupFailed:
        return setupFailedAfterStart(sandbox, program);
    case SandboxExit::Reason::TimedOut:
        std::cerr << "warren-sandbox: timed out after " << limits.timeoutSec << " s; "
                  << (sandbox.backend() == Backend::Bwrap        ? "the whole sandbox was killed"
                      : sandbox.backend() == Backend::Kubernetes ? "the pod was deleted"
                                                                 : "the container was killed and removed")
                  << "\n";
        return kExitTimedOut;
    case SandboxExit::Reason::Killed:
        return 128 + (interruptedBy ? interruptedBy : SIGKILL);
    case SandboxExit::Reason::Exited:
    case SandboxExit::Reason::Signaled:
        return exit.exitCode;
    }
    return exit.exitCode;
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
    auto profile = resolveCommandLineProfile(*commandLine);
    if (!profile)
        return setupFailed(profile.error().message);

    SandboxRequest request;
    request.backend = commandLine->backend;
    request.profile = std::move(*profile);
    request.command = commandLine->command;
    request.hostEnv = currentEnvironment();
    request.explainOnly = commandLine->explain;
    request.image = commandLine->image.value_or(kDefaultContainerImage);
    request.kubeconfig = commandLine->kubeconfig;
    request.kubeNamespace = commandLine->kubeNamespace.value_or("");
    request.runtimeClass = commandLine->runtimeClass.value_or("");
    auto launch = prepareLaunch(std::move(request));
    if (!launch)
        return setupFailed(launch.error().message);
    if (commandLine->explain) {
        std::cout << (*launch)->explain();
        return 0;
    }

    // Orphans of bwrap's sandbox come back to us, so nothing it started outlives this process unreaped.
    if (commandLine->backend == Backend::Bwrap)
        prctl(PR_SET_CHILD_SUBREAPER, 1);
    const int signals = blockedSignals();
    auto sandbox = (*launch)->start();
    if (!sandbox)
        return setupFailed(sandbox.error().message);

    const auto [exit, interruptedBy] =
        waitForExit(**sandbox, (*sandbox)->profile().limits.timeoutSec, signals);
    return exitCodeOf(**sandbox, exit, interruptedBy, commandLine->command.front());
}
