#include "sandbox/cluster/client/KubeConfig.h"

#include "common/Base64.h"
#include "sandbox/cluster/client/YamlDocument.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <vector>

namespace warren::kube {
namespace {

using nlohmann::json;

Error invalid(const std::string& path, const std::string& what) {
    return makeError(ErrorCode::InvalidArgument, path + ": " + what);
}

std::string directoryOf(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string resolve(const std::string& path, const std::string& base) {
    if (path.empty() || path[0] == '/')
        return path;
    return directoryOf(base) + "/" + path;
}

// The entry of list (clusters, users, contexts) called name: {"name": ..., "<kind>": {...}}.
Result<json> namedEntry(const json& root, const std::string& list, const std::string& kind,
                        const std::string& name, const std::string& path) {
    if (!root.contains(list) || !root[list].is_array())
        return invalid(path, "has no \"" + list + "\" list");
    for (const auto& entry : root[list]) {
        if (entry.is_object() && entry.value("name", json()).is_string() && entry["name"] == name) {
            if (!entry.contains(kind) || !entry[kind].is_object())
                return invalid(path, list + " entry \"" + name + "\" has no \"" + kind + "\" object");
            return entry[kind];
        }
    }
    return invalid(path, "names " + kind + " \"" + name + "\" but its \"" + list + "\" list has no such entry");
}

Result<std::string> stringField(const json& object, const std::string& field, const std::string& where,
                                const std::string& path) {
    if (!object.contains(field) || object[field].is_null())
        return std::string();
    if (!object[field].is_string())
        return invalid(path, where + "." + field + " must be a string");
    return object[field].get<std::string>();
}

// A credential given inline as base64 (fieldData) or as a file (fieldFile); data wins, as in kubectl.
Result<std::string> dataOrFile(const json& object, const std::string& dataField, const std::string& fileField,
                               const std::string& where, const std::string& path, const FileReader& read) {
    auto data = stringField(object, dataField, where, path);
    if (!data)
        return data.error();
    if (!data->empty()) {
        auto decoded = decodeBase64(*data);
        if (!decoded)
            return invalid(path, where + "." + dataField + " is not base64");
        return *decoded;
    }
    auto file = stringField(object, fileField, where, path);
    if (!file)
        return file.error();
    if (file->empty())
        return std::string();
    auto contents = read(resolve(*file, path));
    if (!contents)
        return invalid(path, where + "." + fileField + ": " + contents.error().message);
    return *contents;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        text.pop_back();
    return text;
}

} // namespace

Result<std::string> readWholeFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::NotFound, "cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Result<KubeConfig> parseKubeConfig(std::string_view text, const std::string& path,
                                   const std::optional<std::string>& context, const FileReader& read) {
    auto document = parseYaml(text);
    if (!document)
        return invalid(path, document.error().message);
    const json& root = *document;
    if (!root.is_object())
        return invalid(path, "is not a kubeconfig (a mapping with clusters, users and contexts)");

    std::string contextName;
    if (context) {
        contextName = *context;
    } else {
        auto current = stringField(root, "current-context", "", path);
        if (!current)
            return current.error();
        if (current->empty())
            return invalid(path, "has no current-context; name a context");
        contextName = *current;
    }
    auto contextEntry = namedEntry(root, "contexts", "context", contextName, path);
    if (!contextEntry)
        return contextEntry.error();
    const std::string where = "context \"" + contextName + "\"";
    auto clusterName = stringField(*contextEntry, "cluster", where, path);
    if (!clusterName)
        return clusterName.error();
    if (clusterName->empty())
        return invalid(path, where + " names no cluster");
    auto cluster = namedEntry(root, "clusters", "cluster", *clusterName, path);
    if (!cluster)
        return cluster.error();

    KubeConfig config;
    config.source = path;
    const std::string clusterWhere = "cluster \"" + *clusterName + "\"";
    auto server = stringField(*cluster, "server", clusterWhere, path);
    if (!server)
        return server.error();
    if (server->rfind("https://", 0) != 0 && server->rfind("http://", 0) != 0)
        return invalid(path, clusterWhere + ".server must be an https:// or http:// URL, not \"" + *server + "\"");
    config.server = *server;
    while (!config.server.empty() && config.server.back() == '/')
        config.server.pop_back();
    auto ca = dataOrFile(*cluster, "certificate-authority-data", "certificate-authority", clusterWhere, path, read);
    if (!ca)
        return ca.error();
    config.caPem = *ca;
    if (cluster->contains("insecure-skip-tls-verify")) {
        const json& skip = (*cluster)["insecure-skip-tls-verify"];
        if (!skip.is_boolean())
            return invalid(path, clusterWhere + ".insecure-skip-tls-verify must be true or false");
        config.insecureSkipTlsVerify = skip.get<bool>();
    }
    auto serverName = stringField(*cluster, "tls-server-name", clusterWhere, path);
    if (!serverName)
        return serverName.error();
    config.tlsServerName = *serverName;

    auto userName = stringField(*contextEntry, "user", where, path);
    if (!userName)
        return userName.error();
    if (!userName->empty()) {
        auto user = namedEntry(root, "users", "user", *userName, path);
        if (!user)
            return user.error();
        const std::string userWhere = "user \"" + *userName + "\"";
        for (const char* unsupported : {"exec", "auth-provider", "username"}) {
            if (user->contains(unsupported))
                return invalid(path, userWhere + " authenticates with \"" + unsupported +
                                         "\", which Warren does not run: give it a token, a token-file or a "
                                         "client certificate");
        }
        auto cert = dataOrFile(*user, "client-certificate-data", "client-certificate", userWhere, path, read);
        if (!cert)
            return cert.error();
        auto key = dataOrFile(*user, "client-key-data", "client-key", userWhere, path, read);
        if (!key)
            return key.error();
        if (cert->empty() != key->empty())
            return invalid(path, userWhere + " has a client certificate without its key, or a key without "
                                             "its certificate");
        config.clientCertPem = *cert;
        config.clientKeyPem = *key;
        auto token = stringField(*user, "token", userWhere, path);
        if (!token)
            return token.error();
        config.token = *token;
        if (config.token.empty()) {
            auto tokenFile = stringField(*user, "tokenFile", userWhere, path);
            if (!tokenFile)
                return tokenFile.error();
            if (!tokenFile->empty()) {
                auto contents = read(resolve(*tokenFile, path));
                if (!contents)
                    return invalid(path, userWhere + ".tokenFile: " + contents.error().message);
                config.token = trimmed(*contents);
            }
        }
    }
    auto namespaceName = stringField(*contextEntry, "namespace", where, path);
    if (!namespaceName)
        return namespaceName.error();
    config.namespaceName = namespaceName->empty() ? "default" : *namespaceName;
    return config;
}

Result<KubeConfig> inClusterConfig(const std::map<std::string, std::string>& environment,
                                   const std::string& directory, const FileReader& read) {
    const auto host = environment.find("KUBERNETES_SERVICE_HOST");
    const auto port = environment.find("KUBERNETES_SERVICE_PORT");
    if (host == environment.end() || host->second.empty() || port == environment.end() || port->second.empty())
        return makeError(ErrorCode::NotFound,
                         "not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
    KubeConfig config;
    config.source = "the pod's service account (" + directory + ")";
    const bool ipv6 = host->second.find(':') != std::string::npos;
    config.server = "https://" + (ipv6 ? "[" + host->second + "]" : host->second) + ":" + port->second;
    auto token = read(directory + "/token");
    if (!token)
        return makeError(ErrorCode::NotFound, "in a pod but without a service account token: " +
                                                  token.error().message +
                                                  " (automountServiceAccountToken is false?)");
    config.token = trimmed(*token);
    auto ca = read(directory + "/ca.crt");
    if (!ca)
        return makeError(ErrorCode::NotFound, "in a pod but without the cluster's CA: " + ca.error().message);
    config.caPem = *ca;
    auto namespaceName = read(directory + "/namespace");
    config.namespaceName = namespaceName ? trimmed(*namespaceName) : std::string("default");
    return config;
}

Result<KubeConfig> loadKubeConfigFile(const std::string& path, const std::optional<std::string>& context) {
    auto text = readWholeFile(path);
    if (!text)
        return text.error();
    return parseKubeConfig(*text, path, context, readWholeFile);
}

Result<KubeConfig> loadKubeConfig(const std::optional<std::string>& context) {
    std::vector<std::string> candidates;
    if (const char* list = std::getenv("KUBECONFIG"); list && *list) {
        std::string all = list;
        std::size_t start = 0;
        while (start <= all.size()) {
            const auto colon = all.find(':', start);
            const std::string one = all.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
            if (!one.empty())
                candidates.push_back(one);
            if (colon == std::string::npos)
                break;
            start = colon + 1;
        }
    } else if (const char* home = std::getenv("HOME"); home && *home) {
        candidates.push_back(std::string(home) + "/.kube/config");
    }
    for (const auto& path : candidates) {
        struct stat info {};
        if (::stat(path.c_str(), &info) != 0)
            continue;
        return loadKubeConfigFile(path, context);
    }
    std::map<std::string, std::string> environment;
    for (const char* name : {"KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"}) {
        if (const char* value = std::getenv(name))
            environment[name] = value;
    }
    auto inCluster = inClusterConfig(environment, kServiceAccountDir, readWholeFile);
    if (inCluster)
        return inCluster;
    return makeError(ErrorCode::NotFound,
                     "no cluster configured: no kubeconfig (" +
                         (candidates.empty() ? std::string("$KUBECONFIG and $HOME unset") : candidates.front()) +
                         " does not exist) and " + inCluster.error().message);
}

} // namespace warren::kube
