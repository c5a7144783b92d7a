#pragma once
// What the kernel says about cgroups, parsed: /proc/<pid>/cgroup, /proc/self/mountinfo, cgroup.controllers
// and the flat-keyed event files. Pure functions, tested directly; Cgroup does the file I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

// One line of /proc/<pid>/cgroup: "4:memory:/user.slice" (v1) or "0::/user.slice/x.scope" (v2).
struct ProcCgroupEntry {
    int hierarchyId = 0;
    std::vector<std::string> controllers; // empty for v2; "name=systemd" for named v1 hierarchies
    std::string path;
};
std::vector<ProcCgroupEntry> parseProcCgroup(const std::string& content); // malformed lines skipped

// The fields of one /proc/self/mountinfo line that locate a cgroup hierarchy.
struct MountInfoEntry {
    std::string root;       // the directory of the filesystem mounted there ("/" unless a bind/namespace)
    std::string mountPoint; // octal escapes (\040) decoded
    std::string fsType;     // "cgroup2", "cgroup", ...
    std::vector<std::string> superOptions; // for cgroup v1, includes the controllers ("memory")
};
std::optional<MountInfoEntry> parseMountInfoLine(const std::string& line);

// Where the cgroup ownPath (from /proc/self/cgroup) is in the filesystem, given the mount of its
// hierarchy; nullopt when that mount does not show it (ownPath outside the mount's root).
std::optional<std::string> cgroupDirectory(const MountInfoEntry& mount, const std::string& ownPath);

// The value of "key N" in a flat-keyed cgroup file (memory.events, pids.events, memory.oom_control).
std::optional<std::uint64_t> flatKeyedValue(const std::string& content, const std::string& key);

// The controllers listed in a cgroup.controllers or cgroup.subtree_control file ("cpu memory pids").
std::vector<std::string> parseControllers(const std::string& content);

} // namespace warren::sandbox
