#pragma once
// Which sandbox runs a command: bubblewrap on the host, a Docker or Podman container, the Pod a cluster
// would run, played on this host by podman (kube), or that Pod sent to a cluster's API (kubernetes). Parsed
// once where a name comes in (a flag, a setting, a stored task) and printed back through backendName(), so
// everything stored and shown keeps the same names.

#include "common/Result.h"

#include <optional>
#include <string>
#include <string_view>

namespace warren::sandbox {

enum class Backend { Bwrap, Docker, Podman, Kube, Kubernetes };
// The container engines, for what differs between them (DockerCommand, Preflight).
enum class ContainerEngine { Docker, Podman };

std::string backendName(Backend backend); // "bwrap", "docker", "podman", "kube", "kubernetes"
std::string backendNames();               // "bwrap, docker, podman, kube or kubernetes", for messages
// The error names the valid ones.
Result<Backend> parseBackend(std::string_view name);
// How an agent in the backend's sandbox reaches the control plane that started it, which is what a launch
// plans around: its stdin and stdout (bwrap, and docker's attached run client), a Unix socket of this host
// bound into the sandbox (kube: podman kube play attaches no stdin; podman: a warm container, started before
// its task, has no stdin of the task's, so every podman task connects alike), or the network (kubernetes: the
// pod's node shares nothing with this host, no socket and no directory, so its trees are carried to and fro).
enum class AgentRoute { Stdio, HostSocket, Network };
AgentRoute agentRoute(Backend backend);
// The engine of a container backend on this host (kube: podman); nullopt for bwrap and kubernetes (a
// cluster's nodes run the pod).
std::optional<ContainerEngine> containerEngine(Backend backend);

} // namespace warren::sandbox
