#include "sandbox/SandboxLaunch.h"

#include "sandbox/BwrapSandbox.h"
#include "sandbox/ClusterSandbox.h"
#include "sandbox/ContainerSandbox.h"
#include "sandbox/KubeSandbox.h"

namespace warren::sandbox {

Result<std::unique_ptr<SandboxLaunch>> prepareLaunch(SandboxRequest request) {
    switch (request.backend) {
    case Backend::Bwrap:
        return prepareBwrapLaunch(std::move(request));
    case Backend::Docker:
    case Backend::Podman:
        return prepareContainerLaunch(std::move(request));
    case Backend::Kube:
        return prepareKubeLaunch(std::move(request));
    case Backend::Kubernetes:
        return prepareClusterLaunch(std::move(request));
    }
    return makeError(ErrorCode::InvalidArgument, "unknown sandbox backend");
}

} // namespace warren::sandbox
