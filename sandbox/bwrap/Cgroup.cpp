#include "sandbox/bwrap/Cgroup.h"

#include "sandbox/ProcStat.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sstream>
#include <sys/stat.h>
#include <system_error>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <utility>

namespace warren::sandbox {

namespace {

// How long killAll() and the destructor wait for killed processes to leave. A SIGKILLed process is
// gone within milliseconds unless it is stuck in an uninterruptible kernel call (a dead NFS server);
// then we give up rather than hang the control plane, and say so.
constexpr auto kEmptyDeadline = std::chrono::seconds(10);

constexpr const char* kFix =
    "To fix: run Warren as root, or under a systemd unit with Delegate=yes whose cgroup "
    "hands the memory and pids controllers to its children; or drop the limit so an "
    "rlimit stands in.";

std::string errnoText(int error) {
    return std::error_code(error, std::generic_category()).message();
}

// The file's content, or nullopt with errno set.
std::optional<std::string> readFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    std::string content;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            errno = error;
            return std::nullopt;
        }
        if (n == 0)
            break;
        content.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return content;
}

// 0, or the errno of the failed open or write. Cgroup files take one value per write(2).
int writeFile(const std::string& path, const std::string& value) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    ssize_t n;
    do {
        n = ::write(fd, value.data(), value.size());
    } while (n < 0 && errno == EINTR);
    const int error = n < 0 ? errno : (static_cast<std::size_t>(n) == value.size() ? 0 : EIO);
    ::close(fd);
    return error;
}

bool fileExists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
    std::string result;
    for (const auto& part : parts) {
        if (!result.empty())
            result += separator;
        result += part;
    }
    return result;
}

bool validName(const std::string& name) {
    if (name.empty() || name.size() > 200 || name.front() == '.')
        return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '_' || c == '-';
    });
}

// This process's directory in each hierarchy Warren uses, or why there is none.
struct Hierarchies {
    std::optional<std::string> v2;
    std::string v2MountPoint;
    std::optional<std::string> v1Memory;
    std::optional<std::string> v1Pids;
    std::string problem; // set when /proc could not be read at all
};

Hierarchies findHierarchies() {
    Hierarchies found;
    const auto mountinfo = readFile("/proc/self/mountinfo");
    const auto self = readFile("/proc/self/cgroup");
    if (!mountinfo || !self) {
        found.problem = "cannot read /proc/self/mountinfo or /proc/self/cgroup: " + errnoText(errno);
        return found;
    }
    const auto memberships = parseProcCgroup(*self);
    auto ownPath = [&](const std::string& controller) -> std::optional<std::string> {
        for (const auto& entry : memberships) {
            const bool matches = controller.empty() ? entry.hierarchyId == 0 && entry.controllers.empty()
                                                    : contains(entry.controllers, controller);
            if (matches)
                return entry.path;
        }
        return std::nullopt;
    };
    std::istringstream lines(*mountinfo);
    std::string line;
    while (std::getline(lines, line)) {
        const auto mount = parseMountInfoLine(line);
        if (!mount)
            continue;
        if (mount->fsType == "cgroup2" && !found.v2) {
            if (const auto path = ownPath({})) {
                found.v2 = cgroupDirectory(*mount, *path);
                found.v2MountPoint = mount->mountPoint;
            }
        } else if (mount->fsType == "cgroup") {
            for (const auto& [controller, slot] :
                 {std::pair{"memory", &found.v1Memory}, {"pids", &found.v1Pids}}) {
                if (*slot || !contains(mount->superOptions, controller))
                    continue;
                if (const auto path = ownPath(controller))
                    *slot = cgroupDirectory(*mount, *path);
            }
        }
    }
    return found;
}

// /proc/<pid>/stat's starttime (field 22): with the pid, it names a process uniquely, pid reuse or not.
std::optional<std::uint64_t> processStartTime(pid_t pid) {
    const auto field = procStatField(pid, 22);
    if (!field)
        return std::nullopt;
    return std::strtoull(field->c_str(), nullptr, 10);
}

// "@<pid>.<starttime>" of this process, appended to every directory it makes: a creator killed before
// its destructor ran (SIGKILL) leaves a directory whose owner can be seen to be gone.
std::string ownerTag() {
    const pid_t pid = ::getpid();
    return "@" + std::to_string(pid) + "." + std::to_string(processStartTime(pid).value_or(0));
}

// False only for a directory tagged with an owner that no longer exists; untagged ones are not ours.
bool ownerAlive(const std::string& dirName) {
    const auto at = dirName.rfind('@');
    const auto dot = at == std::string::npos ? at : dirName.find('.', at);
    if (dot == std::string::npos)
        return true;
    pid_t pid = 0;
    std::uint64_t start = 0;
    const char* end = dirName.data() + dirName.size();
    const auto pidParsed = std::from_chars(dirName.data() + at + 1, dirName.data() + dot, pid);
    const auto startParsed = std::from_chars(dirName.data() + dot + 1, end, start);
    if (pidParsed.ec != std::errc{} || pidParsed.ptr != dirName.data() + dot ||
        startParsed.ec != std::errc{} || startParsed.ptr != end || pid <= 0)
        return true;
    return processStartTime(pid) == start;
}

// Removes the cgroups in dir named prefix* whose creator died without removing them. rmdir refuses a
// cgroup that still holds processes, so a leftover with live processes stays for the user to see.
void removeLeftovers(const std::string& dir, const std::string& prefix) {
    DIR* listing = ::opendir(dir.c_str());
    if (!listing)
        return;
    std::vector<std::string> leftovers;
    while (const dirent* entry = ::readdir(listing)) {
        const std::string name = entry->d_name;
        if (entry->d_type == DT_DIR && name.compare(0, prefix.size(), prefix) == 0 && !ownerAlive(name))
            leftovers.push_back(dir + "/" + name);
    }
    ::closedir(listing);
    for (const auto& leftover : leftovers)
        ::rmdir(leftover.c_str());
}

// Makes dir, replacing an empty one of the same name: 0, or the errno. EBUSY: a cgroup of that name exists
// with processes in it, which is never replaced.
int makeCgroupDirectory(const std::string& dir) {
    if (::mkdir(dir.c_str(), 0755) == 0)
        return 0;
    if (errno != EEXIST)
        return errno;
    // rmdir succeeds only on a cgroup without processes or children: a leftover, never a live one.
    if (::rmdir(dir.c_str()) != 0)
        return errno == ENOTEMPTY ? EBUSY : errno;
    return ::mkdir(dir.c_str(), 0755) == 0 ? 0 : errno;
}

Error cgroupInUse(const std::string& dir) {
    return makeError(ErrorCode::System,
                     dir +
                         " already exists and has processes in it: another sandbox of the "
                         "same name is running, or an earlier one left processes behind (see " +
                         dir + "/cgroup.procs); stop them, then rmdir " + dir);
}

std::optional<std::uint64_t> readKeyedValue(const std::string& path, const std::string& key) {
    const auto content = readFile(path);
    return content ? flatKeyedValue(*content, key) : std::nullopt;
}

// Waits (poll(2) on cgroup.events, no sleeping) until a v2 cgroup holds no process.
bool waitUntilUnpopulated(const std::string& dir) {
    const int fd = ::open((dir + "/cgroup.events").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    const auto deadline = std::chrono::steady_clock::now() + kEmptyDeadline;
    bool empty = false;
    for (;;) {
        char buffer[256];
        const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
        if (n < 0 && errno != EINTR)
            break;
        if (n >= 0) {
            const auto populated =
                flatKeyedValue(std::string(buffer, static_cast<std::size_t>(n)), "populated");
            if (populated && *populated == 0) {
                empty = true;
                break;
            }
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            break;
        // kernfs signals a change of cgroup.events as POLLPRI (with POLLERR); the content is re-read above.
        pollfd pfd{fd, POLLPRI, 0};
        ::poll(&pfd, 1, static_cast<int>(left.count()));
    }
    ::close(fd);
    return empty;
}

// A v2 cgroup "warren-<name>" made in parent, and which of the wanted controllers it got.
struct V2Placement {
    std::string dir;
    int error = 0; // mkdir's errno (EBUSY: a live cgroup of that name)
    bool memory = false, pids = false;
    bool busy = false; // parent holds processes, so it may not hand controllers to children
};

V2Placement placeV2(const std::string& parent, const std::string& name, bool wantMemory, bool wantPids,
                    std::vector<std::string>& memoryProblems, std::vector<std::string>& pidsProblems) {
    V2Placement placement;
    removeLeftovers(parent, "warren-");
    placement.dir = parent + "/warren-" + name + ownerTag();
    if ((placement.error = makeCgroupDirectory(placement.dir))) {
        const std::string problem =
            "cgroup v2 at " + parent + ": cannot create a cgroup there: " + errnoText(placement.error);
        if (wantMemory)
            memoryProblems.push_back(problem);
        if (wantPids)
            pidsProblems.push_back(problem);
        return placement;
    }
    const auto parentControllers = parseControllers(readFile(parent + "/cgroup.controllers").value_or(""));
    auto childHas = [&](const std::string& controller) {
        return contains(parseControllers(readFile(placement.dir + "/cgroup.controllers").value_or("")), controller);
    };
    for (const auto& [controller, wanted, got, problems] :
         {std::tuple{std::string("memory"), wantMemory, &placement.memory, &memoryProblems},
          std::tuple{std::string("pids"), wantPids, &placement.pids, &pidsProblems}}) {
        if (!wanted)
            continue;
        if (!childHas(controller) && !contains(parentControllers, controller)) {
            problems->push_back("cgroup v2 at " + parent + ": the " + controller +
                                " controller is not delegated there (cgroup.controllers: \"" +
                                join(parentControllers, " ") + "\")");
            continue;
        }
        if (!childHas(controller)) {
            if (const int error = writeFile(parent + "/cgroup.subtree_control", "+" + controller)) {
                std::string problem = "cgroup v2 at " + parent + ": cannot enable the " + controller +
                                      " controller for its children: " + errnoText(error);
                if (error == EBUSY) {
                    placement.busy = true;
                    problem += " (it holds processes itself, and cgroup v2 lets only cgroups without "
                               "processes hand controllers to their children)";
                }
                problems->push_back(problem);
                continue;
            }
        }
        *got = childHas(controller);
    }
    return placement;
}

Status writeLimit(const std::string& dir, const std::string& file, std::uint64_t value) {
    const std::string path = dir + "/" + file;
    if (const int error = writeFile(path, std::to_string(value)))
        return makeError(ErrorCode::System,
                         "cannot set " + path + " to " + std::to_string(value) + ": " + errnoText(error));
    return Ok{};
}

std::string mebibytes(std::uint64_t bytes) {
    return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

} // namespace


// Why each hierarchy could not serve, per purpose, for the error message.
struct Cgroup::Attempt {
    std::vector<std::string> memory, pids, kill;
    bool inUse = false; // a live cgroup of that name exists: an error, whatever else works
    std::string inUsePath;
};

void Cgroup::addV2(const std::string& own, const std::string& mountPoint, const std::string& name,
                   const CgroupLimits& limits, Attempt& attempt) {
    const bool wantMemory = limits.memoryBytes > 0, wantPids = limits.maxPids > 0;
    auto covers = [&](const V2Placement& placement) {
        return (!wantMemory || placement.memory) && (!wantPids || placement.pids);
    };
    V2Placement chosen = placeV2(own, name, wantMemory, wantPids, attempt.memory, attempt.pids);
    // Our own cgroup holds processes (a login session's scope, say), so it cannot hand controllers to a
    // child; its parent (a slice, without processes of its own) usually can, so try beside ourselves.
    if (chosen.error == 0 && !covers(chosen) && chosen.busy && own != mountPoint) {
        const V2Placement beside =
            placeV2(own.substr(0, own.rfind('/')), name, wantMemory, wantPids, attempt.memory, attempt.pids);
        if (beside.error == 0 && covers(beside)) {
            ::rmdir(chosen.dir.c_str());
            chosen = beside;
        } else if (beside.error == 0) {
            ::rmdir(beside.dir.c_str());
        } else if (beside.error == EBUSY) {
            chosen.error = EBUSY;
            chosen.dir = beside.dir;
        }
    }
    if (chosen.error) {
        attempt.inUse = chosen.error == EBUSY;
        attempt.inUsePath = chosen.dir;
        attempt.kill.push_back("cgroup v2 at " + own +
                               ": cannot create a cgroup there: " + errnoText(chosen.error));
        return;
    }
    m_v2Path = chosen.dir;
    m_paths.push_back(chosen.dir);
    if (wantMemory && chosen.memory)
        m_memoryPath = chosen.dir;
    if (wantPids && chosen.pids)
        m_pidsPath = chosen.dir;
}

// "warren/<name>" in one v1 hierarchy; empty when it cannot be made (the reason goes into problems). The
// grouping directory can vanish under us when another sandbox's destructor removes it as empty, hence
// the retry.
std::string Cgroup::addV1(const std::string& hierarchy, const std::string& name,
                          const std::string& controller, std::vector<std::string>& problems,
                          Attempt& attempt) {
    const std::string grouping = hierarchy + "/warren";
    const std::string dir = grouping + "/" + name + ownerTag();
    std::string problem;
    for (int attempts = 0; attempts < 3; ++attempts) {
        if (::mkdir(grouping.c_str(), 0755) != 0 && errno != EEXIST) {
            problem = "cgroup v1 " + controller + " at " + hierarchy +
                      ": cannot create a cgroup there: " + errnoText(errno);
            break;
        }
        if (!contains(m_v1GroupingDirs, grouping))
            m_v1GroupingDirs.push_back(grouping);
        removeLeftovers(grouping, "");
        const int error = makeCgroupDirectory(dir);
        if (error == 0) {
            m_paths.push_back(dir);
            return dir;
        }
        if (error == EBUSY) {
            attempt.inUse = true;
            attempt.inUsePath = dir;
        }
        problem = "cgroup v1 " + controller + " at " + hierarchy +
                  ": cannot create a cgroup there: " + errnoText(error);
        if (error != ENOENT)
            break;
    }
    problems.push_back(problem);
    return {};
}

Status Cgroup::applyLimits(const CgroupLimits& limits) {
    if (limits.memoryBytes > 0) {
        if (m_memoryIsV1) {
            if (auto set = writeLimit(m_memoryPath, "memory.limit_in_bytes", limits.memoryBytes); !set)
                return set;
            // memory+swap: without it a process could page out and use swap beyond the limit.
            if (fileExists(m_memoryPath + "/memory.memsw.limit_in_bytes"))
                if (auto set = writeLimit(m_memoryPath, "memory.memsw.limit_in_bytes", limits.memoryBytes);
                    !set)
                    return set;
        } else {
            if (auto set = writeLimit(m_memoryPath, "memory.max", limits.memoryBytes); !set)
                return set;
            if (fileExists(m_memoryPath + "/memory.swap.max"))
                if (auto set = writeLimit(m_memoryPath, "memory.swap.max", 0); !set)
                    return set;
        }
    }
    if (limits.maxPids > 0)
        return writeLimit(m_pidsPath, "pids.max", limits.maxPids);
    return Ok{};
}

Status Cgroup::openProcsFds() {
    auto open = [](const std::string& path, int flags, std::vector<int>& into) -> Status {
        const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
        if (fd < 0)
            return makeError(ErrorCode::System, "cannot open " + path + ": " + errnoText(errno));
        into.push_back(fd);
        return Ok{};
    };
    for (const auto& dir : m_paths) {
        if (auto opened = open(dir + "/cgroup.procs", O_WRONLY, m_procsFds); !opened)
            return opened;
        std::vector<int> single;
        if (auto opened = dir == m_v2Path ? open(dir, O_RDONLY | O_DIRECTORY, single)
                                          : open(dir + "/tasks", O_WRONLY, m_v1TaskFds);
            !opened)
            return opened;
        if (!single.empty())
            m_v2DirectoryFd = single.front();
    }
    return Ok{};
}

Result<Cgroup> Cgroup::create(const std::string& name, const CgroupLimits& limits) {
    Attempt attempt;
    return make(name, limits, attempt);
}

Result<Cgroup> Cgroup::make(const std::string& name, const CgroupLimits& limits, Attempt& attempt) {
    if (!validName(name))
        return makeError(ErrorCode::InvalidArgument,
                         "invalid cgroup name \"" + name + "\": use letters, digits, '.', '_' and '-' only");
    const Hierarchies host = findHierarchies();
    if (!host.problem.empty())
        return makeError(ErrorCode::System, host.problem);

    Cgroup group; // on an early return, its destructor removes what was made so far
    if (host.v2) {
        group.addV2(*host.v2, host.v2MountPoint, name, limits, attempt);
        if (attempt.inUse)
            return cgroupInUse(attempt.inUsePath);
    } else {
        const std::string problem =
            "cgroup v2: no unified hierarchy mounted that shows this process's cgroup";
        for (auto* list : {&attempt.memory, &attempt.pids, &attempt.kill})
            list->push_back(problem);
    }
    if (limits.memoryBytes > 0 && group.m_memoryPath.empty()) {
        if (host.v1Memory)
            group.m_memoryPath = group.addV1(*host.v1Memory, name, "memory", attempt.memory, attempt);
        else
            attempt.memory.push_back("cgroup v1: no memory hierarchy mounted");
        group.m_memoryIsV1 = !group.m_memoryPath.empty();
    }
    if (limits.maxPids > 0 && group.m_pidsPath.empty()) {
        if (host.v1Pids)
            group.m_pidsPath = group.addV1(*host.v1Pids, name, "pids", attempt.pids, attempt);
        else
            attempt.pids.push_back("cgroup v1: no pids hierarchy mounted");
    }
    // Nothing to enforce and no v2 cgroup: any v1 cgroup still lets killAll() find the whole tree.
    if (limits.memoryBytes == 0 && limits.maxPids == 0 && group.m_paths.empty()) {
        if (host.v1Pids)
            group.addV1(*host.v1Pids, name, "pids", attempt.kill, attempt);
        if (host.v1Memory && group.m_paths.empty())
            group.addV1(*host.v1Memory, name, "memory", attempt.kill, attempt);
    }
    if (attempt.inUse)
        return cgroupInUse(attempt.inUsePath);

    if (limits.memoryBytes > 0 && group.m_memoryPath.empty())
        return makeError(ErrorCode::Unsupported,
                         "cannot enforce the memory limit (" + mebibytes(limits.memoryBytes) +
                             ") with a cgroup: " + join(attempt.memory, "; ") + ". " + kFix);
    if (limits.maxPids > 0 && group.m_pidsPath.empty())
        return makeError(ErrorCode::Unsupported,
                         "cannot enforce the process limit (" + std::to_string(limits.maxPids) +
                             ") with a cgroup: " + join(attempt.pids, "; ") + ". " + kFix);
    if (auto applied = group.applyLimits(limits); !applied)
        return applied.error();
    if (auto opened = group.openProcsFds(); !opened)
        return opened.error();
    return group;
}

CgroupSupport Cgroup::probe() {
    static std::atomic<unsigned> counter{0};
    auto probeName = [] {
        return "probe-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    };
    // ".../warren-<name>@<owner>" (v2) or ".../warren/<name>@<owner>" (v1): where the cgroup was made.
    auto hierarchyOf = [](const std::string& dir) {
        return dir.substr(0, dir.rfind("/warren"));
    };

    CgroupSupport support;
    std::vector<std::string> found, unavailable, problems;
    auto noteProblems = [&problems](const std::vector<std::string>& more) {
        for (const auto& problem : more)
            if (!contains(problems, problem))
                problems.push_back(problem);
    };
    bool limitsByV1 = false, limitsByV2 = false;

    for (const bool memory : {true, false}) {
        const std::string name = probeName();
        Attempt attempt;
        const auto trial = make(name, memory ? CgroupLimits{64ull << 20, 0} : CgroupLimits{0, 64}, attempt);
        (memory ? support.memory : support.pids) = trial.ok();
        const std::string what = memory ? "memory limit" : "pids limit";
        if (!trial) {
            unavailable.push_back(what);
            noteProblems(memory ? attempt.memory : attempt.pids);
            continue;
        }
        const std::string& dir = memory ? trial->m_memoryPath : trial->m_pidsPath;
        const bool v1 = dir != trial->m_v2Path;
        (v1 ? limitsByV1 : limitsByV2) = true;
        found.push_back(what + " by cgroup " + (v1 ? "v1" : "v2") + " under " + hierarchyOf(dir));
    }

    const std::string name = probeName();
    Attempt attempt;
    const auto trial = make(name, {}, attempt);
    if (trial && !trial->paths().empty()) {
        support.kill = true;
        const bool byV2 = !trial->m_v2Path.empty();
        const std::string& dir = byV2 ? trial->m_v2Path : trial->paths().front();
        const bool atomic = byV2 && fileExists(dir + "/cgroup.kill");
        found.push_back(std::string("whole-tree kill by ") +
                        (atomic ? "cgroup.kill" : "signalling cgroup.procs") + " under " + hierarchyOf(dir));
        if (!limitsByV1 && !limitsByV2)
            (byV2 ? limitsByV2 : limitsByV1) = true;
    } else {
        unavailable.push_back("whole-tree kill");
        noteProblems(attempt.kill);
    }

    support.version = limitsByV1 ? CgroupVersion::V1 : limitsByV2 ? CgroupVersion::V2 : CgroupVersion::None;
    support.detail = join(found, "; ");
    if (!unavailable.empty()) {
        support.detail += std::string(support.detail.empty() ? "" : "; ") + "no cgroup for the " +
                          join(unavailable, ", ") + " (" + join(problems, "; ") + ")";
    }
    return support;
}

Cgroup::Cgroup(Cgroup&& other) noexcept
    : m_v2Path(std::move(other.m_v2Path)), m_memoryPath(std::move(other.m_memoryPath)),
      m_pidsPath(std::move(other.m_pidsPath)), m_memoryIsV1(other.m_memoryIsV1),
      m_paths(std::exchange(other.m_paths, {})), m_v1GroupingDirs(std::exchange(other.m_v1GroupingDirs, {})),
      m_procsFds(std::exchange(other.m_procsFds, {})), m_v1TaskFds(std::exchange(other.m_v1TaskFds, {})),
      m_v2DirectoryFd(std::exchange(other.m_v2DirectoryFd, -1)) {
    other.m_v2Path.clear();
    other.m_memoryPath.clear();
    other.m_pidsPath.clear();
}

Cgroup& Cgroup::operator=(Cgroup&& other) noexcept {
    if (this != &other) {
        release();
        m_v2Path = std::exchange(other.m_v2Path, {});
        m_memoryPath = std::exchange(other.m_memoryPath, {});
        m_pidsPath = std::exchange(other.m_pidsPath, {});
        m_memoryIsV1 = other.m_memoryIsV1;
        m_paths = std::exchange(other.m_paths, {});
        m_v1GroupingDirs = std::exchange(other.m_v1GroupingDirs, {});
        m_procsFds = std::exchange(other.m_procsFds, {});
        m_v1TaskFds = std::exchange(other.m_v1TaskFds, {});
        m_v2DirectoryFd = std::exchange(other.m_v2DirectoryFd, -1);
    }
    return *this;
}

Cgroup::~Cgroup() {
    release();
}

void Cgroup::release() {
    for (const int fd : m_procsFds)
        ::close(fd);
    for (const int fd : m_v1TaskFds)
        ::close(fd);
    if (m_v2DirectoryFd >= 0)
        ::close(m_v2DirectoryFd);
    m_procsFds.clear();
    m_v1TaskFds.clear();
    m_v2DirectoryFd = -1;
    if (!m_paths.empty())
        killAll();
    // Children before parents; a v1 grouping directory goes only when no other sandbox is left in it.
    for (auto it = m_paths.rbegin(); it != m_paths.rend(); ++it) {
        for (int attempt = 0; attempt < 3; ++attempt) {
            if (::rmdir(it->c_str()) == 0 || errno == ENOENT)
                break;
            if (errno != EBUSY || !killMembers(*it))
                break; // a process stuck in the kernel: leave the directory rather than hang
        }
    }
    for (const auto& grouping : m_v1GroupingDirs)
        ::rmdir(grouping.c_str()); // EBUSY while another sandbox's cgroup is in it
    m_paths.clear();
    m_v1GroupingDirs.clear();
    m_v2Path.clear();
    m_memoryPath.clear();
    m_pidsPath.clear();
}

bool Cgroup::joinFromChild(const std::vector<int>& fds) {
    for (const int fd : fds) {
        ssize_t n;
        do {
            n = ::write(fd, "0", 1); // "0": the writer itself (the thread, for tasks)
        } while (n < 0 && errno == EINTR);
        if (n != 1)
            return false;
    }
    return true;
}

bool Cgroup::killAll() {
    bool empty = true;
    if (!m_v2Path.empty()) {
        // cgroup.kill signals every process in the subtree at once, so a fork bomb cannot outrun it.
        if (fileExists(m_v2Path + "/cgroup.kill") && writeFile(m_v2Path + "/cgroup.kill", "1") == 0)
            empty = waitUntilUnpopulated(m_v2Path);
        else
            empty = killMembers(m_v2Path);
    }
    for (const auto& dir : m_paths)
        if (dir != m_v2Path)
            empty = killMembers(dir) && empty;
    return empty;
}

bool Cgroup::killMembers(const std::string& dir) {
    const auto deadline = std::chrono::steady_clock::now() + kEmptyDeadline;
    auto pause = std::chrono::microseconds(200);
    for (;;) {
        const auto procs = readFile(dir + "/cgroup.procs");
        if (!procs)
            return errno == ENOENT; // no cgroup, nothing in it
        bool any = false;
        std::istringstream pids(*procs);
        pid_t pid = 0;
        while (pids >> pid) {
            any = true;
            // The pid was in our cgroup a moment ago; one that exited and was reused since is the small
            // risk of this fallback, which cgroup.kill does not have.
            ::kill(pid, SIGKILL);
        }
        if (!any)
            return true;
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
        // cgroup v1 has no event for "empty": look again after a short, growing pause, while the
        // killed processes finish exiting and any that forked meanwhile are picked up next round.
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(50'000));
    }
}

bool Cgroup::oomKilled() const {
    if (m_memoryPath.empty())
        return false;
    if (!m_memoryIsV1) {
        const auto kills = readKeyedValue(m_memoryPath + "/memory.events", "oom_kill");
        return kills && *kills > 0;
    }
    if (const auto kills = readKeyedValue(m_memoryPath + "/memory.oom_control", "oom_kill"))
        return *kills > 0;
    // Kernels before 4.13 do not count OOM kills; that the limit was hit is the best evidence left.
    const auto failures = readFile(m_memoryPath + "/memory.failcnt");
    return failures && std::strtoull(failures->c_str(), nullptr, 10) > 0;
}

bool Cgroup::pidsLimitHit() const {
    if (m_pidsPath.empty())
        return false;
    const auto hits = readKeyedValue(m_pidsPath + "/pids.events", "max");
    return hits && *hits > 0;
}

} // namespace warren::sandbox
