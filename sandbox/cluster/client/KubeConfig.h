#pragma once
// Where a cluster's API is and how to prove who we are to it: the current context of a kubeconfig (YAML, as
// kubectl writes it, or JSON), or the pod's own service account when warrend runs in the cluster. Pure apart
// from the FileReader it is given, so tests hand it files without a disk.

#include "common/Result.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace warren::kube {

struct KubeConfig {
    std::string server;       // "https://host:port" or "http://host:port" (no path)
    std::string caPem;        // the server's CA, PEM; empty: the system's trust store
    std::string clientCertPem; // PEM; set together with clientKeyPem
    std::string clientKeyPem;
    std::string token;             // a bearer token; empty: none
    std::string namespaceName;     // the context's namespace, "default" when it names none
    bool insecureSkipTlsVerify = false;
    std::string tlsServerName;     // the name the certificate must carry; empty: the server URL's host
    std::string source;            // where it came from, for messages: the file, or "the pod's service account"
};

// Reads a file whole; an error names the file. Paths given to it are absolute.
using FileReader = std::function<Result<std::string>(const std::string& path)>;
Result<std::string> readWholeFile(const std::string& path);

// The kubeconfig at path, whose text is given: the context named `context`, or the file's current-context.
// Relative *-file paths are resolved against the file's directory, as kubectl does.
Result<KubeConfig> parseKubeConfig(std::string_view text, const std::string& path,
                                   const std::optional<std::string>& context, const FileReader& read);

// Inside a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, and the service account's files under
// directory (token, ca.crt, namespace).
inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";
Result<KubeConfig> inClusterConfig(const std::map<std::string, std::string>& environment,
                                   const std::string& directory, const FileReader& read);

// The kubeconfig file at path (kubectl's --kubeconfig): read, then parseKubeConfig.
Result<KubeConfig> loadKubeConfigFile(const std::string& path, const std::optional<std::string>& context = std::nullopt);

// kubectl's order: $KUBECONFIG (its first file that exists), ~/.kube/config, then the pod's service account.
Result<KubeConfig> loadKubeConfig(const std::optional<std::string>& context = std::nullopt);

} // namespace warren::kube
