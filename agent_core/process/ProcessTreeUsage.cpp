#include "agent_core/process/ProcessTreeUsage.h"

#include "common/FileText.h"

#include <algorithm>
#include <charconv>
#include <dirent.h>
#include <map>
#include <unistd.h>
#include <vector>

namespace warren::agent {

namespace {

// The next space-separated field of text from at, as an unsigned number (a negative one, as a parent's
// pid can be shown, reads as nullopt).
std::optional<std::uint64_t> nextNumber(std::string_view text, std::size_t& at) {
    while (at < text.size() && text[at] == ' ')
        ++at;
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data() + at, text.data() + text.size(), value);
    if (error != std::errc())
        return std::nullopt;
    at = static_cast<std::size_t>(end - text.data());
    return value;
}

bool skipField(std::string_view text, std::size_t& at) {
    while (at < text.size() && text[at] == ' ')
        ++at;
    const std::size_t start = at;
    while (at < text.size() && text[at] != ' ')
        ++at;
    return at > start;
}

} // namespace

std::optional<ProcStat> parseProcStat(std::string_view line) {
    const std::size_t open = line.find(" (");
    const std::size_t close = line.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        return std::nullopt;
    ProcStat stat;
    std::size_t at = 0;
    const auto pid = nextNumber(line.substr(0, open), at);
    if (!pid)
        return std::nullopt;
    stat.pid = static_cast<pid_t>(*pid);
    // After the name: state (3), ppid (4), ..., utime (14), stime (15), cutime (16), cstime (17), ...,
    // rss (24).
    const std::string_view rest = line.substr(close + 1);
    at = 0;
    if (!skipField(rest, at)) // state
        return std::nullopt;
    const auto ppid = nextNumber(rest, at);
    if (!ppid)
        return std::nullopt;
    stat.ppid = static_cast<pid_t>(*ppid);
    for (int field = 5; field <= 24; ++field) {
        if (field >= 14 && field <= 17) {
            const auto ticks = nextNumber(rest, at);
            if (!ticks)
                return std::nullopt;
            stat.cpuTicks += *ticks;
        } else if (field == 24) {
            const auto rss = nextNumber(rest, at);
            if (!rss)
                return std::nullopt;
            stat.rssPages = *rss;
        } else if (!skipField(rest, at)) {
            return std::nullopt;
        }
    }
    return stat;
}

TreeUsage processTreeUsage(pid_t root) {
    std::map<pid_t, ProcStat> stats;
    std::multimap<pid_t, pid_t> children;
    if (DIR* proc = ::opendir("/proc")) {
        while (const dirent* entry = ::readdir(proc)) {
            if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
                continue;
            const auto text = readFileText(std::string("/proc/") + entry->d_name + "/stat");
            if (!text)
                continue; // it ended meanwhile
            if (const auto stat = parseProcStat(*text)) {
                stats[stat->pid] = *stat;
                children.emplace(stat->ppid, stat->pid);
            }
        }
        ::closedir(proc);
    }
    const auto ticksPerSecond = static_cast<std::uint64_t>(std::max(1L, ::sysconf(_SC_CLK_TCK)));
    const auto pageBytes = static_cast<std::uint64_t>(std::max(1L, ::sysconf(_SC_PAGESIZE)));
    TreeUsage usage;
    std::vector<pid_t> pending{root};
    while (!pending.empty()) {
        const pid_t pid = pending.back();
        pending.pop_back();
        const auto found = stats.find(pid);
        if (found == stats.end())
            continue;
        usage.rssBytes += found->second.rssPages * pageBytes;
        usage.cpuMs += found->second.cpuTicks * 1000 / ticksPerSecond;
        ++usage.processes;
        stats.erase(found); // a pid is counted once, whatever its parent claims
        const auto [first, last] = children.equal_range(pid);
        for (auto child = first; child != last; ++child)
            pending.push_back(child->second);
    }
    return usage;
}

} // namespace warren::agent
