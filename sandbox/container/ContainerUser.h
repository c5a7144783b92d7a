#pragma once
// Who a container runs as, for every container translator (DockerCommand, KubeManifest): never root, and
// chosen so that what the sandbox writes in the workspace belongs, on the host, to whom it should.
// - rootless podman maps the invoking user to the profile's uid (keep-id), as bwrap does;
// - rootless docker has no per-container uid map: files written are a subordinate uid's (not enforced);
// - a rootful engine run by a user runs the container as that user's uid;
// - run by root, as the workspace's owner, or, when root owns it too, as the profile's uid on an idmapped
//   view of the workspace that shows root's files as that uid's and writes that uid's as root's.
// Pure: the engine's mode, the invoker and the workspace's owner come in as values.

#include "sandbox/container/IdmappedMount.h"
#include "sandbox/policy/SandboxProfile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

struct ContainerUserInput {
    bool rootlessEngine = false;  // the engine runs in the invoker's user namespace
    bool keepIdAvailable = false; // the engine maps the invoker to a chosen uid (rootless podman)
    std::uint32_t invokerUid = 0;
    std::uint32_t invokerGid = 0;
    std::uint32_t workspaceOwnerUid = 0;
    std::uint32_t workspaceOwnerGid = 0;
    std::string viewPath; // where an idmapped view of the workspace would be mounted
};

struct ContainerUser {
    std::uint32_t uid = 0; // inside the container
    std::uint32_t gid = 0;
    bool keepId = false;   // map the invoker to uid:gid (podman's --userns=keep-id:uid=,gid=)
    // Who owns, on the host, what the container writes in its binds; unset for rootless docker.
    std::optional<std::uint32_t> hostOwnerUid;
    std::optional<std::uint32_t> hostOwnerGid;
    std::optional<IdmappedView> workspaceView; // bind the workspace from this view
    std::string note;        // how the user was chosen, for --explain
    std::string notEnforced; // set when the files' owner differs from bwrap's
};

ContainerUser chooseContainerUser(const SandboxProfile& profile, const ContainerUserInput& input);

// /etc/passwd and /etc/group naming root, the profile's user as uid:gid, and nobody.
std::string containerPasswdFile(const SandboxProfile& profile, std::uint32_t uid, std::uint32_t gid);
std::string containerGroupFile(const SandboxProfile& profile, std::uint32_t gid);

} // namespace warren::sandbox
