// KubeManifest: the Pod, the agent-sandbox Sandbox, the Secret and the NetworkPolicy for a profile, inspected
// field by field without a cluster, as tst_docker_command inspects the argv. Every document is also checked
// against the schema of the Kubernetes and agent-sandbox fields Warren writes (tests/fixtures/kube), so a
// misspelt or mistyped field fails here rather than on a cluster.

#include "sandbox/pod/KubeManifest.h"
#include "tests/support/StructuralSchema.h"

#include <QtTest>

using namespace warren;
using namespace warren::sandbox;
using nlohmann::json;

namespace {

const std::string kWorkspace = "/home/user/project";
const std::string kDataDir = "/run/warren/c1";

QString qs(const std::string& text) { return QString::fromStdString(text); }

Result<SandboxProfile> profileWith(const QString& patch) {
    const json base = {{"hostname", "box"}, {"workspace", {{"source", kWorkspace}}}, {"env", {{"PATH", "/usr/bin"}}}};
    return resolveProfile({base, json::parse(patch.toStdString())});
}

HostLookup fakeHost() {
    return [](const std::string& path) -> HostEntry {
        if (path == "/srv/data" || path == "/srv/state" || path == "/usr")
            return {HostEntry::Kind::Directory, {}};
        if (path == "/srv/tool")
            return {HostEntry::Kind::File, {}};
        if (path == "/compat")
            return {HostEntry::Kind::Symlink, "usr/compat"};
        return {};
    };
}

KubeRequest oneHostRequest() {
    KubeRequest r;
    r.name = "warren-42-abcdef";
    r.image = "localhost/warren-test:3";
    r.command = {"sh", "-c", "true"};
    r.seccompProfile = "warren-seccomp-0123456789abcdef.json";
    r.user.uid = 1000;
    r.user.gid = 1000;
    r.hostDataDir = kDataDir;
    r.workspaceHostPath = kWorkspace;
    return r;
}

KubeRequest clusterRequest() {
    KubeRequest r = oneHostRequest();
    r.namespaceName = "warren-sandboxes";
    r.hostDataDir.clear();
    r.workspaceHostPath.clear();
    r.runtimeClass = "gvisor";
    r.labels = {{"warren.task", "t-0001"}, {"warren.tenant", "acme"}};
    r.taskToken = "wt1.secret-token";
    r.tokenDir = "/opt/warren/channel";
    r.controlPlane = ControlPlanePeer{{{"app.kubernetes.io/name", "warrend"}}, "warren", 8443, ""};
    return r;
}

// Each mount of the container as "PATH <- SOURCE[ subPath S] ro|rw", SOURCE one of hostPath:PATH:TYPE,
// emptyDir[:MEDIUM:SIZE], secret:NAME.
QStringList mounts(const json& pod) {
    const json& spec = pod["spec"];
    std::map<std::string, json> volumes;
    for (const auto& volume : spec["volumes"])
        volumes[volume["name"].get<std::string>()] = volume;
    QStringList out;
    for (const auto& mount : spec["containers"][0]["volumeMounts"]) {
        const json& volume = volumes.at(mount["name"].get<std::string>());
        QString source;
        if (volume.contains("hostPath"))
            source = qs("hostPath:" + volume["hostPath"]["path"].get<std::string>() + ":" +
                        volume["hostPath"]["type"].get<std::string>());
        else if (volume.contains("secret"))
            source = qs("secret:" + volume["secret"]["secretName"].get<std::string>());
        else {
            source = QStringLiteral("emptyDir");
            const json& dir = volume["emptyDir"];
            if (dir.contains("medium"))
                source += qs(":" + dir["medium"].get<std::string>());
            if (dir.contains("sizeLimit"))
                source += qs(":" + dir["sizeLimit"].get<std::string>());
        }
        QString line = qs(mount["mountPath"].get<std::string>()) + " <- " + source;
        if (mount.contains("subPath"))
            line += qs(" subPath " + mount["subPath"].get<std::string>());
        out << line + (mount["readOnly"].get<bool>() ? " ro" : " rw");
    }
    return out;
}

QString joined(const std::vector<std::string>& lines) {
    QStringList out;
    for (const auto& line : lines)
        out << qs(line);
    return out.join(QStringLiteral("\n"));
}

const json& schema() {
    static const json loaded = [] {
        QFile file(qEnvironmentVariable("WARREN_TEST_DATA") + QStringLiteral("/kube/schema.json"));
        if (!file.open(QIODevice::ReadOnly))
            return json();
        return json::parse(file.readAll().toStdString(), nullptr, false);
    }();
    return loaded;
}

QStringList violations(const json& document) {
    QStringList out;
    const auto kindField = document.find("kind");
    const std::string kind = kindField != document.end() && kindField->is_string() ? kindField->get<std::string>() : "";
    if (!schema()["kinds"].contains(kind))
        return {qs("no schema for kind " + kind)};
    for (const auto& line : test::schemaViolations(document, schema()["kinds"][kind], schema()["definitions"]))
        out << qs(line);
    return out;
}

} // namespace

class TestKubeManifest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(schema().is_object(), "tests/fixtures/kube/schema.json is missing or not JSON"); }

    void noPrivilegeAndNoWayToGainAny() {
        const auto profile = profileWith("{}");
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, oneHostRequest(), fakeHost());
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        const json& spec = result->pod["spec"];
        QCOMPARE(spec["automountServiceAccountToken"], json(false));
        QCOMPARE(spec["enableServiceLinks"], json(false));
        QCOMPARE(spec["hostNetwork"], json(false));
        QCOMPARE(spec["hostPID"], json(false));
        QCOMPARE(spec["hostIPC"], json(false));
        QCOMPARE(spec["restartPolicy"], json("Never"));
        QCOMPARE(spec["shareProcessNamespace"], json(true)); // the command is not pid 1: signals reach it
        QCOMPARE(spec["hostname"], json("box"));
        const json seccomp{{"type", "Localhost"}, {"localhostProfile", "warren-seccomp-0123456789abcdef.json"}};
        QCOMPARE(spec["securityContext"],
                 (json{{"runAsNonRoot", true}, {"runAsUser", 1000}, {"runAsGroup", 1000}, {"seccompProfile", seccomp}}));
        const json& container = spec["containers"][0];
        QCOMPARE(container["securityContext"],
                 (json{{"runAsNonRoot", true},
                       {"runAsUser", 1000},
                       {"runAsGroup", 1000},
                       {"allowPrivilegeEscalation", false},
                       {"privileged", false},
                       {"readOnlyRootFilesystem", true},
                       {"capabilities", {{"drop", {"ALL"}}}},
                       {"seccompProfile", seccomp}}));
        QCOMPARE(container["command"], (json{"sh", "-c", "true"}));
        QCOMPARE(container["workingDir"], json("/workspace"));
        QCOMPARE(container["imagePullPolicy"], json("Never")); // one host: never pulled behind the user's back
        // podman reads seccomp from the annotation only.
        QCOMPARE(result->pod["metadata"]["annotations"]["container.seccomp.security.alpha.kubernetes.io/sandbox"],
                 json("localhost/warren-seccomp-0123456789abcdef.json"));
        QVERIFY(!spec.contains("runtimeClassName"));
        QVERIFY(!spec.contains("activeDeadlineSeconds"));
    }

    void labelsNameTheTaskAndThePod() {
        const auto profile = profileWith("{}");
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, clusterRequest(), fakeHost());
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        for (const json* document : {&result->pod, &result->sandbox, &result->secret, &result->networkPolicy}) {
            const json& labels = (*document)["metadata"]["labels"];
            QCOMPARE(labels["warren.task"], json("t-0001"));
            QCOMPARE(labels["warren.tenant"], json("acme"));
            QCOMPARE(labels["app.kubernetes.io/managed-by"], json("warren"));
            QCOMPARE(labels[kKubePodLabel], json("warren-42-abcdef"));
            QCOMPARE((*document)["metadata"]["namespace"], json("warren-sandboxes"));
        }
        QCOMPARE(result->pod["spec"]["runtimeClassName"], json("gvisor"));
        QCOMPARE(result->pod["spec"]["containers"][0]["imagePullPolicy"], json("IfNotPresent"));
    }

    void limits_data() {
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("expected"); // JSON; "absent" for no such field
        QTest::addColumn<QString>("notEnforced");
        QTest::addColumn<QString>("note");
        QTest::newRow("memory: limit and request alike")
            << "{\"limits\": {\"memory_mb\": 512}}" << "/spec/containers/0/resources"
            << "{\"limits\": {\"memory\": \"512Mi\"}, \"requests\": {\"memory\": \"512Mi\"}}" << "" << "";
        QTest::newRow("memory: none asked, none set")
            << "{\"limits\": {\"memory_mb\": 0}}" << "/spec/containers/0/resources" << "absent" << "" << "";
        QTest::newRow("timeout: the pod's deadline")
            << "{\"limits\": {\"timeout_sec\": 600}}" << "/spec/activeDeadlineSeconds" << "600" << "" << "";
        QTest::newRow("pids: no field in a Pod, said")
            << "{\"limits\": {\"pids\": 64}}" << "/spec/containers/0/resources" << "absent" << "" << "podPidsLimit";
        QTest::newRow("cpu seconds: no rlimits in a Pod")
            << "{\"limits\": {\"cpu_seconds\": 30}}" << "/spec/containers/0/resources" << "absent"
            << "limits.cpu_seconds" << "";
        QTest::newRow("file size: no rlimits in a Pod")
            << "{\"limits\": {\"file_size_mb\": 1}}" << "/spec/containers/0/resources" << "absent"
            << "limits.file_size_mb" << "";
        QTest::newRow("open files: no rlimits in a Pod")
            << "{\"limits\": {\"open_files\": 100}}" << "/spec/containers/0/resources" << "absent"
            << "limits.open_files" << "";
        QTest::newRow("address space: no rlimits in a Pod")
            << "{\"limits\": {\"address_space_mb\": 100}}" << "/spec/containers/0/resources" << "absent"
            << "limits.address_space_mb" << "";
    }
    void limits() {
        QFETCH(QString, patch);
        QFETCH(QString, pointer);
        QFETCH(QString, expected);
        QFETCH(QString, notEnforced);
        QFETCH(QString, note);
        const auto profile = profileWith(patch);
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, oneHostRequest(), fakeHost());
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        const json::json_pointer at(pointer.toStdString());
        if (expected == QStringLiteral("absent"))
            QVERIFY2(!result->pod.contains(at), result->pod.dump().c_str());
        else
            QCOMPARE(result->pod[at], json::parse(expected.toStdString()));
        if (!notEnforced.isEmpty())
            QVERIFY2(joined(result->notEnforced).contains(notEnforced), qPrintable(joined(result->notEnforced)));
        if (!note.isEmpty())
            QVERIFY2(joined(result->notes).contains(note), qPrintable(joined(result->notes)));
    }

    void mountsOnOneHost_data() {
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QStringList>("expected");
        QTest::addColumn<QString>("notEnforced");
        QTest::newRow("workspace: the host directory, writable")
            << "{}"
            << QStringList{"/etc/passwd <- hostPath:/run/warren/c1/passwd:File ro",
                           "/etc/group <- hostPath:/run/warren/c1/group:File ro",
                           "/workspace <- hostPath:/home/user/project:Directory rw"}
            << "";
        QTest::newRow("workspace: read-only")
            << "{\"workspace\": {\"writable\": false}}"
            << QStringList{"/workspace <- hostPath:/home/user/project:Directory ro"} << "";
        QTest::newRow("read-only bind")
            << "{\"mounts\": {\"/data\": {\"type\": \"ro-bind\", \"source\": \"/srv/data\"}}}"
            << QStringList{"/data <- hostPath:/srv/data:Directory ro"} << "";
        QTest::newRow("read-write bind of a file")
            << "{\"mounts\": {\"/opt/tool\": {\"type\": \"bind\", \"source\": \"/srv/tool\"}}}"
            << QStringList{"/opt/tool <- hostPath:/srv/tool:File rw"} << "";
        QTest::newRow("tmpfs: memory-backed, with its size")
            << "{\"mounts\": {\"/tmp\": {\"type\": \"tmpfs\", \"size_mb\": 64}}}"
            << QStringList{"/tmp <- emptyDir:Memory:64Mi rw"} << "";
        QTest::newRow("missing optional source is skipped")
            << "{\"mounts\": {\"/opt/x\": {\"type\": \"ro-bind\", \"source\": \"/opt/nothing\", \"optional\": true}}}"
            << QStringList{} << "";
        QTest::newRow("the host's /usr comes from the image")
            << "{\"mounts\": {\"/usr\": {\"type\": \"ro-bind\", \"source\": \"/usr\"}}}" << QStringList{} << "";
        QTest::newRow("a symlink cannot be created")
            << "{\"mounts\": {\"/opt/link\": {\"type\": \"symlink\", \"target\": \"usr/bin\"}}}" << QStringList{}
            << "/opt/link";
        QTest::newRow("a mirrored symlink cannot be created")
            << "{\"mounts\": {\"/compat\": {\"type\": \"mirror\", \"source\": \"/compat\"}}}" << QStringList{}
            << "/compat";
    }
    void mountsOnOneHost() {
        QFETCH(QString, patch);
        QFETCH(QStringList, expected);
        QFETCH(QString, notEnforced);
        const auto profile = profileWith(patch);
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, oneHostRequest(), fakeHost());
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        const QStringList actual = mounts(result->pod);
        for (const QString& line : expected)
            QVERIFY2(actual.contains(line), qPrintable(actual.join('\n')));
        const int fixed = 3; // passwd, group, workspace
        QCOMPARE(actual.size(), fixed + static_cast<int>(std::count_if(expected.begin(), expected.end(), [](const QString& l) {
                                    return !l.startsWith("/etc/") && !l.startsWith("/workspace ");
                                })));
        if (!notEnforced.isEmpty())
            QVERIFY2(joined(result->notEnforced).contains(notEnforced), qPrintable(joined(result->notEnforced)));
    }

    // podman makes a named volume of each emptyDir, shared by every pod that names it.
    void oneHostVolumeNamesAreThePods() {
        const auto profile = profileWith("{\"mounts\": {\"/tmp\": {\"type\": \"tmpfs\", \"size_mb\": 8}}}");
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, oneHostRequest(), fakeHost());
        QVERIFY(result);
        for (const auto& volume : result->pod["spec"]["volumes"])
            QVERIFY2(volume["name"].get<std::string>().rfind("warren-42-abcdef-", 0) == 0, volume.dump().c_str());
    }

    void protectedPathsAreMountedOverTheWorkspace_data() {
        QTest::addColumn<bool>("oneHost");
        QTest::addColumn<QStringList>("expected");
        QTest::addColumn<QString>("notEnforced");
        QTest::newRow("one host")
            << true
            << QStringList{"/workspace/.git <- hostPath:/home/user/project/.git: rw",
                           "/workspace/.git/config <- hostPath:/home/user/project/.git/config: ro",
                           "/workspace/.envrc <- hostPath:/run/warren/c1/empty:File ro",
                           "/workspace/.vscode <- emptyDir:4Ki ro"}
            << "";
        QTest::newRow("cluster: a file placeholder cannot be held")
            << false
            << QStringList{"/workspace/.git <- emptyDir subPath .git rw",
                           "/workspace/.git/config <- emptyDir subPath .git/config ro",
                           "/workspace/.vscode <- emptyDir:4Ki ro"}
            << ".envrc";
    }
    void protectedPathsAreMountedOverTheWorkspace() {
        QFETCH(bool, oneHost);
        QFETCH(QStringList, expected);
        QFETCH(QString, notEnforced);
        const auto profile = profileWith("{}");
        QVERIFY(profile);
        KubeRequest request = oneHost ? oneHostRequest() : clusterRequest();
        request.protection.entries = {{".git", ProtectionEntry::Kind::Pin},
                                      {".git/config", ProtectionEntry::Kind::ReadOnly},
                                      {".envrc", ProtectionEntry::Kind::PlaceholderFile},
                                      {".vscode", ProtectionEntry::Kind::PlaceholderDir}};
        const auto result = buildKubeManifests(*profile, request, fakeHost());
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        const QStringList actual = mounts(result->pod);
        for (const QString& line : expected)
            QVERIFY2(actual.contains(line), qPrintable(actual.join('\n')));
        if (!notEnforced.isEmpty())
            QVERIFY2(joined(result->notEnforced).contains(notEnforced), qPrintable(joined(result->notEnforced)));
    }

    void clusterHasNoHostPaths() {
        const auto profile = profileWith("{\"mounts\": {\"/opt/x\": {\"type\": \"ro-bind\", \"source\": \"/opt/nothing\", "
                                         "\"optional\": true}, \"/tmp\": {\"type\": \"tmpfs\", \"size_mb\": 8}}}");
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, clusterRequest(), fakeHost());
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        QCOMPARE(mounts(result->pod), (QStringList{"/tmp <- emptyDir:Memory:8Mi rw", "/workspace <- emptyDir rw",
                                                   "/opt/warren/channel <- secret:warren-42-abcdef-token ro"}));
        QVERIFY(result->files.empty());
        QVERIFY(result->pod.dump().find("hostPath") == std::string::npos);

        const auto bound = profileWith("{\"mounts\": {\"/data\": {\"type\": \"ro-bind\", \"source\": \"/srv/data\"}}}");
        QVERIFY(bound);
        const auto refused = buildKubeManifests(*bound, clusterRequest(), fakeHost());
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("/srv/data") != std::string::npos, refused.error().message.c_str());
        QVERIFY(refused.error().message.find("no cluster node") != std::string::npos);
    }

    void environmentAndTheTokenSecret() {
        const auto profile = profileWith("{\"env\": {\"LANG\": \"C.UTF-8\"}}");
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, clusterRequest(), fakeHost());
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        const json& env = result->pod["spec"]["containers"][0]["env"];
        QVERIFY(std::find(env.begin(), env.end(), json{{"name", "LANG"}, {"value", "C.UTF-8"}}) != env.end());
        // The token is a file of its Secret, where the agent's --token-file reads it: not in the environment
        // (the agent no longer reads WARREN_TASK_TOKEN), not in the pod spec.
        QVERIFY(result->pod.dump().find("WARREN_TASK_TOKEN") == std::string::npos);
        QVERIFY(result->pod.dump().find("wt1.secret-token") == std::string::npos); // only in the Secret
        QCOMPARE(result->secret["metadata"]["name"], json("warren-42-abcdef-token"));
        QCOMPARE(result->secret["metadata"]["namespace"], json("warren-sandboxes"));
        QCOMPARE(result->secret["type"], json("Opaque"));
        QCOMPARE(result->secret["stringData"], (json{{"token", "wt1.secret-token"}}));
        const json& spec = result->pod["spec"];
        const json* tokenVolume = nullptr;
        for (const auto& volume : spec["volumes"])
            if (volume.contains("secret"))
                tokenVolume = &volume;
        QVERIFY(tokenVolume);
        // 0440, root and the pod's fsGroup: the pod's non-root user reads it through its group, nobody writes.
        QCOMPARE((*tokenVolume)["secret"], (json{{"secretName", "warren-42-abcdef-token"},
                                                 {"defaultMode", 0440},
                                                 {"items", {{{"key", "token"}, {"path", "token"}}}}}));
        const json& volumeMounts = spec["containers"][0]["volumeMounts"];
        const json tokenMount{{"name", (*tokenVolume)["name"]}, {"mountPath", "/opt/warren/channel"}, {"readOnly", true}};
        QVERIFY2(std::find(volumeMounts.begin(), volumeMounts.end(), tokenMount) != volumeMounts.end(),
                 volumeMounts.dump().c_str());
        QCOMPARE(spec["securityContext"]["fsGroup"], json(1000));
        QCOMPARE(spec["securityContext"]["runAsGroup"], json(1000));
        QCOMPARE(result->sandbox["spec"]["podTemplate"]["spec"], spec); // the Sandbox mounts it the same way

        const auto withoutToken = buildKubeManifests(*profile, oneHostRequest(), fakeHost());
        QVERIFY(withoutToken);
        QVERIFY(withoutToken->secret.is_null());
        QVERIFY(withoutToken->pod.dump().find("\"secret\"") == std::string::npos);
        QVERIFY(!withoutToken->pod["spec"]["securityContext"].contains("fsGroup"));

        KubeRequest nowhere = clusterRequest();
        nowhere.tokenDir = "opt/warren/channel";
        const auto refused = buildKubeManifests(*profile, nowhere, fakeHost());
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("absolute directory") != std::string::npos,
                 refused.error().message.c_str());
    }

    void networkPolicyLetsThePodReachOnlyTheControlPlane() {
        const auto profile = profileWith("{}");
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, clusterRequest(), fakeHost());
        QVERIFY(result);
        const json& spec = result->networkPolicy["spec"];
        QCOMPARE(spec["podSelector"], (json{{"matchLabels", {{kKubePodLabel, "warren-42-abcdef"}}}}));
        QCOMPARE(spec["policyTypes"], (json{"Ingress", "Egress"}));
        QCOMPARE(spec["ingress"], json::array()); // nothing may connect to the pod
        QCOMPARE(spec["egress"].size(), std::size_t{2});
        QCOMPARE(spec["egress"][0],
                 (json{{"to",
                        {{{"podSelector", {{"matchLabels", {{"app.kubernetes.io/name", "warrend"}}}}},
                          {"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", "warren"}}}}}}}},
                       {"ports", {{{"protocol", "TCP"}, {"port", 8443}}}}}));
        // The cluster's DNS, to find the control plane's Service, and nothing else.
        QCOMPARE(spec["egress"][1]["to"][0]["podSelector"], (json{{"matchLabels", {{"k8s-app", "kube-dns"}}}}));
        QCOMPARE(spec["egress"][1]["ports"], (json{{{"protocol", "UDP"}, {"port", 53}}, {{"protocol", "TCP"}, {"port", 53}}}));

        const auto withoutPeer = buildKubeManifests(*profile, oneHostRequest(), fakeHost());
        QVERIFY(withoutPeer);
        QVERIFY(withoutPeer->networkPolicy.is_null()); // podman: --network none instead

        // On a cluster with no control plane to reach (warren-sandbox --backend kubernetes): nothing in or out.
        KubeRequest isolated = clusterRequest();
        isolated.controlPlane.reset();
        const auto alone = buildKubeManifests(*profile, isolated, fakeHost());
        QVERIFY(alone);
        const json& closed = alone->networkPolicy["spec"];
        QCOMPARE(closed["podSelector"], (json{{"matchLabels", {{kKubePodLabel, "warren-42-abcdef"}}}}));
        QCOMPARE(closed["policyTypes"], (json{"Ingress", "Egress"}));
        QCOMPARE(closed["ingress"], json::array());
        QCOMPARE(closed["egress"], json::array());
        QVERIFY2(joined(alone->notes).contains("lets nothing in or out"), qPrintable(joined(alone->notes)));

        // A control plane outside the cluster: its address block, on its port, and still the DNS.
        KubeRequest outside = clusterRequest();
        outside.controlPlane = ControlPlanePeer{{}, "", 8421, "192.0.2.10/32"};
        const auto byAddress = buildKubeManifests(*profile, outside, fakeHost());
        QVERIFY2(byAddress, byAddress ? "" : byAddress.error().message.c_str());
        const json& egress = byAddress->networkPolicy["spec"]["egress"];
        QCOMPARE(egress.size(), std::size_t{2});
        QCOMPARE(egress[0], (json{{"to", {{{"ipBlock", {{"cidr", "192.0.2.10/32"}}}}}},
                                  {"ports", {{{"protocol", "TCP"}, {"port", 8421}}}}}));

        // Neither pods nor a block, or both: refused, never a policy that lets the pod reach more.
        for (const ControlPlanePeer& wrong : {ControlPlanePeer{{}, "warren", 8421, ""},
                                              ControlPlanePeer{{{"app", "warrend"}}, "", 8421, "192.0.2.10/32"},
                                              ControlPlanePeer{{{"app", "warrend"}}, "", 0, ""}}) {
            KubeRequest bad = clusterRequest();
            bad.controlPlane = wrong;
            const auto refused = buildKubeManifests(*profile, bad, fakeHost());
            QVERIFY(!refused);
            QVERIFY2(refused.error().message.find("control plane peer") != std::string::npos,
                     refused.error().message.c_str());
        }
    }

    // warrend's --agent-peer: the control plane's pods or its address block, and what else is refused.
    void aControlPlanePeerIsReadFromItsText() {
        const auto pods = parseControlPlanePeer("warren/app.kubernetes.io/name=warrend,tier=server");
        QVERIFY2(pods, pods ? "" : pods.error().message.c_str());
        QCOMPARE(pods->namespaceName, std::string("warren"));
        QCOMPARE(pods->podLabels, (std::map<std::string, std::string>{{"app.kubernetes.io/name", "warrend"},
                                                                      {"tier", "server"}}));
        QVERIFY(pods->ipBlock.empty());
        const auto v4 = parseControlPlanePeer("10.0.3.7/32");
        QVERIFY(v4);
        QCOMPARE(v4->ipBlock, std::string("10.0.3.7/32"));
        QVERIFY(v4->podLabels.empty());
        const auto v6 = parseControlPlanePeer("fd00::7/128");
        QVERIFY(v6);
        QCOMPARE(v6->ipBlock, std::string("fd00::7/128"));
        for (const char* wrong : {"", "warrend", "warren/", "warren/app", "warren/=x", "warren/app=", "Warren/app=x",
                                  "warren/app=x,app=y", "warren/app=x y", "warren/-bad=x", "warren/a..b/c=x",
                                  "10.0.0.1/33", "10.0.0.1/", "10.0.0.1/x", "0.0.0.0/0", "::/0", "warren/app=x,"}) {
            const auto refused = parseControlPlanePeer(wrong);
            QVERIFY2(!refused, wrong);
            QVERIFY2(refused.error().message.find("expected NAMESPACE/KEY=VALUE") != std::string::npos,
                     refused.error().message.c_str());
        }
    }

    void sandboxCarriesThePodsSpec() {
        const auto profile = profileWith("{\"limits\": {\"memory_mb\": 256}}");
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, clusterRequest(), fakeHost());
        QVERIFY(result);
        QCOMPARE(result->sandbox["apiVersion"], json("agents.x-k8s.io/v1beta1"));
        QCOMPARE(result->sandbox["kind"], json("Sandbox"));
        QCOMPARE(result->sandbox["spec"]["podTemplate"]["spec"], result->pod["spec"]);
        QCOMPARE(result->sandbox["spec"]["podTemplate"]["metadata"]["labels"], result->pod["metadata"]["labels"]);
        QCOMPARE(result->sandbox["spec"]["service"], json(false)); // nothing connects to it
        QCOMPARE(result->sandbox["spec"]["operatingMode"], json("Running"));
    }

    void everyDocumentMatchesTheSchema_data() {
        QTest::addColumn<QString>("patch");
        QTest::addColumn<bool>("oneHost");
        QTest::newRow("the default profile, one host") << "{}" << true;
        QTest::newRow("the default profile, a cluster") << "{}" << false;
        QTest::newRow("every limit, tmpfs and binds, one host")
            << "{\"limits\": {\"memory_mb\": 512, \"pids\": 64, \"cpu_seconds\": 9, \"timeout_sec\": 60}, "
               "\"mounts\": {\"/tmp\": {\"type\": \"tmpfs\", \"size_mb\": 64}, \"/data\": {\"type\": \"ro-bind\", "
               "\"source\": \"/srv/data\"}}}"
            << true;
        QTest::newRow("every limit and tmpfs, a cluster")
            << "{\"limits\": {\"memory_mb\": 512, \"pids\": 64, \"timeout_sec\": 60}, \"mounts\": {\"/tmp\": "
               "{\"type\": \"tmpfs\", \"size_mb\": 64}}}"
            << false;
    }
    void everyDocumentMatchesTheSchema() {
        QFETCH(QString, patch);
        QFETCH(bool, oneHost);
        const auto profile = profileWith(patch);
        QVERIFY(profile);
        KubeRequest request = oneHost ? oneHostRequest() : clusterRequest();
        request.protection.entries = {{".git", ProtectionEntry::Kind::Pin},
                                      {".vscode", ProtectionEntry::Kind::PlaceholderDir}};
        const auto result = buildKubeManifests(*profile, request, fakeHost());
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        for (const json* document : {&result->pod, &result->sandbox, &result->secret, &result->networkPolicy}) {
            if (document->is_null())
                continue;
            const QStringList found = violations(*document);
            QVERIFY2(found.isEmpty(), qPrintable(found.join('\n')));
        }
    }

    // The check can fail: a misspelt field, a wrong type and a value outside an enum are each caught.
    void theSchemaCatchesWhatACheckShould() {
        const auto profile = profileWith("{}");
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, oneHostRequest(), fakeHost());
        QVERIFY(result);
        json pod = result->pod;
        pod["spec"]["containers"][0]["securityContext"]["readOnlyRootFileSystem"] = true;
        pod["spec"]["automountServiceAccountToken"] = "false";
        pod["spec"]["restartPolicy"] = "Sometimes";
        pod["spec"]["containers"][0].erase("name");
        const QString found = violations(pod).join('\n');
        QVERIFY2(found.contains("spec.containers[0].securityContext.readOnlyRootFileSystem: not a field"), qPrintable(found));
        QVERIFY2(found.contains("spec.automountServiceAccountToken: expected boolean"), qPrintable(found));
        QVERIFY2(found.contains("spec.restartPolicy: \"Sometimes\" is not one of"), qPrintable(found));
        QVERIFY2(found.contains("spec.containers[0].name: required"), qPrintable(found));
    }

    void badRequestsAreRefused_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("a name that is not a DNS label") << "name" << "warren-Abc" << "pod name";
        QTest::newRow("a name without the prefix") << "name" << "sandbox-1" << "pod name";
        QTest::newRow("a name too long") << "name" << QString("warren-") + QString(60, 'a') << "pod name";
        QTest::newRow("a label value with a colon") << "label" << "host:1:2" << "label warren.task";
        QTest::newRow("a runtime class that is not a DNS label") << "runtimeClass" << "G Visor" << "runtime class";
        QTest::newRow("root") << "uid" << "0" << "root";
        QTest::newRow("no seccomp profile") << "seccomp" << "" << "seccomp";
        QTest::newRow("no command") << "command" << "" << "no command";
    }
    void badRequestsAreRefused() {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, message);
        const auto profile = profileWith("{}");
        QVERIFY(profile);
        KubeRequest request = oneHostRequest();
        const std::string v = value.toStdString();
        if (field == "name")
            request.name = v;
        else if (field == "label")
            request.labels["warren.task"] = v;
        else if (field == "runtimeClass")
            request.runtimeClass = v;
        else if (field == "uid")
            request.user.uid = 0;
        else if (field == "seccomp")
            request.seccompProfile = v;
        else if (field == "command")
            request.command.clear();
        const auto result = buildKubeManifests(*profile, request, fakeHost());
        QVERIFY(!result);
        QVERIFY2(qs(result.error().message).contains(message), result.error().message.c_str());
    }

    void aHostnameMustBeADnsLabel() {
        const auto profile = profileWith("{\"hostname\": \"-box-\"}");
        QVERIFY(profile);
        const auto result = buildKubeManifests(*profile, oneHostRequest(), fakeHost());
        QVERIFY(!result);
        QVERIFY2(qs(result.error().message).contains("hostname"), result.error().message.c_str());
    }

    void theSeccompFileIsNamedByItsContent() {
        const std::string a = kubeSeccompProfileName("{\"defaultAction\": \"SCMP_ACT_ALLOW\"}");
        const std::string b = kubeSeccompProfileName("{\"defaultAction\": \"SCMP_ACT_ERRNO\"}");
        QVERIFY(a != b);
        QCOMPARE(a, kubeSeccompProfileName("{\"defaultAction\": \"SCMP_ACT_ALLOW\"}"));
        QVERIFY(a.rfind("warren-seccomp-", 0) == 0 && a.size() == std::string("warren-seccomp-.json").size() + 16);
        QVERIFY(a.find('/') == std::string::npos);
    }

    void yamlDocumentsSkipTheAbsent() {
        const std::string yaml = kubeYaml({json{{"kind", "Pod"}}, json(), json{{"kind", "Secret"}}});
        QCOMPARE(qs(yaml), QStringLiteral("{\n  \"kind\": \"Pod\"\n}\n---\n{\n  \"kind\": \"Secret\"\n}\n"));
    }
};

QTEST_GUILESS_MAIN(TestKubeManifest)
#include "tst_kube_manifest.moc"
