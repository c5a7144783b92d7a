#pragma once
// How a control plane places its tasks' pods on a cluster (warrend serve --agent-address, --agent-advertise,
// --agent-service, --agent-peer, --runtime-class; docs/DEPLOY.md): where the pods' agents connect, who the
// pods may reach, and the runtime they run in. No address: no cluster, and a task of the kubernetes backend
// is refused.

#include "sandbox/cluster/ControlPlanePeer.h"

#include <optional>
#include <string>

namespace warren::control {

struct ClusterPlacement {
    std::string agentAddress;                      // HOST:PORT as the pods are told (advertised)
    std::optional<sandbox::ControlPlanePeer> peer; // the pods' one way out; unset: they reach nothing
    std::string runtimeClass;                      // e.g. gvisor; empty: the cluster's default
    // HOST:PORT reaching every replica's listener (warrend's Service, --agent-service): where a pod's agent
    // also tries once its connection is lost, for the replica that took its task over. Empty: agentAddress.
    std::string serviceAddress;
};

} // namespace warren::control
