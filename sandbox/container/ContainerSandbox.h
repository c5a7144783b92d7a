#pragma once
// The Docker and Podman backend of SandboxLaunch. Preparing runs the engine's preflight (Warren never pulls:
// a missing image is a failed check with its fix), sweeps the containers and files a killed launcher left,
// and makes the private directory for this container's files; the running sandbox removes the container,
// that directory and the placeholders of protected paths when it is destroyed (ContainerLauncher does each).

#include "common/Result.h"
#include "sandbox/PlaceholderRecord.h"
#include "sandbox/SandboxLaunch.h"
#include "sandbox/container/ContainerLauncher.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace warren::sandbox {

Result<std::unique_ptr<SandboxLaunch>> prepareContainerLaunch(SandboxRequest request);

// What a running container holds, whichever translator made its command (DockerCommand, KubeManifest).
struct ContainerRun {
    Backend backend = Backend::Podman;
    SandboxProfile profile; // with the workspace source canonicalised
    ProtectionPlan protection;
    std::string commandLine;
    ContainerEngine engine = ContainerEngine::Podman;
    std::string image; // for the preflight a setup failure runs
    ContainerScratch scratch;
    PlaceholderRecord placeholders;
    ContainerScratch warmScratch; // a warm container's own directory (its slots); empty: started cold
};
// The RunningSandbox of an engine's attached client: destroying it stops and removes the container (the
// process's remove commands), then the scratch directory and the placeholders of protected paths.
std::unique_ptr<RunningSandbox> makeContainerSandbox(ContainerRun run, ContainerProcess process);

// One section of an --explain: "# TITLE", then a line per entry ("- nothing" for none).
void explainList(std::ostream& out, const std::string& title, const std::vector<std::string>& lines);

} // namespace warren::sandbox
