#include "sandbox/Backend.h"

#include <array>
#include <utility>

namespace warren::sandbox {
namespace {

constexpr std::array<std::pair<Backend, std::string_view>, 5> kNames{{{Backend::Bwrap, "bwrap"},
                                                                      {Backend::Docker, "docker"},
                                                                      {Backend::Podman, "podman"},
                                                                      {Backend::Kube, "kube"},
                                                                      {Backend::Kubernetes, "kubernetes"}}};

} // namespace

std::string backendName(Backend backend) {
    for (const auto& [value, name] : kNames)
        if (value == backend)
            return std::string(name);
    return {};
}

std::string backendNames() {
    return "bwrap, docker, podman, kube or kubernetes";
}

Result<Backend> parseBackend(std::string_view name) {
    for (const auto& [value, known] : kNames)
        if (known == name)
            return value;
    return makeError(ErrorCode::InvalidArgument,
                     "backend \"" + std::string(name) +
                         "\": the sandbox is bwrap (bubblewrap), docker, podman, kube (a Pod, played by podman) or "
                         "kubernetes (that Pod on a cluster, through its API)");
}

AgentRoute agentRoute(Backend backend) {
    switch (backend) {
    case Backend::Bwrap:
    case Backend::Docker:
        return AgentRoute::Stdio;
    case Backend::Podman:
    case Backend::Kube:
        return AgentRoute::HostSocket;
    case Backend::Kubernetes:
        return AgentRoute::Network;
    }
    return AgentRoute::Stdio;
}

std::optional<ContainerEngine> containerEngine(Backend backend) {
    switch (backend) {
    case Backend::Bwrap:
    case Backend::Kubernetes:
        return std::nullopt;
    case Backend::Docker:
        return ContainerEngine::Docker;
    case Backend::Podman:
    case Backend::Kube:
        return ContainerEngine::Podman;
    }
    return std::nullopt;
}

} // namespace warren::sandbox
