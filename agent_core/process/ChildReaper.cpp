#include "agent_core/process/ChildReaper.h"

#include "common/UniqueFd.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace warren::agent {
namespace {

using Clock = std::chrono::steady_clock;

// A stuck process (uninterruptible sleep in the kernel) must not hang the agent: after this, give up.
constexpr auto kReapBudget = std::chrono::seconds(5);

struct ChildProcess {
    pid_t pid = 0;
    pid_t pgid = 0;
    char state = '?';
};

// "pid (comm) S ppid pgrp ..." -- comm may hold spaces and parentheses, so fields are read after the last
// ')'.
bool readStat(pid_t pid, char& state, pid_t& ppid, pid_t& pgid) {
    const std::string path = "/proc/" + std::to_string(pid) + "/stat";
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return false;
    char buffer[1024];
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer - 1);
    if (n <= 0)
        return false;
    buffer[n] = '\0';
    const std::string_view text(buffer, static_cast<std::size_t>(n));
    const std::size_t close = text.rfind(')');
    if (close == std::string_view::npos || close + 2 >= text.size())
        return false;
    const char* cursor = buffer + close + 2;
    state = *cursor++;
    char* end = nullptr;
    ppid = static_cast<pid_t>(std::strtol(cursor, &end, 10));
    if (end == cursor)
        return false;
    cursor = end;
    pgid = static_cast<pid_t>(std::strtol(cursor, &end, 10));
    return end != cursor;
}

// The process groups spared (spareProcessGroup); a group spared twice is here twice.
struct SparedGroups {
    std::mutex mutex;
    std::vector<pid_t> groups;
};

SparedGroups& sparedGroups() {
    static SparedGroups spared;
    return spared;
}

std::vector<pid_t> sparedNow() {
    auto& spared = sparedGroups();
    std::lock_guard lock(spared.mutex);
    return spared.groups;
}

bool contains(const std::vector<pid_t>& pids, pid_t pid) {
    return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

// This process's children that wanted() picks, found through /proc because the kernel may lack
// /proc/PID/task/TID/children. False when /proc cannot be read at all.
template <typename Wanted> bool listChildren(pid_t self, Wanted wanted, std::vector<ChildProcess>& children) {
    children.clear();
    DIR* proc = ::opendir("/proc");
    if (!proc)
        return false;
    while (const dirent* entry = ::readdir(proc)) {
        char* end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (*end != '\0' || pid <= 0)
            continue;
        ChildProcess child;
        pid_t ppid = 0;
        if (readStat(static_cast<pid_t>(pid), child.state, ppid, child.pgid) && ppid == self) {
            child.pid = static_cast<pid_t>(pid);
            if (wanted(child))
                children.push_back(child);
        }
    }
    ::closedir(proc);
    return true;
}

bool reaped(pid_t pid) {
    int status = 0;
    pid_t result;
    do
        result = ::waitpid(pid, &status, WNOHANG);
    while (result < 0 && errno == EINTR);
    return result == pid || (result < 0 && errno == ECHILD);
}

// Waits for a SIGKILLed child to die and reaps it, until the deadline at most.
void reapBy(pid_t pid, Clock::time_point deadline) {
    if (reaped(pid))
        return;
    UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    while (Clock::now() < deadline) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (pidfd.valid()) {
            pollfd entry{pidfd.get(), POLLIN, 0};
            ::poll(&entry, 1, static_cast<int>(left.count()) + 1);
        } else {
            const timespec pause{0, 1'000'000}; // no pidfd (kernel before 5.3): look again in 1 ms
            ::nanosleep(&pause, nullptr);
        }
        if (reaped(pid))
            return;
    }
}

} // namespace

void killAndReapDescendants(pid_t exceptPid) {
    const pid_t self = ::getpid();
    const pid_t ownGroup = ::getpgrp();
    const auto deadline = Clock::now() + kReapBudget;
    std::vector<ChildProcess> children;
    while (true) {
        const std::vector<pid_t> spared = sparedNow();
        // Any child waitpid(-1) reaps is gone for the one who started it: only when none is kept.
        const bool reapAny = exceptPid < 0 && spared.empty();
        // The common case, a tool that left nothing behind, needs no walk of /proc: no child at all.
        if (reapAny) {
            pid_t reaped = 0;
            while ((reaped = ::waitpid(-1, nullptr, WNOHANG)) > 0) {
            }
            if (reaped < 0 && errno == ECHILD)
                return;
        }
        const auto doomed = [&](const ChildProcess& child) {
            return child.pid != exceptPid && !contains(spared, child.pgid) && !contains(spared, child.pid);
        };
        if (!listChildren(self, doomed, children)) {
            // Without /proc only the children that already exited can be found.
            if (reapAny)
                while (::waitpid(-1, nullptr, WNOHANG) > 0) {
                }
            return;
        }
        if (children.empty())
            return;
        for (const auto& child : children) {
            if (child.state == 'Z')
                continue;
            // The group too: a process forking in a loop has new members there before it dies.
            if (child.pgid == child.pid && child.pgid != ownGroup)
                ::kill(-child.pgid, SIGKILL);
            ::kill(child.pid, SIGKILL);
        }
        // Their own children re-parent here as they die, and are found on the next pass.
        for (const auto& child : children)
            reapBy(child.pid, deadline);
        if (Clock::now() >= deadline)
            return;
    }
}

void spareProcessGroup(pid_t pgid) {
    auto& spared = sparedGroups();
    std::lock_guard lock(spared.mutex);
    spared.groups.push_back(pgid);
}

void stopSparingProcessGroup(pid_t pgid) {
    auto& spared = sparedGroups();
    std::lock_guard lock(spared.mutex);
    if (const auto it = std::find(spared.groups.begin(), spared.groups.end(), pgid);
        it != spared.groups.end())
        spared.groups.erase(it);
}

void killAndReapGroup(pid_t pgid) {
    if (pgid <= 0 || pgid == ::getpgrp())
        return;
    const pid_t self = ::getpid();
    const auto deadline = Clock::now() + kReapBudget;
    std::vector<ChildProcess> members;
    const auto inGroup = [pgid](const ChildProcess& child) {
        return child.pgid == pgid;
    };
    while (true) {
        // Again on every pass: a member forking in a loop has new members before it dies.
        ::kill(-pgid, SIGKILL);
        if (!listChildren(self, inGroup, members)) {
            reapBy(pgid, deadline); // without /proc, the leader at least
            return;
        }
        if (members.empty())
            return;
        for (const auto& member : members)
            reapBy(member.pid, deadline);
        if (Clock::now() >= deadline)
            return;
    }
}

} // namespace warren::agent
