#include "sandbox/cluster/client/ClusterPermissions.h"

namespace warren::kube {

const std::vector<ApiPermission>& clusterClientPermissions() {
    // get: checking an object is gone after its delete; list and watch: following the pod (a list after a
    // 410), waiting for a deletion, and finding what a killed launcher left (a labelSelector on the task).
    static const std::vector<std::string> objectVerbs = {"create", "get", "list", "watch", "delete"};
    static const std::vector<ApiPermission> permissions = {
        {"", "pods", objectVerbs, "the sandbox's pod"},
        {"", "pods/log", {"get"}, "the tail of the pod's log once its container has ended, for the launcher"},
        {"", "secrets", objectVerbs, "the task token"},
        {"networking.k8s.io", "networkpolicies", objectVerbs, "the pod's egress rule"},
        {"agents.x-k8s.io", "sandboxes", objectVerbs, "agent-sandbox's Sandbox, where its CRD is installed"},
    };
    return permissions;
}

} // namespace warren::kube
