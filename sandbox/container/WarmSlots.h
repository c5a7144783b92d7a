#pragma once
// The host's half of a warm container's mounts (WarmPool), the thin edge over mount(2). A warm container
// binds every host path it will need from an empty entry of its slots directory, a mount of its own that the
// host shares and the container receives (rslave); a claim mounts its task's sources over those entries, and
// the container sees them. Its waiter's socket lives in a tiny tmpfs of its own, so what the task's tools
// write there later is bounded. Needs root (CAP_SYS_ADMIN in the host's mount namespace).

#include "common/Result.h"
#include "sandbox/container/DockerCommand.h"

#include <string>

namespace warren::sandbox {

// In a container's scratch directory.
inline constexpr const char* kWarmSlotsName = "slots";
inline constexpr const char* kWarmClaimName = "claim";

// Before the engine starts a warm container: the slots directory, shared in a peer group of its own, with
// an empty entry per slot bind (a directory or a file), and the claim directory, a tmpfs of a few KiB owned
// by the container's user. On failure nothing stays mounted.
Status makeWarmDirectories(const std::string& dataDir, const DockerCommand& shape);
// A claim: each slot bind's source mounted over its entry (read-only where the bind is), then what lies
// inside the workspace over the workspace's entry, shallowest first. On failure the caller removes the
// container, which detaches all of it.
Status fillWarmSlots(const std::string& dataDir, const DockerCommand& shape,
                     const std::string& workspaceDest);
// Detaches the slots and the claim directory, with everything mounted below them, then removes their
// (empty) entries; never removes anything through a mount. Harmless when there are none.
void removeWarmDirectories(const std::string& dataDir);

} // namespace warren::sandbox
