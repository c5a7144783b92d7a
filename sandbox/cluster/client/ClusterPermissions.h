#pragma once
// What the cluster client asks of a cluster's API, as data: each resource it touches in the sandboxes'
// namespace and the verbs its calls use. packaging/kubernetes/rbac.yaml grants exactly these, which
// tst_deploy_manifests checks; docs/DEPLOY.md explains them. A new call is a new row here first.

#include <string>
#include <vector>

namespace warren::kube {

struct ApiPermission {
    std::string apiGroup; // "" for the core group
    std::string resource; // "pods", "pods/log"
    std::vector<std::string> verbs;
    std::string why; // which calls use them
};

const std::vector<ApiPermission>& clusterClientPermissions();

} // namespace warren::kube
