// The deployment manifests in packaging/kubernetes, read as a cluster would not check them: no cluster runs
// here, so what can be checked without one is checked against Warren's own code. warrend's arguments are
// accepted by warrend's own option parser and agree with its Service and ports; its kubeconfig is read by
// the cluster client's own reader and names the namespace its Role is in; the RoleBinding names the account
// warrend runs as; every pod runs non-root, without privilege escalation or capabilities, on a read-only
// root with the runtime's seccomp profile; the policy in front of warrend's agent port admits the pods the
// translator renders; nothing mounts a host path; and the replicas share their data directory, roll one at a
// time and are ready only with their database.

#include "sandbox/cluster/client/ClusterPermissions.h"
#include "sandbox/cluster/client/KubeConfig.h"
#include "sandbox/cluster/client/YamlDocument.h"
#include "sandbox/pod/KubeManifest.h"
#include "sandbox/policy/SandboxProfile.h"
#include "server/api/ServeOptions.h"

#include <QDir>
#include <QFile>
#include <QtTest>
#include <map>
#include <regex>
#include <set>

using namespace warren;
using nlohmann::json;

namespace {

QString manifestsDir() {
    return QDir(qEnvironmentVariable("WARREN_RESOURCES")).filePath(QStringLiteral("../packaging/kubernetes"));
}

// Every document of every manifest, "FILE: Kind/name" -> the document.
std::map<std::string, json> readManifests(QStringList* errors) {
    std::map<std::string, json> all;
    const QDir dir(manifestsDir());
    for (const QString& name : dir.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name)) {
        QFile file(dir.filePath(name));
        if (!file.open(QIODevice::ReadOnly)) {
            *errors << name + ": cannot be read";
            continue;
        }
        const QString text = QString::fromUtf8(file.readAll());
        for (const QString& part : text.split(QRegularExpression(QStringLiteral("^---$"),
                                                                 QRegularExpression::MultilineOption))) {
            auto document = kube::parseYaml(part.toStdString());
            if (!document) {
                *errors << name + ": " + QString::fromStdString(document.error().message);
                continue;
            }
            if (document->is_null())
                continue;
            const std::string key = document->value("kind", std::string("?")) + "/" +
                                    (*document)["metadata"].value("name", std::string("?"));
            all[key] = *document;
        }
    }
    return all;
}

const json& containerNamed(const json& podSpec, const std::string& name) {
    for (const json& container : podSpec["containers"])
        if (container.value("name", "") == name)
            return container;
    static const json none;
    return none;
}

int portNamed(const json& ports, const std::string& name, const char* field) {
    for (const json& port : ports)
        if (port.value("name", "") == name)
            return port.value(field, 0);
    return 0;
}

bool labelsMatch(const json& selector, const json& labels) {
    for (auto it = selector.begin(); it != selector.end(); ++it)
        if (!labels.contains(it.key()) || labels[it.key()] != it.value())
            return false;
    return true;
}

} // namespace

class TestDeployManifests : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QStringList errors;
        m_all = readManifests(&errors);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join('\n')));
        for (const char* key : {"Namespace/warren", "Namespace/warren-sandboxes", "ServiceAccount/warrend",
                                "Role/warrend-sandboxes", "RoleBinding/warrend-sandboxes", "Deployment/warrend",
                                "Service/warrend", "ConfigMap/warrend-kubeconfig", "NetworkPolicy/warrend",
                                "StatefulSet/postgres", "Service/postgres", "NetworkPolicy/postgres"})
            QVERIFY2(m_all.count(key) == 1, key);
    }

    void everyObjectIsNamedInOneOfTheTwoNamespaces() {
        for (const auto& [key, object] : m_all) {
            QVERIFY2(object.contains("apiVersion") && object.contains("kind"), key.c_str());
            const std::string ns = object["metadata"].value("namespace", "");
            if (object["kind"] == "Namespace") {
                // Pod Security Admission refuses a privileged pod in either, whoever creates it.
                QCOMPARE(object["metadata"]["labels"].value("pod-security.kubernetes.io/enforce", ""),
                         std::string("restricted"));
                continue;
            }
            QVERIFY2(ns == "warren" || ns == "warren-sandboxes", key.c_str());
        }
    }

    // The arguments are what warrend's own parser accepts, and they agree with the Service and the ports.
    void warrendsArgumentsAreItsOwn() {
        const json& deployment = m_all["Deployment/warrend"];
        const json& pod = deployment["spec"]["template"];
        const json& container = containerNamed(pod["spec"], "warrend");
        QVERIFY(container.is_object());
        QCOMPARE(container["args"][0], json("serve"));
        // $(VAR) is the kubelet's: each names a variable the container has.
        std::set<std::string> env;
        for (const json& variable : container["env"])
            env.insert(variable["name"].get<std::string>());
        for (const json& arg : container["args"]) {
            const std::string text = arg.get<std::string>();
            for (std::sregex_iterator it(text.begin(), text.end(), reference()), end; it != end; ++it)
                QVERIFY2(env.count((*it)[1].str()) == 1, (*it)[1].str().c_str());
        }
        auto options = warrendsOptions();
        QVERIFY2(options.ok(), options ? "" : options.error().message.c_str());
        QCOMPARE(options->backend, sandbox::Backend::Kubernetes);
        QCOMPARE(options->dataDir, std::string("/var/lib/warrend"));

        const json& service = m_all["Service/warrend"];
        QVERIFY(labelsMatch(service["spec"]["selector"], pod["metadata"]["labels"]));
        QVERIFY(labelsMatch(deployment["spec"]["selector"]["matchLabels"], pod["metadata"]["labels"]));
        const json& ports = container["ports"];
        QCOMPARE(options->port, portNamed(ports, "api", "containerPort"));
        QVERIFY(options->agentAddress.ends_with(":" + std::to_string(portNamed(ports, "agents", "containerPort"))));
        // Agents are told the replica's own pod address (its downward-API POD_IP): the replica running a task
        // holds its agent's token, which another replica behind the Service would refuse.
        QCOMPARE(options->agentAdvertise, "value:" + std::to_string(portNamed(ports, "agents", "containerPort")));
        bool podIp = false;
        for (const json& variable : container["env"])
            podIp |= variable["name"] == "POD_IP" &&
                     variable["valueFrom"]["fieldRef"].value("fieldPath", "") == "status.podIP";
        QVERIFY(podIp);
        for (const json& port : service["spec"]["ports"])
            QVERIFY(portNamed(ports, port["targetPort"].get<std::string>(), "containerPort") > 0);
        // The data directory is the volume, not the image's read-only root.
        bool dataMounted = false;
        for (const json& mount : container["volumeMounts"])
            dataMounted |= mount["mountPath"] == options->dataDir;
        QVERIFY(dataMounted);
    }

    // Two or more replicas over one data directory (a volume every replica mounts read-write), rolled one at
    // a time with a new one ready first, at least one kept through a voluntary disruption, and ready only
    // while it reaches the database (GET /v1/ready, a route that needs no key: docs/openapi.json).
    void replicasShareTheirDataAndOneStaysUp() {
        const json& deployment = m_all["Deployment/warrend"];
        QVERIFY(deployment["spec"].value("replicas", 0) >= 2);
        QCOMPARE(deployment["spec"]["strategy"].value("type", ""), std::string("RollingUpdate"));
        QCOMPARE(deployment["spec"]["strategy"]["rollingUpdate"].value("maxUnavailable", -1), 0);
        const json& claim = m_all["PersistentVolumeClaim/warrend-data"];
        QCOMPARE(claim["spec"]["accessModes"], json::array({"ReadWriteMany"}));
        const json& budget = m_all["PodDisruptionBudget/warrend"];
        QVERIFY(budget["spec"].value("minAvailable", 0) >= 1);
        QVERIFY(labelsMatch(budget["spec"]["selector"]["matchLabels"], deployment["spec"]["template"]["metadata"]["labels"]));
        const json& container = containerNamed(deployment["spec"]["template"]["spec"], "warrend");
        const std::string ready = container["readinessProbe"]["httpGet"].value("path", "");
        QCOMPARE(ready, std::string("/v1/ready"));
        QFile openapi(QDir(qEnvironmentVariable("WARREN_RESOURCES")).filePath(QStringLiteral("../docs/openapi.json")));
        QVERIFY(openapi.open(QIODevice::ReadOnly));
        const json spec = json::parse(openapi.readAll().toStdString());
        QVERIFY(spec["paths"].contains(ready));
        QCOMPARE(spec["paths"][ready]["get"]["security"], json::array());
    }

    // The cluster client reads warrend's kubeconfig, and it sends the sandboxes to the namespace warrend's
    // Role is in, as the account the RoleBinding names.
    void warrendsKubeconfigAndRoleAgree() {
        const json& pod = m_all["Deployment/warrend"]["spec"]["template"];
        const json& container = containerNamed(pod["spec"], "warrend");
        std::string path;
        for (const json& variable : container["env"])
            if (variable["name"] == "KUBECONFIG")
                path = variable["value"];
        QCOMPARE(path, std::string("/etc/warrend/kubeconfig"));
        const std::string text = m_all["ConfigMap/warrend-kubeconfig"]["data"]["kubeconfig"];
        const kube::FileReader serviceAccount = [](const std::string& file) -> Result<std::string> {
            if (file == std::string(kube::kServiceAccountDir) + "/token")
                return std::string("a-token");
            if (file == std::string(kube::kServiceAccountDir) + "/ca.crt")
                return std::string("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n");
            return makeError(ErrorCode::NotFound, file + ": not in the pod");
        };
        auto config = kube::parseKubeConfig(text, path, std::nullopt, serviceAccount);
        QVERIFY2(config.ok(), config ? "" : config.error().message.c_str());
        QCOMPARE(config->server, std::string("https://kubernetes.default.svc"));
        QCOMPARE(config->token, std::string("a-token"));
        QCOMPARE(config->namespaceName, m_all["Role/warrend-sandboxes"]["metadata"]["namespace"].get<std::string>());

        const json& subject = m_all["RoleBinding/warrend-sandboxes"]["subjects"][0];
        QCOMPARE(subject["name"].get<std::string>(), pod["spec"]["serviceAccountName"].get<std::string>());
        QCOMPARE(subject["namespace"], m_all["Deployment/warrend"]["metadata"]["namespace"]);
        QCOMPARE(subject["namespace"], m_all["ServiceAccount/warrend"]["metadata"]["namespace"]);
        QCOMPARE(m_all["RoleBinding/warrend-sandboxes"]["roleRef"]["name"], json("warrend-sandboxes"));
    }

    // The Role grants what the cluster client's calls need (kube::clusterClientPermissions), and nothing more.
    void theRoleGrantsWhatTheClientUsesAndNoMore() {
        std::set<std::string> granted, needed;
        for (const json& rule : m_all["Role/warrend-sandboxes"]["rules"])
            for (const json& group : rule["apiGroups"])
                for (const json& resource : rule["resources"])
                    for (const json& verb : rule["verbs"])
                        granted.insert(group.get<std::string>() + "|" + resource.get<std::string>() + "|" +
                                       verb.get<std::string>());
        for (const auto& permission : kube::clusterClientPermissions())
            for (const auto& verb : permission.verbs)
                needed.insert(permission.apiGroup + "|" + permission.resource + "|" + verb);
        QVERIFY(needed.count("|pods/log|get"));
        QVERIFY(needed.count("|pods|list"));
        std::string differences;
        for (const auto& row : needed)
            if (!granted.count(row))
                differences += "not granted: " + row + "\n";
        for (const auto& row : granted)
            if (!needed.count(row))
                differences += "granted but not used: " + row + "\n";
        QVERIFY2(differences.empty(), differences.c_str());
    }

    void everyPodIsUnprivileged() {
        for (const char* key : {"Deployment/warrend", "StatefulSet/postgres"}) {
            const json& spec = m_all[key]["spec"]["template"]["spec"];
            QVERIFY2(spec["securityContext"].value("runAsNonRoot", false), key);
            QCOMPARE(spec["securityContext"]["seccompProfile"]["type"], json("RuntimeDefault"));
            for (const json& volume : spec["volumes"])
                QVERIFY2(!volume.contains("hostPath"), key);
            for (const json& container : spec["containers"]) {
                const json& context = container["securityContext"];
                QVERIFY2(context.value("allowPrivilegeEscalation", true) == false, key);
                QVERIFY2(context.value("readOnlyRootFilesystem", false), key);
                QCOMPARE(context["capabilities"]["drop"], json::array({"ALL"}));
            }
        }
        // Only warrend talks to the cluster's API: PostgreSQL has no token.
        QCOMPARE(m_all["StatefulSet/postgres"]["spec"]["template"]["spec"]["automountServiceAccountToken"], json(false));
    }

    // warrend's agent port admits the sandbox pods as the translator renders them, in their namespace; the
    // database admits warrend alone.
    void thePoliciesAdmitWhoTheyMust() {
        const json base = {{"hostname", "box"}, {"workspace", {{"source", "/workspace"}}}};
        auto profile = sandbox::resolveProfile({base});
        QVERIFY(profile.ok());
        sandbox::KubeRequest request;
        request.name = "warren-1-abc";
        request.namespaceName = m_all["Role/warrend-sandboxes"]["metadata"]["namespace"];
        request.command = {"warren-agent", "serve"};
        request.seccompProfile = "warren-seccomp.json";
        request.user.uid = request.user.gid = 65532;
        // The sandbox pod's one way out is what warrend's --agent-peer names: its own pods, on its agents' port.
        auto options = warrendsOptions();
        QVERIFY2(options.ok(), options ? "" : options.error().message.c_str());
        QVERIFY(options->agentPeer);
        request.controlPlane = options->agentPeer;
        request.controlPlane->port = std::stoi(options->agentAddress.substr(options->agentAddress.rfind(':') + 1));
        auto rendered = sandbox::buildKubeManifests(*profile, request);
        QVERIFY2(rendered.ok(), rendered ? "" : rendered.error().message.c_str());
        const json& sandboxPod = rendered->pod;
        const json& warrendPod = m_all["Deployment/warrend"]["spec"]["template"];
        const json& way = rendered->networkPolicy["spec"]["egress"][0];
        QVERIFY(labelsMatch(way["to"][0]["podSelector"]["matchLabels"], warrendPod["metadata"]["labels"]));
        QCOMPARE(way["to"][0]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"],
                 m_all["Deployment/warrend"]["metadata"]["namespace"]);
        QCOMPARE(way["ports"][0]["port"].get<int>(),
                 portNamed(containerNamed(warrendPod["spec"], "warrend")["ports"], "agents", "containerPort"));

        bool admitted = false;
        for (const json& rule : m_all["NetworkPolicy/warrend"]["spec"]["ingress"]) {
            if (!rule.contains("from") || rule["ports"][0]["port"] != 8421)
                continue;
            for (const json& peer : rule["from"])
                admitted |= labelsMatch(peer["podSelector"]["matchLabels"], sandboxPod["metadata"]["labels"]) &&
                            peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"] ==
                                sandboxPod["metadata"]["namespace"];
        }
        QVERIFY(admitted);
        const json& database = m_all["NetworkPolicy/postgres"]["spec"]["ingress"][0]["from"][0]["podSelector"];
        QVERIFY(labelsMatch(database["matchLabels"], m_all["Deployment/warrend"]["spec"]["template"]["metadata"]["labels"]));
        QVERIFY(!labelsMatch(database["matchLabels"], sandboxPod["metadata"]["labels"]));
    }

private:
    // $(VAR) in an argument: the kubelet's, from the container's environment.
    static const std::regex& reference() {
        static const std::regex pattern(R"(\$\(([A-Z_]+)\))");
        return pattern;
    }

    // warrend's arguments as its own parser reads them, each $(VAR) a value.
    Result<server::ServeOptions> warrendsOptions() {
        const json& container = containerNamed(m_all["Deployment/warrend"]["spec"]["template"]["spec"], "warrend");
        std::vector<std::string> args = container["args"].get<std::vector<std::string>>();
        args.erase(args.begin()); // serve
        for (std::string& arg : args)
            arg = std::regex_replace(arg, reference(), "value");
        return server::parseServeOptions(args);
    }

    std::map<std::string, json> m_all;
};

QTEST_GUILESS_MAIN(TestDeployManifests)
#include "tst_deploy_manifests.moc"
