#pragma once
// The Docker and Podman backend of SandboxLaunch. Preparing runs the engine's preflight (Warren never pulls:
// a missing image is a failed check with its fix), sweeps the containers and files a killed launcher left,
// and makes the private directory for this container's files; the running sandbox removes the container,
// that directory and the placeholders of protected paths when it is destroyed (ContainerLauncher does each).

#include "common/Result.h"
#include "sandbox/SandboxLaunch.h"

#include <memory>

namespace warren::sandbox {

Result<std::unique_ptr<SandboxLaunch>> prepareContainerLaunch(SandboxRequest request);

} // namespace warren::sandbox
