#pragma once
// Who a cluster's sandbox pod may reach: the control plane's agents' listener, on one port, named either by
// its pods (labels, and the namespace they run in) or, for a control plane outside the cluster, by an address
// block. KubeManifest renders it as the NetworkPolicy's one egress peer besides the cluster's DNS; warrend
// reads it from `serve --agent-peer`. Pure.

#include "common/Result.h"

#include <map>
#include <string>

namespace warren::sandbox {

struct ControlPlanePeer {
    std::map<std::string, std::string> podLabels; // e.g. app.kubernetes.io/name=warrend; empty with ipBlock
    std::string namespaceName;                    // the control plane's namespace; empty: the pod's own
    int port = 0;                                 // where the control plane listens (its pod's port)
    std::string ipBlock;                          // CIDR, e.g. 10.1.2.3/32; empty with podLabels
};

// "NAMESPACE/KEY=VALUE[,KEY=VALUE...]" (the control plane's pods in that namespace) or "ADDRESS/BITS" (an
// IPv4 or IPv6 block); the port is the caller's to set (warrend: the one its listener bound). An error says
// what the text should be.
Result<ControlPlanePeer> parseControlPlanePeer(const std::string& text);

} // namespace warren::sandbox
