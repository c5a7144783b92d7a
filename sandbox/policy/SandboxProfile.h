#pragma once
// The sandbox policy as data. A profile is JSON; layers (built-in default < profile file < command-line
// flags) are merged with JSON Merge Patch (RFC 7386), which is why mounts, env and protected paths are
// objects keyed by path or name: a later layer adds, replaces, or removes (null) one entry at a time.
// fromJson() validates the merged document into typed fields; unknown keys are errors naming the key.

#include "common/Result.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::sandbox {

struct MountSpec {
    enum class Type {
        RoBind,  // host source, read-only
        Bind,    // host source, read-write
        Mirror,  // host source as it is: a symlink stays a symlink (merged /usr), anything else ro-bind
        Symlink, // a symlink to target
        Tmpfs,   // fresh tmpfs of size_mb
        Proc,    // fresh /proc of the sandbox's pid namespace
        Dev,     // minimal /dev (null, zero, full, random, urandom, tty, pts, shm)
    };
    std::string dest;   // absolute path inside the sandbox (the key in "mounts")
    Type type = Type::RoBind;
    std::string source; // host path (RoBind, Bind, Mirror)
    std::string target; // link target (Symlink)
    std::uint64_t sizeMb = 0; // Tmpfs
    bool optional = false;    // a missing source is skipped instead of failing the launch
};

struct ProtectedPath {
    std::string path;          // relative to the workspace
    bool directory = false;    // written with a trailing '/' in the profile
    bool onlyIfExists = false; // "if-exists": read-only when present, but the sandbox may create it
};

enum class NetworkPolicy {
    None,     // no network namespace access at all: AF_INET/AF_INET6 sockets are refused
    Loopback, // own network namespace with only lo: servers and clients inside talk to each other
};

struct SandboxLimits {
    std::uint64_t memoryMb = 0;       // cgroup memory limit; address-space rlimit where no cgroup
    std::uint64_t pids = 0;           // cgroup pids limit; RLIMIT_NPROC where no cgroup
    std::uint64_t cpuSeconds = 0;     // RLIMIT_CPU, per process
    std::uint64_t fileSizeMb = 0;     // RLIMIT_FSIZE
    std::uint64_t openFiles = 0;      // RLIMIT_NOFILE
    std::uint64_t addressSpaceMb = 0; // RLIMIT_AS, set explicitly
    std::uint64_t timeoutSec = 0;     // wall clock, enforced by the launcher
    // Where memoryMb falls back to RLIMIT_AS, never below this: a runtime that reserves far more address
    // space than it uses (Claude Code's needs about 3 GiB to start a run) would crash at any cap below it.
    std::uint64_t addressSpaceFloorMb = 0;
}; // 0 means "no limit" everywhere

struct SandboxUser {
    std::string name = "agent";
    std::uint32_t uid = 1000;
    std::uint32_t gid = 1000;
    std::string home = "/home/agent";
    std::string shell = "/bin/sh";
};

struct SandboxProfile {
    std::string hostname;
    SandboxUser user;
    std::string workspaceSource; // host directory; must be set by a layer
    std::string workspaceDest = "/workspace";
    bool workspaceWritable = true;
    std::vector<MountSpec> mounts; // sorted by dest: a parent is always mounted before its children
    std::map<std::string, std::string> env;
    std::vector<std::string> envPassthrough; // host variables copied in when set
    NetworkPolicy network = NetworkPolicy::None;
    SandboxLimits limits;
    std::vector<std::string> seccompSkip; // seccomp table row ids disabled by this profile
    std::vector<ProtectedPath> protectedPaths;

    static Result<SandboxProfile> fromJson(const nlohmann::json& document);
    nlohmann::json toJson() const; // the resolved profile, for --explain
};

// The built-in default profile (resources/profiles/default.json).
const nlohmann::json& defaultProfileJson();

// Parses one layer (profile file contents); the error names the file and the JSON position.
Result<nlohmann::json> parseProfileLayer(const std::string& text, const std::string& origin);

// Merges layers in order with RFC 7386 semantics, then validates.
Result<SandboxProfile> resolveProfile(const std::vector<nlohmann::json>& layers);

// Limits are written in MiB; a value too large to count in bytes means "more than any machine has".
constexpr std::uint64_t mebibytesToBytes(std::uint64_t mebibytes) {
    constexpr std::uint64_t kMiB = 1024 * 1024;
    return mebibytes > UINT64_MAX / kMiB ? UINT64_MAX : mebibytes * kMiB;
}

std::string networkPolicyName(NetworkPolicy policy);
std::string mountTypeName(MountSpec::Type type);

// The environment a sandboxed command gets, whatever the backend: the profile's env_passthrough names
// that hostEnv has, then the profile's env (which wins). Nothing else of the host's environment.
std::map<std::string, std::string> sandboxEnvironment(const SandboxProfile& profile,
                                                      const std::map<std::string, std::string>& hostEnv);

} // namespace warren::sandbox
