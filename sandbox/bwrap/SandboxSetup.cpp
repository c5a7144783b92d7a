#include "sandbox/bwrap/SandboxSetup.h"

#include "sandbox/ProcStat.h"
#include "sandbox/policy/PrecompiledSeccomp.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

namespace warren::sandbox {
namespace {

std::atomic<unsigned> g_cgroupCounter{0};

std::string cgroupName() { return "sandbox-" + std::to_string(getpid()) + "-" + std::to_string(g_cgroupCounter++); }

std::string userHome() {
    const passwd* entry = getpwuid(getuid());
    if (!entry || !entry->pw_dir)
        return {};
    char resolved[PATH_MAX];
    return realpath(entry->pw_dir, resolved) ? std::string(resolved) : std::string(entry->pw_dir);
}

// RLIMIT_NPROC counts every task (thread) of the real uid on the host, so the rlimit fallback needs
// today's count: field 20 of /proc/PID/stat, num_threads, summed over the uid's processes.
std::uint64_t countTasksOf(uid_t uid) {
    std::uint64_t count = 0;
    DIR* proc = opendir("/proc");
    if (!proc)
        return 0;
    while (dirent* entry = readdir(proc)) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
            continue;
        const std::string dir = std::string("/proc/") + entry->d_name;
        struct stat st {};
        if (stat(dir.c_str(), &st) != 0 || st.st_uid != uid)
            continue;
        const auto threads = procStatField(static_cast<pid_t>(std::strtol(entry->d_name, nullptr, 10)), 20);
        count += threads ? std::strtoull(threads->c_str(), nullptr, 10) : 1;
    }
    closedir(proc);
    return count;
}

// Plans the limits and makes the cgroup they need. Creating the full cgroup is the cheapest probe there
// is; only when it fails do we ask which controllers exist and let rlimits stand in for the rest.
Result<std::pair<LimitPlan, std::optional<Cgroup>>> enforceLimits(const SandboxLimits& wanted, bool createCgroup) {
    HostLimitFacts facts;
    facts.runningAsRoot = getuid() == 0;
    std::optional<Cgroup> cgroup;
    if (wanted.memoryMb || wanted.pids) {
        if (createCgroup)
            if (auto full = Cgroup::create(cgroupName(), {mebibytesToBytes(wanted.memoryMb), wanted.pids}); full) {
                cgroup.emplace(std::move(*full));
                facts.cgroups.memory = facts.cgroups.pids = true;
            }
        if (!cgroup)
            facts.cgroups = Cgroup::probe();
    }
    if (!facts.cgroups.pids && !facts.runningAsRoot && wanted.pids)
        facts.userTasks = countTasksOf(getuid());
    auto plan = planLimits(wanted, facts);
    if (!plan)
        return plan.error();
    if (createCgroup && !cgroup && (plan->cgroup.memoryBytes || plan->cgroup.maxPids)) {
        auto partial = Cgroup::create(cgroupName(), plan->cgroup); // the one controller there is
        if (!partial)
            return partial.error();
        cgroup.emplace(std::move(*partial));
    }
    return std::pair{std::move(*plan), std::move(cgroup)};
}

} // namespace

Result<std::string> canonicalWorkspace(const std::string& path) {
    char resolved[PATH_MAX];
    if (!realpath(path.c_str(), resolved))
        return makeError(ErrorCode::NotFound, "workspace " + path + " cannot be used: " + std::strerror(errno) +
                                                  ". Pass an existing directory with --workspace DIR.");
    struct stat st {};
    if (stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode))
        return makeError(ErrorCode::InvalidArgument, "workspace " + path + " is not a directory");
    const std::string workspace = resolved;
    // The workspace is the agent's to read and write: a home directory (or anything holding one) would
    // hand it every key, history and rc file the user has.
    const std::string home = userHome();
    if (workspace == "/" || (!home.empty() && (home == workspace || home.rfind(workspace + "/", 0) == 0)))
        return makeError(ErrorCode::InvalidArgument,
                         "refusing to use " + workspace + " as the workspace: it " +
                             (workspace == home ? "is" : "contains") +
                             " your home directory, and the sandbox can read and change everything in its "
                             "workspace. Pass a project directory with --workspace DIR.");
    return workspace;
}

Result<std::vector<std::uint8_t>> seccompFilterFor(const SeccompOptions& options) {
    if (!options.skip.empty())
        return SeccompPolicy::builtIn().compileBpf(options);
    const std::string_view bytes =
        options.networkDenied ? kPrecompiledFilterNetworkDenied : kPrecompiledFilterNetworkAllowed;
    return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
}

std::string findExecutable(const std::string& name, const std::string& pathVariable) {
    if (name.find('/') != std::string::npos)
        return access(name.c_str(), X_OK) == 0 ? name : std::string();
    std::size_t start = 0;
    while (start <= pathVariable.size()) {
        std::size_t end = pathVariable.find(':', start);
        if (end == std::string::npos)
            end = pathVariable.size();
        const std::string dir = pathVariable.substr(start, end - start);
        if (!dir.empty()) {
            const std::string candidate = dir + "/" + name;
            if (access(candidate.c_str(), X_OK) == 0)
                return candidate;
        }
        start = end + 1;
    }
    return {};
}

std::map<std::string, std::string> currentEnvironment() {
    std::map<std::string, std::string> env;
    for (char** entry = environ; entry && *entry; ++entry) {
        const std::string text = *entry;
        const auto eq = text.find('=');
        if (eq != std::string::npos)
            env[text.substr(0, eq)] = text.substr(eq + 1);
    }
    return env;
}

Result<PreparedSandbox> prepareSandbox(SandboxProfile profile, const std::vector<std::string>& command,
                                       const SetupOptions& options) {
    auto workspace = canonicalWorkspace(profile.workspaceSource);
    if (!workspace)
        return workspace.error();
    profile.workspaceSource = *workspace;

    SeccompOptions seccompOptions;
    seccompOptions.networkDenied = profile.network == NetworkPolicy::None;
    seccompOptions.skip.insert(profile.seccompSkip.begin(), profile.seccompSkip.end());
    auto filter = seccompFilterFor(seccompOptions);
    if (!filter)
        return filter.error();

    auto protection = planProtection(profile.workspaceSource, profile.protectedPaths);
    if (!protection)
        return protection.error();

    BwrapRequest request;
    request.bwrapPath = options.bwrapPath;
    if (request.bwrapPath.empty()) {
        const char* path = std::getenv("PATH");
        request.bwrapPath = findExecutable("bwrap", path ? path : "/usr/bin:/bin");
        if (request.bwrapPath.empty())
            return makeError(ErrorCode::NotFound,
                             "bubblewrap (bwrap) is not installed or not on PATH. Install it: "
                             "sudo apt-get install bubblewrap (Debian/Ubuntu), sudo dnf install bubblewrap (Fedora).");
    }
    request.command = command;
    request.seccompFilter = std::move(*filter);
    request.protection = *protection;
    request.hostEnv = options.hostEnv;
    request.commandIsInit = options.commandIsInit;
    auto bwrap = buildBwrapCommand(profile, request);
    if (!bwrap)
        return bwrap.error();

    auto limits = enforceLimits(profile.limits, options.createCgroup);
    if (!limits)
        return limits.error();
    return PreparedSandbox{std::move(profile), std::move(*bwrap), std::move(*protection), std::move(limits->first),
                           std::move(limits->second)};
}

} // namespace warren::sandbox
