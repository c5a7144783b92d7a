#include "sandbox/SandboxLaunch.h"

#include "sandbox/bwrap/BwrapSandbox.h"
#include "sandbox/cluster/ClusterSandbox.h"
#include "sandbox/container/ContainerSandbox.h"
#include "sandbox/pod/PodmanPodSandbox.h"

namespace warren::sandbox {

// The one place that chooses a backend's implementation: a new backend is one case here.
Result<std::unique_ptr<SandboxLaunch>> prepareLaunch(SandboxRequest request) {
    switch (request.backend) {
    case Backend::Bwrap:
        return prepareBwrapLaunch(std::move(request));
    case Backend::Docker:
    case Backend::Podman:
        return prepareContainerLaunch(std::move(request));
    case Backend::Kube:
        return preparePodmanPodLaunch(std::move(request));
    case Backend::Kubernetes:
        return prepareClusterLaunch(std::move(request));
    }
    return makeError(ErrorCode::InvalidArgument, "unknown sandbox backend");
}

} // namespace warren::sandbox
