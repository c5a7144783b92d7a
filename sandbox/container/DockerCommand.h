#pragma once
// The one translator from a resolved SandboxProfile to a `docker run` / `podman run` command line, the
// container backend's counterpart of BwrapCommand: the mounts, environment and files are the ContainerSpec's
// (shared with KubeManifest), rendered as options. Pure apart from the HostLookup it is given: tests
// inspect the exact argv for a profile without an engine. Whatever the engine cannot express is listed in
// notEnforced, never dropped silently: --explain prints it and the launcher decides (fail closed).
//
// Choices (docs/SECURITY.md, "Container backend", says why):
// - the image provides /usr and the libraries; the host's system mounts of the profile are not bound (the
//   statically linked warren-agent runs on any image); every other mount is bound as the profile says;
// - the user: rootless podman maps the invoking user to the profile's uid (--userns=keep-id:uid=,gid=), as
//   bwrap does; a rootful engine has no per-container uid map, so the container runs as the invoking user's
//   uid (files it writes in the workspace are the user's); when the invoker is root, as the workspace's
//   owner (files it writes stay the owner's), or, when root owns it too, as the profile's uid on an
//   idmapped view of the workspace that shows root's files as that uid's and writes that uid's as root's:
//   never as root;
// - network "none" and "loopback" are both --network none: the container gets its own namespace with only
//   lo, like bwrap; what differs between them is the seccomp profile (AF_INET allowed or not).

#include "common/Result.h"
#include "sandbox/Backend.h"
#include "sandbox/bwrap/BwrapCommand.h"
#include "sandbox/container/ContainerSpec.h"
#include "sandbox/container/IdmappedMount.h"
#include "sandbox/policy/ProtectedPaths.h"
#include "sandbox/policy/SandboxProfile.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

inline constexpr const char* kDefaultContainerImage = "debian:bookworm-slim";
// Every Warren container carries this label, so a cleanup finds the ones a killed launcher left.
inline constexpr const char* kContainerLabel = "warren.sandbox";
// The directory in DockerRequest::dataDir where the launcher mounts DockerCommand::workspaceView.
inline constexpr const char* kWorkspaceViewName = "workspace";
// A warm container (WarmPool): the waiter (warren-agent await-claim) and the directory of its socket.
inline constexpr const char* kWaiterInContainer = "/opt/warren-warm/warren-agent";
inline constexpr const char* kClaimDirInContainer = "/opt/warren-warm/claim";
inline constexpr const char* kClaimSocketName = "claim.sock";

std::string containerEngineName(ContainerEngine engine); // "docker", "podman"

struct DockerRequest {
    ContainerEngine engine = ContainerEngine::Docker;
    std::string enginePath;                       // argv[0]; empty: the engine's name, found on PATH
    std::string image = kDefaultContainerImage;
    std::vector<std::string> command;             // what runs inside
    bool commandIsInit = false;                   // it is pid 1 (SandboxRequest::commandIsInit): no --init
    std::string containerName;                    // "warren-..." and unique: --name, for cleanup
    std::map<std::string, std::string> labels;    // more --label NAME=VALUE (e.g. the task id)
    std::string seccompProfilePath;               // file holding renderDockerSeccomp()'s JSON
    std::string dataDir;                          // host directory where the launcher writes `files`
    ProtectionPlan protection;                    // planProtection() for the profile's workspace
    std::map<std::string, std::string> hostEnv;   // source of env_passthrough values
    std::uint32_t invokerUid = 0;                 // who runs Warren: owner of what the sandbox writes
    std::uint32_t invokerGid = 0;
    std::uint32_t workspaceOwnerUid = 0;          // the workspace's owner on the host (stat at the edge)
    std::uint32_t workspaceOwnerGid = 0;
    bool rootlessEngine = false;                  // the engine runs in the invoker's user namespace
    // The hard RLIMIT_NOFILE and RLIMIT_NPROC the engine's runtime inherits (0: unknown): the invoker's, and
    // for processes at most kernel.pid_max, to which podman lowers its own. Podman, given any --ulimit, drops
    // the default_ulimits of containers.conf and sets both to its own defaults (about a million), which the
    // runtime cannot raise past the hard limits it inherits without CAP_SYS_RESOURCE: the container would not
    // start. So for podman the two are always given, at most these.
    std::uint64_t hostOpenFilesHard = 0;
    std::uint64_t hostProcessesHard = 0;
    // A warm container's shape (WarmPool), started before its task: set, every bind of this host comes from
    // an empty entry of slotsDir, received from the host (bind-propagation=rslave), which a claim fills with
    // its task's source; what is mounted inside the workspace is left to the claim too; there is no
    // environment file (a claim carries the environment); and the command is the waiter, `waiter` bound in
    // read-only, listening in claimDir (a host directory the container's user owns). Empty: an ordinary
    // container.
    struct Warm {
        std::string slotsDir;
        std::string claimDir;
        std::string waiter; // host path of warren-agent
    };
    std::optional<Warm> warm;
};

// A bind of a warm container, which the claim fills: the entry `slot` of the slots directory ("d0" for a
// directory, "f1" for anything else) with the task's mount.
struct SlotBind {
    std::string slot;
    ContainerMount mount;
};

struct DockerCommand {
    std::vector<std::string> argv;         // argv[0] is the engine
    std::vector<DockerDataFile> files;
    std::vector<std::string> notEnforced;  // profile settings the engine cannot enforce as bwrap does
    std::vector<std::string> notes;        // settings enforced in another way, with the same guarantee
    // Who owns, on the host, what the container writes in its binds (other than a workspace view): the
    // invoking user (rootless podman's keep-id, or a rootful engine run by a user), or the container's uid
    // when Warren runs as root; unset for rootless docker (a subordinate uid). A launcher running as root
    // hands it the directories it owns.
    std::optional<std::uint32_t> hostOwnerUid;
    std::optional<std::uint32_t> hostOwnerGid;
    // Set when the workspace and its protected paths are bound from an idmapped view (Warren and the
    // workspace's owner are root): the launcher mounts it before starting the engine, after creating the
    // placeholders' mount points through the real workspace, and fails closed if it cannot.
    std::optional<IdmappedView> workspaceView;
    std::uint32_t uid = 0; // --user
    std::uint32_t gid = 0;
    std::map<std::string, std::string> env; // the profile's variables, as the environment file says them
    // DockerRequest::warm: the binds a claim fills, in order, and what it mounts inside the workspace (dests
    // in the container, under the workspace's) after them, shallowest first.
    std::vector<SlotBind> slotBinds;
    std::string workspaceSlot;
    std::vector<ContainerMount> claimMounts;

    std::string commandLine() const;       // shell-quoted, for --explain and error messages
};

Result<DockerCommand> buildDockerCommand(const SandboxProfile& profile, const DockerRequest& request,
                                         const HostLookup& lookup = lookupHostPath);

} // namespace warren::sandbox
