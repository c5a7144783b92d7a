#pragma once
// What the Kubernetes backend's tests share: a self-signed certificate made by the openssl CLI, and the
// objects a sandbox sends (the shape KubeManifest renders, cut to what the API server double checks).

#include "sandbox/cluster/client/KubeCluster.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <nlohmann/json.hpp>
#include <chrono>
#include <string>

namespace warren::test {

// The bearer token the double accepts, and how long a test waits at most: a safety net, as every wait ends
// on an event long before.
inline constexpr const char* kToken = "double-token";
inline constexpr std::chrono::seconds kSafety{60};

inline bool makeCertificate(const QString& certificate, const QString& key) {
    const QString openssl = QStandardPaths::findExecutable("openssl");
    if (openssl.isEmpty())
        return false;
    QProcess make;
    make.start(openssl, {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate});
    return make.waitForFinished(60000) && make.exitStatus() == QProcess::NormalExit && make.exitCode() == 0;
}

// A file's bytes; empty when it cannot be read.
inline std::string fileText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll().toStdString();
}

// The cluster client's options for the API double at url, trusting the CA at caPath, with its token, in ns.
inline kube::KubeClusterOptions doubleClusterOptions(const QString& url, const QString& caPath, const std::string& ns) {
    kube::KubeClusterOptions options;
    options.config.server = url.toStdString();
    options.config.caPem = fileText(caPath);
    options.config.token = kToken;
    options.config.namespaceName = ns;
    options.config.source = "the test's kubeconfig";
    return options;
}

// A kubeconfig as kubectl writes it, at path: the server, its CA by file (a relative path is the
// kubeconfig's directory's), a bearer token, and the current context's namespace. Its path; empty on failure.
inline QString writeKubeconfig(const QString& path, const QString& server, const QString& ca, const QString& token,
                               const QString& ns) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QString("apiVersion: v1\nkind: Config\nclusters:\n- name: double\n  cluster:\n    server: %1\n"
                       "    certificate-authority: %2\nusers:\n- name: tester\n  user:\n    token: %3\n"
                       "contexts:\n- name: double\n  context:\n    cluster: double\n    user: tester\n"
                       "    namespace: %4\ncurrent-context: double\n")
                   .arg(server, ca, token, ns)
                   .toUtf8());
    return path;
}

inline nlohmann::json podObject(const std::string& name) {
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"labels", {{"warren.sandbox/pod", name}}}}},
            {"spec",
             {{"restartPolicy", "Never"},
              {"automountServiceAccountToken", false},
              {"containers", nlohmann::json::array({{{"name", "sandbox"},
                                                     {"image", "localhost/warren-test:latest"},
                                                     {"command", {"/bin/true"}}}})}}}};
}

inline nlohmann::json secretObject(const std::string& name) {
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", name + "-token"}}},
            {"type", "Opaque"},
            {"stringData", {{"token", "task-token"}}}};
}

inline nlohmann::json networkPolicyObject(const std::string& name) {
    return {{"apiVersion", "networking.k8s.io/v1"},
            {"kind", "NetworkPolicy"},
            {"metadata", {{"name", name + "-egress"}}},
            {"spec",
             {{"podSelector", {{"matchLabels", {{"warren.sandbox/pod", name}}}}},
              {"policyTypes", {"Ingress", "Egress"}}}}};
}

inline nlohmann::json sandboxObject(const std::string& name) {
    const nlohmann::json pod = podObject(name);
    return {{"apiVersion", "agents.x-k8s.io/v1beta1"},
            {"kind", "Sandbox"},
            {"metadata", {{"name", name}}},
            {"spec", {{"podTemplate", {{"metadata", {{"labels", pod["metadata"]["labels"]}}}, {"spec", pod["spec"]}}}}}};
}

} // namespace warren::test
