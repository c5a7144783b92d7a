#include "agent_core/process/ChildReaper.h"

#include "common/UniqueFd.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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

// This process's children, found through /proc because the kernel may lack /proc/PID/task/TID/children.
// False when /proc cannot be read at all.
bool listChildren(pid_t self, pid_t exceptPid, std::vector<ChildProcess>& children) {
    children.clear();
    DIR* proc = ::opendir("/proc");
    if (!proc)
        return false;
    while (const dirent* entry = ::readdir(proc)) {
        char* end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || pid == exceptPid)
            continue;
        ChildProcess child;
        pid_t ppid = 0;
        if (readStat(static_cast<pid_t>(pid), child.state, ppid, child.pgid) && ppid == self) {
            child.pid = static_cast<pid_t>(pid);
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
        // The common case, a tool that left nothing behind, needs no walk of /proc: no child at all.
        if (exceptPid < 0) {
            pid_t reaped = 0;
            while ((reaped = ::waitpid(-1, nullptr, WNOHANG)) > 0) {
            }
            if (reaped < 0 && errno == ECHILD)
                return;
        }
        if (!listChildren(self, exceptPid, children)) {
            // Without /proc only the children that already exited can be found.
            if (exceptPid < 0)
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

} // namespace warren::agent
