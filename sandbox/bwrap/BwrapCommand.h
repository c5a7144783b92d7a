#pragma once
// The one translator from a resolved SandboxProfile to bubblewrap: the argv and the data each --*-fd
// option reads. Pure apart from the HostLookup it is given, so tests inspect the exact command line for a
// profile without launching anything.

#include "common/Result.h"
#include "sandbox/policy/ProtectedPaths.h"
#include "sandbox/policy/SandboxProfile.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace warren::sandbox {

struct HostEntry {
    enum class Kind { Missing, Directory, File, Symlink };
    Kind kind = Kind::Missing;
    std::string linkTarget; // for Symlink
};
using HostLookup = std::function<HostEntry(const std::string& path)>;
HostEntry lookupHostPath(const std::string& path); // lstat + readlink

// Bytes the launcher must provide on descriptor `fd` of the bwrap process (a sealed memfd).
struct DataFd {
    int fd = -1;
    std::string bytes;
    std::string purpose; // for --explain: "seccomp filter", "/etc/passwd", ...
};

struct BwrapRequest {
    std::string bwrapPath = "bwrap";
    std::vector<std::string> command;          // what runs inside
    std::vector<std::uint8_t> seccompFilter;   // compiled BPF (SeccompPolicy::compileBpf)
    ProtectionPlan protection;                 // planProtection() for the profile's workspace
    std::map<std::string, std::string> hostEnv; // source of env_passthrough values
    bool commandIsInit = false;                 // --as-pid-1 (SandboxRequest::commandIsInit)
};

struct BwrapCommand {
    static constexpr int kStatusFd = 3; // bwrap --json-status-fd: tells a setup failure from the command's
    std::vector<std::string> argv;      // argv[0] is the bwrap path; what bwrap is told, for --explain
    std::vector<DataFd> dataFds;        // numbered from kStatusFd + 1; the last holds bwrap's options
    bool commandIsInit = false;         // the command is the sandbox's pid 1 (--as-pid-1)
    std::size_t commandWords = 0;       // the command: the last words of argv, after "--"

    // What is exec'd: bwrap's options (every host path among them) come on a descriptor (--args), so that
    // the command line of no process, which /proc/N/cmdline shows to anyone, names a host path.
    std::vector<std::string> execArgv() const;
    std::string commandLine() const;    // argv shell-quoted, for --explain and error messages
};

Result<BwrapCommand> buildBwrapCommand(const SandboxProfile& profile, const BwrapRequest& request,
                                       const HostLookup& lookup = lookupHostPath);

std::string shellQuote(const std::string& word);
// argv as one line a shell would run as it is, each word quoted where it needs it (for --explain).
std::string shellCommandLine(const std::vector<std::string>& argv);

} // namespace warren::sandbox
