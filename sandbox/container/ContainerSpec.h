#pragma once
// What a container of a resolved SandboxProfile holds, whichever engine runs it: its mounts in order (the
// profile's, /etc/passwd and /etc/group, the workspace, its protected paths), its environment and the files
// the launcher writes for it, with what cannot be said listed in notEnforced. Decided once, here, from the
// profile, so that DockerCommand (the argv of docker/podman run) and KubeManifest (a Pod's volumes and
// mounts) only render it: a rule about a mount is written once for both. Pure apart from the HostLookup.
//
// On this host every mount has a host path. Off it (a cluster's node) nothing of this host exists: a bind of
// the profile is an error unless optional, the workspace is an empty directory the agent fills from the
// upload, its protected paths are paths of that directory, and /etc/passwd and /etc/group are the image's.

#include "common/Result.h"
#include "sandbox/bwrap/BwrapCommand.h"
#include "sandbox/container/ContainerUser.h"
#include "sandbox/policy/ProtectedPaths.h"
#include "sandbox/policy/SandboxProfile.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

// A file the launcher writes (mode 0444) before starting the engine; the container binds it read-only.
struct DockerDataFile {
    std::string hostPath; // inside the launch's data directory
    std::string bytes;
    std::string purpose; // for --explain: "/etc/passwd", "environment", ...
};

struct ContainerMount {
    enum class Kind {
        HostPath,          // the host's `source`, bound at dest
        Memory,            // a writable tmpfs of sizeMb (the profile's tmpfs)
        EmptyDirectory,    // read-only and empty: a protected directory that does not exist yet
        UploadedWorkspace, // off this host: the workspace, empty until the agent fills it from the upload
        WorkspacePath,     // off this host: the workspace's `relative`, over itself (a protected path)
    };
    // Why it is there, which names a Pod's volume and what an engine's error says.
    enum class Purpose { ProfileMount, SystemFile, Workspace, ProtectedPath, Placeholder };
    Kind kind = Kind::HostPath;
    Purpose purpose = Purpose::ProfileMount;
    std::string source; // HostPath
    std::string dest;   // inside the container
    bool readOnly = true;
    bool directory = false;   // HostPath of the profile or the workspace: the source is a directory
    std::uint64_t sizeMb = 0; // Memory
    std::string relative;     // WorkspacePath
};

struct ContainerSpecInput {
    std::string image;       // for the note on what the image provides
    std::string engineWords; // who cannot do what, in messages: "docker run", "a Pod"
    // This host: the directory of the launcher's files, and the workspace's host path (the workspace itself
    // or its idmapped view). Both empty: off this host.
    std::string dataDir;
    std::string workspaceHostPath;
    ProtectionPlan protection;                  // planProtection() of the workspace
    std::map<std::string, std::string> hostEnv; // source of env_passthrough values
    std::uint32_t uid = 0;                      // who the container runs as (ContainerUser)
    std::uint32_t gid = 0;
};

struct ContainerSpec {
    std::vector<ContainerMount> mounts;     // in order: the profile's, /etc files, workspace, protected paths
    std::map<std::string, std::string> env; // only what the profile passes
    std::vector<DockerDataFile> files;      // this host: what the launcher writes first
    std::vector<std::string> notEnforced;   // profile settings the container cannot say
    std::vector<std::string> notes;         // settings enforced in another way than under bwrap
    bool profileAsksForProcAndDev = false;  // every container has them anyway: the engine's
};

Result<ContainerSpec> buildContainerSpec(const SandboxProfile& profile, const ContainerSpecInput& input,
                                         const HostLookup& lookup = lookupHostPath);

} // namespace warren::sandbox
