// KubeletDouble: a double of a kubelet (see the header): each created pod's command as a host process.
#include "tests/support/KubeletDouble.h"

#include "common/Result.h"
#include "tests/support/KubeApiDouble.h"
#include "tests/support/PodCommand.h"
#include "tests/support/SecretVolume.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace warren::test {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

std::string text(const json& object, const char* key) {
    return object.is_object() && object.contains(key) && object[key].is_string()
               ? object[key].get<std::string>()
               : std::string();
}

} // namespace

// One pod, from the observer's ADDED to its directories' removal.
struct PodRun {
    std::string ns, name, uid;
    json pod;
    std::string dir; // the pod's scratch directory: volumes/ and log
    int wakeFd = -1; // an eventfd, written when the pod is deleted or the double shuts down: it wakes the
                     // poll that watches the process
    std::thread thread;

    // Guarded by the core's mutex.
    bool deleted = false;
    bool shutdown = false;
    bool started = false, ended = false, removed = false;
    bool alive = false;
    pid_t pid = 0; // while alive: its process group
    std::optional<int> exitCode;
    std::string failure;
    std::map<std::string, std::string> volumeDirs;
};

class KubeletDoubleCore {
public:
    KubeApiDouble& api;
    KubeletDouble::Options options;

    mutable std::mutex mutex;
    mutable std::condition_variable changed;
    std::vector<std::shared_ptr<PodRun>> pods; // in the order they were created
    int podsRun = 0;

    KubeletDoubleCore(KubeApiDouble& apiDouble, KubeletDouble::Options given)
        : api(apiDouble), options(std::move(given)) {}

    // On the API double's server thread: hand the pod to a thread of its own, or tell that thread it is gone.
    void observe(const std::string& type, const json& pod) {
        const json& metadata = pod["metadata"];
        if (type == "ADDED") {
            auto run = std::make_shared<PodRun>();
            run->ns = text(metadata, "namespace");
            run->name = text(metadata, "name");
            run->uid = text(metadata, "uid");
            run->pod = pod;
            run->dir = options.scratch + "/" + run->ns + "." + run->name + "." + run->uid;
            run->wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
            std::lock_guard lock(mutex);
            pods.push_back(run);
            run->thread = std::thread([this, run] { runPod(*run); });
        } else if (type == "DELETED") {
            std::lock_guard lock(mutex);
            for (const auto& run : pods) {
                if (run->uid == text(metadata, "uid")) {
                    run->deleted = true;
                    wake(*run);
                }
            }
            changed.notify_all();
        }
    }

    static void wake(const PodRun& run) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto written = ::write(run.wakeFd, &one, sizeof one);
    }

    bool stopping(const PodRun& run) const {
        std::lock_guard lock(mutex);
        return run.deleted || run.shutdown;
    }

    template <typename F> void update(PodRun& run, F&& change) {
        {
            std::lock_guard lock(mutex);
            change(run);
        }
        changed.notify_all();
    }

    std::shared_ptr<PodRun> newest(const std::string& ns, const std::string& name) const {
        for (auto it = pods.rbegin(); it != pods.rend(); ++it)
            if ((*it)->ns == ns && (*it)->name == name)
                return *it;
        return nullptr;
    }

    Result<std::map<std::string, std::string>> mountVolumes(const PodRun& run);
    Result<pid_t> spawn(const PodRun& run, const PodCommand& command) const;
    void runPod(PodRun& run);
    void runContainer(PodRun& run);
    int superviseProcess(PodRun& run, pid_t pid, bool* deadlineExceeded);
    void awaitDeletion(const PodRun& run);
    std::optional<std::string> logOf(const std::string& ns, const std::string& name) const;
};

// What the container wrote so far, once its process was started (its log file is then complete up to now);
// nullopt before, and for a pod whose process never started, as a kubelet has no log of a container that
// did not run.
std::optional<std::string> KubeletDoubleCore::logOf(const std::string& ns, const std::string& name) const {
    std::string path;
    {
        std::lock_guard lock(mutex);
        const auto run = newest(ns, name);
        if (!run || !(run->alive || run->exitCode))
            return std::nullopt;
        path = run->dir + "/log";
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

namespace {

Status writeSecretFiles(const std::string& dir, const std::vector<SecretFile>& files) {
    std::error_code error;
    for (const auto& file : files) {
        const fs::path path = fs::path(dir) / file.path;
        fs::create_directories(path.parent_path(), error);
        std::ofstream out(path, std::ios::binary);
        out << file.content;
        out.close();
        fs::permissions(path, static_cast<fs::perms>(file.mode & 07777), error);
        if (!out || error)
            return makeError(ErrorCode::System, "cannot write " + path.string());
    }
    return Ok{};
}

// "MountVolume.SetUp failed for volume ...": the message a kubelet gives a mount it cannot make.
Error mountFailure(const std::string& volume, const std::string& why) {
    return makeError(ErrorCode::NotFound, "MountVolume.SetUp failed for volume \"" + volume + "\" : " + why);
}

} // namespace

Result<std::map<std::string, std::string>> KubeletDoubleCore::mountVolumes(const PodRun& run) {
    std::map<std::string, std::string> dirs;
    const json& spec = run.pod["spec"];
    if (!spec.contains("volumes"))
        return dirs;
    for (const auto& volume : spec["volumes"]) {
        const std::string name = text(volume, "name");
        const std::string dir = run.dir + "/volumes/" + name;
        std::error_code error;
        if (volume.contains("emptyDir")) {
            fs::create_directories(dir, error); // medium Memory and sizeLimit: a plain directory
        } else if (volume.contains("secret")) {
            const std::string secretName = text(volume["secret"], "secretName");
            const auto secret = api.object("secrets", run.ns, secretName);
            if (!secret)
                return mountFailure(name, "secret \"" + secretName + "\" not found");
            auto files = secretVolumeFiles(volume["secret"], *secret);
            if (!files)
                return mountFailure(name, files.error().message);
            fs::create_directories(dir, error);
            if (auto written = writeSecretFiles(dir, *files); !written)
                return mountFailure(name, written.error().message);
        } else if (volume.contains("hostPath")) {
            const std::string path = text(volume["hostPath"], "path");
            const std::string kind = text(volume["hostPath"], "type");
            if (kind == "DirectoryOrCreate")
                fs::create_directories(path, error);
            if ((kind == "Directory" || kind == "DirectoryOrCreate") && !fs::is_directory(path))
                return mountFailure(name, "hostPath type check failed: " + path + " is not a directory");
            if (kind == "File" && !fs::is_regular_file(path))
                return mountFailure(name, "hostPath type check failed: " + path + " is not a file");
            dirs[name] = path;
            continue;
        } else {
            return mountFailure(name, "the kubelet double mounts only emptyDir, secret and hostPath volumes");
        }
        if (error)
            return mountFailure(name, "cannot make " + dir + ": " + error.message());
        dirs[name] = dir;
    }
    return dirs;
}

Result<pid_t> KubeletDoubleCore::spawn(const PodRun& run, const PodCommand& command) const {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    const std::string log = run.dir + "/log";
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawn_file_actions_addchdir_np(&actions,
                                         command.workingDir.empty() ? "/" : command.workingDir.c_str());
    // Its own process group, to be killed whole; the signals this test process ignores or blocks are not
    // the process's business.
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int signal : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGQUIT})
        sigaddset(&defaults, signal);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes,
                             POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> argv, envp;
    for (const auto& arg : command.argv)
        argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    for (const auto& variable : command.environment)
        envp.push_back(const_cast<char*>(variable.c_str()));
    envp.push_back(nullptr);
    pid_t pid = 0;
    const int failed =
        posix_spawn(&pid, command.executable.c_str(), &actions, &attributes, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (failed)
        return makeError(ErrorCode::NotFound, "exec " + command.executable + ": " + std::strerror(failed));
    return pid;
}

// Waits for the process to end, killing its group when the pod is deleted, the double shuts down or the
// pod's activeDeadlineSeconds passes: SIGTERM, then SIGKILL after the grace. Returns its wait status.
int KubeletDoubleCore::superviseProcess(PodRun& run, pid_t pid, bool* deadlineExceeded) {
    const json& spec = run.pod["spec"];
    std::optional<Clock::time_point> deadline;
    if (spec.contains("activeDeadlineSeconds") && spec["activeDeadlineSeconds"].is_number_integer())
        deadline = Clock::now() + std::chrono::seconds(spec["activeDeadlineSeconds"].get<int>());
    const auto grace = std::min<std::chrono::seconds>(
        std::chrono::seconds(spec.value("terminationGracePeriodSeconds", 30)), options.maxGrace);

    // pidfd_open needs Linux 5.3; without it the process is killed at once rather than left unwatched.
    const int pidFd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    enum class Ending { No, Terminated, Killed } ending = Ending::No;
    Clock::time_point killAt;
    while (pidFd >= 0) {
        std::optional<Clock::time_point> next;
        if (ending == Ending::Terminated)
            next = killAt;
        else if (ending == Ending::No)
            next = deadline;
        const int timeout =
            next ? static_cast<int>(std::max<std::int64_t>(
                       0, std::chrono::ceil<std::chrono::milliseconds>(*next - Clock::now()).count()))
                 : -1;
        pollfd fds[] = {{pidFd, POLLIN, 0}, {run.wakeFd, POLLIN, 0}};
        if (::poll(fds, 2, timeout) < 0 && errno != EINTR)
            break;
        if (fds[0].revents)
            break; // it has exited; reaped below
        if (fds[1].revents) {
            std::uint64_t count = 0;
            [[maybe_unused]] const auto read = ::read(run.wakeFd, &count, sizeof count);
        }
        const bool deadlinePassed = deadline && Clock::now() >= *deadline;
        if (ending == Ending::No && (stopping(run) || deadlinePassed)) {
            *deadlineExceeded = !stopping(run);
            ::kill(-pid, SIGTERM);
            killAt = Clock::now() + grace;
            ending = Ending::Terminated;
        } else if (ending == Ending::Terminated && Clock::now() >= killAt) {
            ::kill(-pid, SIGKILL);
            ending = Ending::Killed;
        }
    }
    // Whatever else of the group remains goes with it, as a container's processes go when it ends. The
    // process is not reaped yet, so its pid (the group's id) cannot have been reused.
    ::kill(-pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (pidFd >= 0)
        ::close(pidFd);
    return status;
}

void KubeletDoubleCore::awaitDeletion(const PodRun& run) {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return run.deleted || run.shutdown; });
}

// The pod's life on its own thread: run it, then keep its directories until it is deleted (or the double
// shuts down), as a kubelet keeps an ended pod's volumes. No lock is held while the API double is called.
void KubeletDoubleCore::runPod(PodRun& run) {
    std::error_code ignored;
    fs::create_directories(run.dir, ignored);
    runContainer(run);
    update(run, [](PodRun& r) { r.ended = true; });
    awaitDeletion(run);
    fs::remove_all(run.dir + "/volumes", ignored); // hostPaths are elsewhere and stay
    update(run, [](PodRun& r) { r.removed = true; });
}

void KubeletDoubleCore::runContainer(PodRun& run) {
    const auto failBeforeStart = [&](const std::string& why) {
        update(run, [&](PodRun& r) { r.failure = why; });
    };
    if (run.wakeFd < 0) {
        failBeforeStart(std::string("eventfd: ") + std::strerror(errno));
        return;
    }
    auto dirs = mountVolumes(run);
    if (!dirs) {
        api.podPending(run.ns, run.name, "ContainerCreating", dirs.error().message, run.uid);
        failBeforeStart(dirs.error().message);
        return;
    }
    update(run, [&](PodRun& r) { r.volumeDirs = *dirs; });
    const char* hostPath = std::getenv("PATH");
    auto mounts = hostMounts(run.pod["spec"]["containers"][0], *dirs);
    auto command = mounts
                       ? podCommand(run.pod, *mounts, options.commands, hostPath ? hostPath : "/usr/bin:/bin")
                       : Result<PodCommand>(mounts.error());
    if (stopping(run))
        return; // deleted before it started: nothing to run or report
    auto pid = command ? spawn(run, *command) : Result<pid_t>(command.error());
    if (!pid) {
        api.podEnded(run.ns, run.name, false, 128, "StartError", run.uid);
        failBeforeStart(pid.error().message);
        return;
    }
    // Alive before Running is reported, so a test that saw the pod Running sees the process alive; Started
    // after it, so a test that waited for Started finds the pod Running in the API double.
    update(run, [&](PodRun& r) {
        r.alive = true;
        r.pid = *pid;
        ++podsRun;
    });
    api.podRunning(run.ns, run.name, true, run.uid);
    update(run, [](PodRun& r) { r.started = true; });
    bool deadlineExceeded = false;
    const int status = superviseProcess(run, *pid, &deadlineExceeded);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (deadlineExceeded)
        api.podEnded(run.ns, run.name, false, code, "DeadlineExceeded", run.uid);
    else if (!stopping(run))
        api.podEnded(run.ns, run.name, code == 0, code, code == 0 ? "Completed" : "Error", run.uid);
    update(run, [&](PodRun& r) {
        r.alive = false;
        r.pid = 0;
        r.exitCode = code;
    });
}

KubeletDouble::KubeletDouble(KubeApiDouble& api, Options options)
    : m_core(std::make_unique<KubeletDoubleCore>(api, std::move(options))) {
    KubeletDoubleCore* core = m_core.get();
    api.setPodObserver([core](const std::string& type, const json& pod) { core->observe(type, pod); });
    api.setPodLogSource([core](const std::string& ns, const std::string& name) { return core->logOf(ns, name); });
}

KubeletDouble::~KubeletDouble() {
    m_core->api.setPodObserver({}); // returns once no observer call runs: no pod is added after this
    m_core->api.setPodLogSource({});
    std::vector<std::shared_ptr<PodRun>> pods;
    {
        std::lock_guard lock(m_core->mutex);
        pods = m_core->pods;
        for (const auto& run : pods) {
            run->shutdown = true;
            KubeletDoubleCore::wake(*run);
        }
    }
    m_core->changed.notify_all();
    for (const auto& run : pods) {
        run->thread.join();
        ::close(run->wakeFd);
    }
}

bool KubeletDouble::waitFor(const std::string& ns, const std::string& name, Stage stage,
                            std::chrono::milliseconds deadline) const {
    std::unique_lock lock(m_core->mutex);
    return m_core->changed.wait_for(lock, deadline, [&] {
        const auto run = m_core->newest(ns, name);
        if (!run)
            return false;
        switch (stage) {
        case Stage::Started:
            return run->started || run->ended;
        case Stage::Ended:
            return run->ended;
        case Stage::Removed:
            return run->removed;
        }
        return false;
    });
}

int KubeletDouble::podsRun() const {
    std::lock_guard lock(m_core->mutex);
    return m_core->podsRun;
}

bool KubeletDouble::processAlive(const std::string& ns, const std::string& name) const {
    std::lock_guard lock(m_core->mutex);
    const auto run = m_core->newest(ns, name);
    return run && run->alive;
}

bool KubeletDouble::killProcess(const std::string& ns, const std::string& name) {
    std::lock_guard lock(m_core->mutex);
    const auto run = m_core->newest(ns, name);
    // A test kills a pod it saw running, whose process it has not seen end.
    return run && run->alive && run->pid > 0 && ::kill(-run->pid, SIGKILL) == 0;
}

std::optional<int> KubeletDouble::exitCode(const std::string& ns, const std::string& name) const {
    std::lock_guard lock(m_core->mutex);
    const auto run = m_core->newest(ns, name);
    return run ? run->exitCode : std::nullopt;
}

std::string KubeletDouble::failure(const std::string& ns, const std::string& name) const {
    std::lock_guard lock(m_core->mutex);
    const auto run = m_core->newest(ns, name);
    return run ? run->failure : std::string();
}

std::string KubeletDouble::log(const std::string& ns, const std::string& name) const {
    return m_core->logOf(ns, name).value_or(std::string());
}

std::string KubeletDouble::volumeDir(const std::string& ns, const std::string& name,
                                     const std::string& volume) const {
    std::lock_guard lock(m_core->mutex);
    const auto run = m_core->newest(ns, name);
    if (!run)
        return {};
    const auto dir = run->volumeDirs.find(volume);
    return dir == run->volumeDirs.end() ? std::string() : dir->second;
}

} // namespace warren::test
