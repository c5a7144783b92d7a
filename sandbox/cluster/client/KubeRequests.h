#pragma once
// The REST calls the cluster client makes, as data: method, path with its query, body. Pure, so tests read
// every path without a server. Four kinds of objects, all in one namespace: v1 Pods and Secrets,
// networking.k8s.io/v1 NetworkPolicies and agent-sandbox's agents.x-k8s.io/v1beta1 Sandboxes.

#include "common/Result.h"

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace warren::kube {

enum class ResourceKind { Pod, Secret, NetworkPolicy, Sandbox };

struct ApiRequest {
    std::string method; // GET, POST, DELETE
    std::string path;   // from the root, with the query: "/api/v1/namespaces/ns/pods?..."
    std::string body;   // JSON; empty for none
};

// The object's kind from its apiVersion and kind; an error for any other.
Result<ResourceKind> kindOf(const nlohmann::json& object);
std::string kindName(ResourceKind kind);     // "Pod", "NetworkPolicy"
std::string resourceName(ResourceKind kind); // "pods", "networkpolicies"
// The group/version root: "/api/v1", "/apis/networking.k8s.io/v1", "/apis/agents.x-k8s.io/v1beta1".
std::string groupVersionPath(ResourceKind kind);
std::string collectionPath(ResourceKind kind, const std::string& namespaceName);
std::string objectPath(ResourceKind kind, const std::string& namespaceName, const std::string& name);

ApiRequest createRequest(ResourceKind kind, const std::string& namespaceName, const nlohmann::json& object);
ApiRequest getRequest(ResourceKind kind, const std::string& namespaceName, const std::string& name);
// The collection narrowed to one name: its resourceVersion is the collection's, the point a watch resumes from.
ApiRequest listRequest(ResourceKind kind, const std::string& namespaceName, const std::string& name);
// The collection narrowed to the objects carrying every one of the labels (a labelSelector of equalities).
ApiRequest labelledListRequest(ResourceKind kind, const std::string& namespaceName,
                               const std::map<std::string, std::string>& labels);
// Changes to the one object after resourceVersion, with bookmarks; the server ends it after timeoutSeconds.
ApiRequest watchRequest(ResourceKind kind, const std::string& namespaceName, const std::string& name,
                        const std::string& resourceVersion, int timeoutSeconds);
// Background: the object goes now, its dependents after. Foreground: the object stays (with a deletion
// timestamp) until its dependents are gone, so "404" then means all of it is gone.
enum class Propagation { Background, Foreground };
// gracePeriodSeconds: 0 kills the pod's containers at once; nullopt leaves the pod's own grace period.
ApiRequest deleteRequest(ResourceKind kind, const std::string& namespaceName, const std::string& name,
                         Propagation propagation, std::optional<int> gracePeriodSeconds = std::nullopt);
// The last tailLines lines of a pod's container's log (stdout and stderr as the runtime kept them), plain
// text; the server stops after limitBytes, counted from the first line sent.
ApiRequest podLogRequest(const std::string& namespaceName, const std::string& podName, const std::string& container,
                         int tailLines, std::size_t limitBytes);
// Whether the cluster serves the kind: 200 yes, 404 no (the agent-sandbox CRD is not installed).
ApiRequest discoveryRequest(ResourceKind kind);

} // namespace warren::kube
