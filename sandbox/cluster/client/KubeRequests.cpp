#include "sandbox/cluster/client/KubeRequests.h"

namespace warren::kube {

using nlohmann::json;

Result<ResourceKind> kindOf(const json& object) {
    if (!object.is_object())
        return makeError(ErrorCode::InvalidArgument, "a Kubernetes object must be a JSON object");
    const std::string apiVersion = object.value("apiVersion", std::string());
    const std::string kind = object.value("kind", std::string());
    if (apiVersion == "v1" && kind == "Pod")
        return ResourceKind::Pod;
    if (apiVersion == "v1" && kind == "Secret")
        return ResourceKind::Secret;
    if (apiVersion == "networking.k8s.io/v1" && kind == "NetworkPolicy")
        return ResourceKind::NetworkPolicy;
    if (apiVersion == "agents.x-k8s.io/v1beta1" && kind == "Sandbox")
        return ResourceKind::Sandbox;
    return makeError(ErrorCode::InvalidArgument,
                     "Warren does not send " + apiVersion + " " + kind +
                         " objects (only v1 Pod and Secret, networking.k8s.io/v1 NetworkPolicy, "
                         "agents.x-k8s.io/v1beta1 Sandbox)");
}

std::string kindName(ResourceKind kind) {
    switch (kind) {
    case ResourceKind::Pod:
        return "Pod";
    case ResourceKind::Secret:
        return "Secret";
    case ResourceKind::NetworkPolicy:
        return "NetworkPolicy";
    case ResourceKind::Sandbox:
        return "Sandbox";
    }
    return {};
}

std::string resourceName(ResourceKind kind) {
    switch (kind) {
    case ResourceKind::Pod:
        return "pods";
    case ResourceKind::Secret:
        return "secrets";
    case ResourceKind::NetworkPolicy:
        return "networkpolicies";
    case ResourceKind::Sandbox:
        return "sandboxes";
    }
    return {};
}

std::string groupVersionPath(ResourceKind kind) {
    switch (kind) {
    case ResourceKind::Pod:
    case ResourceKind::Secret:
        return "/api/v1";
    case ResourceKind::NetworkPolicy:
        return "/apis/networking.k8s.io/v1";
    case ResourceKind::Sandbox:
        return "/apis/agents.x-k8s.io/v1beta1";
    }
    return {};
}

std::string collectionPath(ResourceKind kind, const std::string& namespaceName) {
    return groupVersionPath(kind) + "/namespaces/" + namespaceName + "/" + resourceName(kind);
}

std::string objectPath(ResourceKind kind, const std::string& namespaceName, const std::string& name) {
    return collectionPath(kind, namespaceName) + "/" + name;
}

ApiRequest createRequest(ResourceKind kind, const std::string& namespaceName, const json& object) {
    return {"POST", collectionPath(kind, namespaceName), object.dump()};
}

ApiRequest getRequest(ResourceKind kind, const std::string& namespaceName, const std::string& name) {
    return {"GET", objectPath(kind, namespaceName, name), {}};
}

// Names are DNS-1123 labels (a-z, 0-9, '-'), so only the selector's '=' needs escaping.
static std::string nameSelector(const std::string& name) { return "fieldSelector=metadata.name%3D" + name; }

ApiRequest listRequest(ResourceKind kind, const std::string& namespaceName, const std::string& name) {
    return {"GET", collectionPath(kind, namespaceName) + "?" + nameSelector(name), {}};
}

// Label keys may carry a prefix ("app.kubernetes.io/managed-by"); keys and values are otherwise letters, digits,
// '-', '_' and '.', so '/', '=' and ',' are all that need escaping in the query.
static std::string escapeSelector(const std::string& selector) {
    std::string escaped;
    for (const char c : selector) {
        switch (c) {
        case '/':
            escaped += "%2F";
            break;
        case '=':
            escaped += "%3D";
            break;
        case ',':
            escaped += "%2C";
            break;
        default:
            escaped += c;
        }
    }
    return escaped;
}

ApiRequest labelledListRequest(ResourceKind kind, const std::string& namespaceName,
                               const std::map<std::string, std::string>& labels) {
    std::string selector;
    for (const auto& [key, value] : labels)
        selector += (selector.empty() ? "" : ",") + key + "=" + value;
    return {"GET", collectionPath(kind, namespaceName) + "?labelSelector=" + escapeSelector(selector), {}};
}

ApiRequest watchRequest(ResourceKind kind, const std::string& namespaceName, const std::string& name,
                        const std::string& resourceVersion, int timeoutSeconds) {
    return {"GET",
            collectionPath(kind, namespaceName) + "?watch=1&resourceVersion=" + resourceVersion +
                "&allowWatchBookmarks=true&" + nameSelector(name) +
                "&timeoutSeconds=" + std::to_string(timeoutSeconds),
            {}};
}

ApiRequest deleteRequest(ResourceKind kind, const std::string& namespaceName, const std::string& name,
                         Propagation propagation, std::optional<int> gracePeriodSeconds) {
    json options = {{"apiVersion", "v1"},
                          {"kind", "DeleteOptions"},
                          {"propagationPolicy", propagation == Propagation::Foreground ? "Foreground" : "Background"}};
    if (gracePeriodSeconds)
        options["gracePeriodSeconds"] = *gracePeriodSeconds;
    return {"DELETE", objectPath(kind, namespaceName, name), options.dump()};
}

ApiRequest podLogRequest(const std::string& namespaceName, const std::string& podName, const std::string& container,
                         int tailLines, std::size_t limitBytes) {
    return {"GET",
            objectPath(ResourceKind::Pod, namespaceName, podName) + "/log?container=" + container +
                "&tailLines=" + std::to_string(tailLines) + "&limitBytes=" + std::to_string(limitBytes),
            {}};
}

ApiRequest discoveryRequest(ResourceKind kind) { return {"GET", groupVersionPath(kind), {}}; }

} // namespace warren::kube
