#pragma once
// What a process and everything it started use now, read from /proc: resident memory, and CPU time
// including what its descendants spent in children they have already reaped. For a supervisor whose work
// happens in processes it started (a CLI agent and its commands), where its own rusage says nothing.

#include <cstdint>
#include <optional>
#include <string_view>
#include <sys/types.h>

namespace warren::agent {

// One /proc/PID/stat line's fields that count here.
struct ProcStat {
    pid_t pid = 0;
    pid_t ppid = 0;
    std::uint64_t cpuTicks = 0; // utime + stime + cutime + cstime
    std::uint64_t rssPages = 0;
};

// nullopt for a line that is not a stat line (the command name may hold spaces and parentheses: the fields
// are read after its last ')'). Pure.
std::optional<ProcStat> parseProcStat(std::string_view line);

struct TreeUsage {
    std::uint64_t rssBytes = 0;
    std::uint64_t cpuMs = 0;
    std::uint64_t processes = 0; // how many were counted
};

// root and its descendants, as /proc shows them now (a process that ends meanwhile is skipped).
TreeUsage processTreeUsage(pid_t root);

} // namespace warren::agent
