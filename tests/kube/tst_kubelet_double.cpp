// The kubelet DOUBLE (tests/support/KubeletDouble: not a kubelet; no cluster can run here) beside the API
// server DOUBLE: its pure parts row by row (where a pod's path is on the host, the command it runs, a
// secret volume's files), then pods created through the real cluster client over TLS, run as host
// processes: their exit code and phase, the token reaching the process, paths rewritten, deletion killing
// the process group, a mount or start failure reported as a kubelet does, and activeDeadlineSeconds.
#include "sandbox/cluster/client/KubeCluster.h"
#include "tests/kube/KubeTestFiles.h"
#include "tests/support/KubeApiDouble.h"
#include "tests/support/KubeletDouble.h"
#include "tests/support/PodCommand.h"
#include "tests/support/SecretVolume.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace warren;
using namespace warren::kube;
using namespace warren::test;
using nlohmann::json;
using namespace std::chrono_literals;
using Stage = KubeletDouble::Stage;

Q_DECLARE_METATYPE(json)
Q_DECLARE_METATYPE(std::string)

namespace {

constexpr const char* kTaskToken = "the-task-token";

// A pod shaped as KubeManifest's cluster variant renders it: the workspace an emptyDir at /workspace, /state
// a memory emptyDir, the task token a Secret volume (0440, one item) at /opt/warren/channel.
json clusterPod(const std::string& name, const json& command, const json& extraSpec = json::object()) {
    json spec = {
        {"restartPolicy", "Never"},
        {"automountServiceAccountToken", false},
        {"containers",
         json::array({{{"name", "sandbox"},
                       {"image", "localhost/warren-test:latest"},
                       {"command", command},
                       {"workingDir", "/workspace"},
                       {"env", json::array({{{"name", "HOME"}, {"value", "/state"}}})},
                       {"volumeMounts", json::array({{{"name", "workspace"}, {"mountPath", "/workspace"}},
                                                     {{"name", "state"}, {"mountPath", "/state"}},
                                                     {{"name", "token"},
                                                      {"mountPath", "/opt/warren/channel"},
                                                      {"readOnly", true}}})}}})},
        {"volumes", json::array({{{"name", "workspace"}, {"emptyDir", json::object()}},
                                 {{"name", "state"}, {"emptyDir", {{"medium", "Memory"}}}},
                                 {{"name", "token"},
                                  {"secret",
                                   {{"secretName", name + "-token"},
                                    {"defaultMode", 0440},
                                    {"items", json::array({{{"key", "token"}, {"path", "token"}}})}}}}})}};
    spec.update(extraSpec);
    return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

json tokenSecret(const std::string& name) {
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", name + "-token"}}},
            {"type", "Opaque"},
            {"stringData", {{"token", kTaskToken}}}};
}

} // namespace

class TestKubeletDouble : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void pathsUnderAMountAreOnItsHostDirectory_data();
    void pathsUnderAMountAreOnItsHostDirectory();
    void podCommandIsTheContainersOnTheHost();
    void podCommandOfAnUnmappedNameIsAnError();
    void secretVolumeFiles_data();
    void secretVolumeFiles();
    void exitCodeBecomesThePodsEnd_data();
    void exitCodeBecomesThePodsEnd();
    void tokenReachesTheProcessWithItsMode();
    void pathsAndWorkingDirAndEnvAreRewritten();
    void deletingThePodKillsItsProcessAndRemovesItsVolumes();
    void aProcessIgnoringSigtermIsKilledAfterTheGrace();
    void unknownCommandIsAStartError();
    void missingSecretIsAMountFailure();
    void activeDeadlineEndsThePod();
    void theSandboxControllersPodIsRun();
    void aReportForAnotherUidIsIgnored();

private:
    std::unique_ptr<KubeCluster> connected(const std::string& ns, bool useSandboxCrd = false);
    KubeCluster::WaitResult waitEnded(KubeCluster& cluster);

    QTemporaryDir m_dir;
    std::unique_ptr<KubeApiDouble> m_api;
    std::unique_ptr<KubeletDouble> m_kubelet;
};

void TestKubeletDouble::initTestCase() {
    QVERIFY(m_dir.isValid());
    if (QStandardPaths::findExecutable("openssl").isEmpty())
        QSKIP("needs openssl to make the double's certificate (packaging/install-deps.sh)");
    QVERIFY(makeCertificate(m_dir.filePath("cert.pem"), m_dir.filePath("key.pem")));
    QVERIFY(QDir(m_dir.path()).mkdir("scratch"));
    QString error;
    m_api =
        KubeApiDouble::start({m_dir.filePath("cert.pem"), m_dir.filePath("key.pem"), kToken, true}, &error);
    QVERIFY2(m_api, qPrintable(error));
    m_kubelet = std::make_unique<KubeletDouble>(
        *m_api, KubeletDouble::Options{m_dir.filePath("scratch").toStdString(), {{"sh", "/bin/sh"}}, 5s});
}

void TestKubeletDouble::cleanupTestCase() {
    m_kubelet.reset(); // before the API double it observes
    m_api.reset();
}

std::unique_ptr<KubeCluster> TestKubeletDouble::connected(const std::string& ns, bool useSandboxCrd) {
    KubeClusterOptions options = doubleClusterOptions(m_api->url(), m_dir.filePath("cert.pem"), ns);
    options.useSandboxCrd = useSandboxCrd;
    auto cluster = KubeCluster::connect(options);
    if (!cluster) {
        qWarning("%s", cluster.error().message.c_str());
        return nullptr;
    }
    return std::move(*cluster);
}

KubeCluster::WaitResult TestKubeletDouble::waitEnded(KubeCluster& cluster) {
    auto ended = cluster.waitFor(KubeCluster::Goal::Ended, KubeCluster::Clock::now() + kSafety);
    if (!ended) {
        qWarning("%s", ended.error().message.c_str());
        return {KubeCluster::Stop::TimedOut, {}};
    }
    return *ended;
}

void TestKubeletDouble::pathsUnderAMountAreOnItsHostDirectory_data() {
    QTest::addColumn<std::string>("path");
    QTest::addColumn<std::string>("expected");
    QTest::newRow("the mount point itself") << std::string("/workspace") << std::string("/h/ws");
    QTest::newRow("below it") << std::string("/workspace/a/b") << std::string("/h/ws/a/b");
    QTest::newRow("a sibling sharing the prefix")
        << std::string("/workspace2/x") << std::string("/workspace2/x");
    QTest::newRow("the longest mount wins")
        << std::string("/opt/warren/channel/token") << std::string("/h/token/token");
    QTest::newRow("the outer mount elsewhere") << std::string("/opt/warren/bin") << std::string("/h/opt/bin");
    QTest::newRow("under no mount") << std::string("/etc/passwd") << std::string("/etc/passwd");
    QTest::newRow("not a path") << std::string("--carry-trees") << std::string("--carry-trees");
    QTest::newRow("relative") << std::string("workspace/x") << std::string("workspace/x");
}

void TestKubeletDouble::pathsUnderAMountAreOnItsHostDirectory() {
    QFETCH(std::string, path);
    QFETCH(std::string, expected);
    const std::vector<HostMount> mounts = {
        {"/workspace", "/h/ws"}, {"/opt/warren", "/h/opt"}, {"/opt/warren/channel", "/h/token"}};
    QCOMPARE(onHost(path, mounts), expected);
}

void TestKubeletDouble::podCommandIsTheContainersOnTheHost() {
    json pod = clusterPod("p", {"warren-agent", "serve", "--workspace", "/workspace"});
    pod["spec"]["containers"][0]["args"] = {"--token-file", "/opt/warren/channel/token"};
    pod["spec"]["containers"][0]["env"].push_back({{"name", "FROM_REF"}, {"valueFrom", json::object()}});
    auto mounts = hostMounts(pod["spec"]["containers"][0],
                             {{"workspace", "/h/ws"}, {"state", "/h/state"}, {"token", "/h/token"}});
    QVERIFY(mounts);
    auto command = podCommand(pod, *mounts, {{"warren-agent", "/build/warren-agent"}}, "/usr/bin:/bin");
    QVERIFY2(command, command ? "" : command.error().message.c_str());
    QCOMPARE(command->executable, std::string("/build/warren-agent"));
    QCOMPARE(command->argv, (std::vector<std::string>{"warren-agent", "serve", "--workspace", "/h/ws",
                                                      "--token-file", "/h/token/token"}));
    QCOMPARE(command->workingDir, std::string("/h/ws"));
    // Plain values only (a valueFrom names nothing the double resolves), rewritten; PATH added.
    QCOMPARE(command->environment, (std::vector<std::string>{"HOME=/h/state", "PATH=/usr/bin:/bin"}));

    // An absolute command not in the map runs as is; a PATH the pod sets is kept.
    pod["spec"]["containers"][0]["command"] = {"/bin/true"};
    pod["spec"]["containers"][0]["env"] = {{{"name", "PATH"}, {"value", "/opt/bin"}}};
    command = podCommand(pod, *mounts, {}, "/usr/bin:/bin");
    QVERIFY(command);
    QCOMPARE(command->executable, std::string("/bin/true"));
    QCOMPARE(command->environment, std::vector<std::string>{"PATH=/opt/bin"});
}

void TestKubeletDouble::podCommandOfAnUnmappedNameIsAnError() {
    const json pod = clusterPod("p", {"not-mapped", "x"});
    auto command = podCommand(pod, {}, {{"warren-agent", "/a"}}, "/bin");
    QVERIFY(!command);
    QVERIFY2(command.error().message.find("executable file not found") != std::string::npos,
             command.error().message.c_str());
    // A mount of a volume the pod does not declare.
    QVERIFY(!hostMounts(pod["spec"]["containers"][0], {{"workspace", "/h/ws"}}));
}

void TestKubeletDouble::secretVolumeFiles_data() {
    QTest::addColumn<json>("source");
    QTest::addColumn<json>("secret");
    QTest::addColumn<json>("expected"); // [[path, content, mode]...] or a string: the error contains it
    const json meta = {{"name", "s"}, {"namespace", "n"}};
    QTest::newRow("data is base64, every key, 0644")
        << json::object() << json{{"metadata", meta}, {"data", {{"a", "aGVsbG8="}, {"b", ""}}}}
        << json{{"a", "hello", 0644}, {"b", "", 0644}};
    QTest::newRow("stringData as sent, defaultMode")
        << json{{"defaultMode", 0440}} << json{{"metadata", meta}, {"stringData", {{"token", "t"}}}}
        << json{{"token", "t", 0440}};
    QTest::newRow("stringData wins over data")
        << json::object()
        << json{{"metadata", meta}, {"data", {{"k", "b2xk"}}}, {"stringData", {{"k", "new"}}}}
        << json{{"k", "new", 0644}};
    QTest::newRow("items: only those keys, at their paths, with their modes")
        << json{{"defaultMode", 0440},
                {"items", {{{"key", "a"}, {"path", "dir/a"}}, {{"key", "b"}, {"path", "b"}, {"mode", 0400}}}}}
        << json{{"metadata", meta}, {"stringData", {{"a", "1"}, {"b", "2"}, {"c", "3"}}}}
        << json{{"dir/a", "1", 0440}, {"b", "2", 0400}};
    QTest::newRow("an item's missing key") << json{{"items", {{{"key", "x"}, {"path", "x"}}}}}
                                           << json{{"metadata", meta}, {"stringData", {{"a", "1"}}}}
                                           << json("couldn't find key x in Secret n/s");
    QTest::newRow("an item leaving the volume")
        << json{{"items", {{{"key", "a"}, {"path", "../a"}}}}}
        << json{{"metadata", meta}, {"stringData", {{"a", "1"}}}} << json("not a relative path");
    QTest::newRow("data that is not base64")
        << json::object() << json{{"metadata", meta}, {"data", {{"a", "!!"}}}} << json("not base64");
}

void TestKubeletDouble::secretVolumeFiles() {
    QFETCH(json, source);
    QFETCH(json, secret);
    QFETCH(json, expected);
    const auto files = warren::test::secretVolumeFiles(source, secret);
    if (expected.is_string()) {
        QVERIFY(!files);
        QVERIFY2(files.error().message.find(expected.get<std::string>()) != std::string::npos,
                 files.error().message.c_str());
        return;
    }
    QVERIFY2(files, files ? "" : files.error().message.c_str());
    json got = json::array();
    for (const auto& file : *files)
        got.push_back({file.path, file.content, file.mode});
    QCOMPARE(QString::fromStdString(got.dump()), QString::fromStdString(expected.dump()));
}

void TestKubeletDouble::exitCodeBecomesThePodsEnd_data() {
    QTest::addColumn<json>("command");
    QTest::addColumn<bool>("succeeded");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<std::string>("reason");
    QTest::newRow("exit 0 is Succeeded, Completed")
        << json{"/bin/true"} << true << 0 << std::string("Completed");
    QTest::newRow("exit 3 is Failed, Error")
        << json{"sh", "-c", "exit 3"} << false << 3 << std::string("Error");
    QTest::newRow("a signal is 128 + it")
        << json{"/bin/sh", "-c", "kill -KILL $$"} << false << 137 << std::string("Error");
}

void TestKubeletDouble::exitCodeBecomesThePodsEnd() {
    QFETCH(json, command);
    QFETCH(bool, succeeded);
    QFETCH(int, exitCode);
    QFETCH(std::string, reason);
    const std::string ns = "exit-" + std::to_string(exitCode);
    auto cluster = connected(ns);
    QVERIFY(cluster);
    const int ran = m_kubelet->podsRun();
    QVERIFY(cluster->create({clusterPod("p", command), json(), tokenSecret("p"), json()}).ok());
    const auto end = waitEnded(*cluster);
    QCOMPARE(end.stop, KubeCluster::Stop::Reached);
    QCOMPARE(end.state.progress, PodProgress::Ended);
    QCOMPARE(end.state.succeeded, succeeded);
    QCOMPARE(end.state.exitCode.value_or(-1), exitCode);
    QCOMPARE(end.state.reason, reason);
    QVERIFY(m_kubelet->waitFor(ns, "p", Stage::Ended, kSafety));
    QCOMPARE(m_kubelet->exitCode(ns, "p").value_or(-1), exitCode);
    QCOMPARE(m_kubelet->podsRun(), ran + 1);
    QVERIFY(!m_kubelet->processAlive(ns, "p"));
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QVERIFY(m_kubelet->waitFor(ns, "p", Stage::Removed, kSafety));
}

void TestKubeletDouble::tokenReachesTheProcessWithItsMode() {
    auto cluster = connected("token");
    QVERIFY(cluster);
    QVERIFY(cluster
                ->create({clusterPod("p", {"/bin/cat", "/opt/warren/channel/token"}), json(),
                          tokenSecret("p"), json()})
                .ok());
    const auto end = waitEnded(*cluster);
    QVERIFY(end.state.succeeded);
    QCOMPARE(m_kubelet->log("token", "p"), std::string(kTaskToken));
    // The file as the kubelet writes it: the item's path, the volume's defaultMode.
    struct stat info {};
    const std::string file = m_kubelet->volumeDir("token", "p", "token") + "/token";
    QCOMPARE(::stat(file.c_str(), &info), 0);
    QCOMPARE(int(info.st_mode & 07777), 0440);
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
}

void TestKubeletDouble::pathsAndWorkingDirAndEnvAreRewritten() {
    auto cluster = connected("paths");
    QVERIFY(cluster);
    // sh's script is one argument and stays as written; the paths after it are rewritten.
    const json command = {"/bin/sh", "-c", "pwd; echo \"$HOME\"; cp \"$0\" \"$1\"",
                          "/opt/warren/channel/token", "/workspace/copied"};
    QVERIFY(cluster->create({clusterPod("p", command), json(), tokenSecret("p"), json()}).ok());
    const auto end = waitEnded(*cluster);
    QVERIFY2(end.state.succeeded, m_kubelet->log("paths", "p").c_str());
    const QString workspace = QString::fromStdString(m_kubelet->volumeDir("paths", "p", "workspace"));
    const QString state = QString::fromStdString(m_kubelet->volumeDir("paths", "p", "state"));
    QCOMPARE(QString::fromStdString(m_kubelet->log("paths", "p")),
             QFileInfo(workspace).canonicalFilePath() + "\n" + state + "\n");
    QCOMPARE(fileText(workspace + "/copied"), std::string(kTaskToken));
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QVERIFY(m_kubelet->waitFor("paths", "p", Stage::Removed, kSafety));
    QVERIFY(!QFileInfo::exists(workspace));
}

void TestKubeletDouble::deletingThePodKillsItsProcessAndRemovesItsVolumes() {
    auto cluster = connected("delete");
    QVERIFY(cluster);
    QVERIFY(
        cluster->create({clusterPod("p", {"/bin/sleep", "1000"}), json(), tokenSecret("p"), json()}).ok());
    auto ready = cluster->waitFor(KubeCluster::Goal::Ready, KubeCluster::Clock::now() + kSafety);
    QVERIFY(ready);
    QCOMPARE(ready->state.progress, PodProgress::Ready);
    QVERIFY(m_kubelet->processAlive("delete", "p"));
    const QString workspace = QString::fromStdString(m_kubelet->volumeDir("delete", "p", "workspace"));
    QVERIFY(QFileInfo(workspace).isDir());

    QVERIFY(cluster->removeAll(std::nullopt, KubeCluster::Clock::now() + kSafety).ok());
    QVERIFY(m_kubelet->waitFor("delete", "p", Stage::Removed, kSafety));
    QVERIFY(!m_kubelet->processAlive("delete", "p"));
    QCOMPARE(m_kubelet->exitCode("delete", "p").value_or(-1), 128 + SIGTERM);
    QVERIFY(!QFileInfo::exists(workspace));
    QVERIFY(!m_api->object("pods", "delete", "p")); // and no phase reported brought it back
}

void TestKubeletDouble::aProcessIgnoringSigtermIsKilledAfterTheGrace() {
    // The test learns that the trap is set through a FIFO the process writes to, on a hostPath volume.
    QTemporaryDir sync;
    QVERIFY(sync.isValid());
    const std::string fifo = sync.filePath("ready").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    QVERIFY(reader >= 0);

    json pod = clusterPod(
        "p", {"/bin/sh", "-c", "trap '' TERM; echo ready > \"$0\"; exec /bin/sleep 1000", "/sync/ready"},
        {{"terminationGracePeriodSeconds", 1}});
    pod["spec"]["volumes"].push_back(
        {{"name", "sync"}, {"hostPath", {{"path", sync.path().toStdString()}, {"type", "Directory"}}}});
    pod["spec"]["containers"][0]["volumeMounts"].push_back({{"name", "sync"}, {"mountPath", "/sync"}});
    auto cluster = connected("grace");
    QVERIFY(cluster);
    QVERIFY(cluster->create({pod, json(), tokenSecret("p"), json()}).ok());
    pollfd fd{reader, POLLIN, 0};
    QCOMPARE(::poll(&fd, 1, int(std::chrono::milliseconds(kSafety).count())), 1);
    char word[16] = {};
    QVERIFY(::read(reader, word, sizeof word - 1) > 0);
    ::close(reader);
    QCOMPARE(std::string(word), std::string("ready\n"));

    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QVERIFY(m_kubelet->waitFor("grace", "p", Stage::Removed, kSafety));
    QCOMPARE(m_kubelet->exitCode("grace", "p").value_or(-1), 128 + SIGKILL);
    QVERIFY(QFileInfo::exists(sync.filePath("ready"))); // a hostPath is the host's and stays
}

void TestKubeletDouble::unknownCommandIsAStartError() {
    auto cluster = connected("unknown");
    QVERIFY(cluster);
    const int ran = m_kubelet->podsRun();
    QVERIFY(cluster->create({clusterPod("p", {"no-such-command"}), json(), tokenSecret("p"), json()}).ok());
    const auto end = waitEnded(*cluster);
    QCOMPARE(end.state.progress, PodProgress::Ended);
    QVERIFY(!end.state.succeeded);
    QCOMPARE(end.state.exitCode.value_or(-1), 128);
    QCOMPARE(end.state.reason, std::string("StartError"));
    QVERIFY(m_kubelet->waitFor("unknown", "p", Stage::Ended, kSafety));
    QVERIFY(m_kubelet->failure("unknown", "p").find("executable file not found") != std::string::npos);
    QCOMPARE(m_kubelet->podsRun(), ran);
    // An absolute path that does not exist fails the same way, at exec.
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QVERIFY(cluster->create({clusterPod("p", {"/no/such/binary"}), json(), tokenSecret("p"), json()}).ok());
    QCOMPARE(waitEnded(*cluster).state.reason, std::string("StartError"));
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
}

void TestKubeletDouble::missingSecretIsAMountFailure() {
    auto cluster = connected("mount");
    QVERIFY(cluster);
    QVERIFY(cluster->create({clusterPod("p", {"/bin/true"}), json(), json(), json()}).ok()); // no Secret
    QVERIFY(m_kubelet->waitFor("mount", "p", Stage::Ended, kSafety));
    QVERIFY(!m_kubelet->exitCode("mount", "p"));
    // As a kubelet leaves it: Pending, the container waiting in ContainerCreating, the mount's failure said.
    const auto pod = m_api->object("pods", "mount", "p");
    QVERIFY(pod);
    QCOMPARE((*pod)["status"]["phase"].get<std::string>(), std::string("Pending"));
    const json waiting = (*pod)["status"]["containerStatuses"][0]["state"]["waiting"];
    QCOMPARE(waiting["reason"].get<std::string>(), std::string("ContainerCreating"));
    QVERIFY2(waiting["message"].get<std::string>().find("secret \"p-token\" not found") != std::string::npos,
             waiting.dump().c_str());
    QCOMPARE(m_kubelet->failure("mount", "p"), waiting["message"].get<std::string>());
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QVERIFY(m_kubelet->waitFor("mount", "p", Stage::Removed, kSafety));
}

void TestKubeletDouble::activeDeadlineEndsThePod() {
    auto cluster = connected("deadline");
    QVERIFY(cluster);
    QVERIFY(cluster
                ->create({clusterPod("p", {"/bin/sleep", "1000"}, {{"activeDeadlineSeconds", 1}}), json(),
                          tokenSecret("p"), json()})
                .ok());
    const auto end = waitEnded(*cluster);
    QCOMPARE(end.state.progress, PodProgress::Ended);
    QVERIFY(!end.state.succeeded);
    QCOMPARE(end.state.reason, std::string("DeadlineExceeded"));
    QCOMPARE(end.state.exitCode.value_or(-1), 128 + SIGTERM);
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
}

void TestKubeletDouble::theSandboxControllersPodIsRun() {
    auto cluster = connected("sandbox", true);
    QVERIFY(cluster);
    const json pod = clusterPod("s", {"/bin/sleep", "1000"});
    const json sandbox = {{"apiVersion", "agents.x-k8s.io/v1beta1"},
                          {"kind", "Sandbox"},
                          {"metadata", {{"name", "s"}}},
                          {"spec", {{"podTemplate", {{"spec", pod["spec"]}}}}}};
    QVERIFY(cluster->create({pod, sandbox, tokenSecret("s"), json()}).ok());
    QVERIFY(cluster->usesSandboxCrd());
    auto ready = cluster->waitFor(KubeCluster::Goal::Ready, KubeCluster::Clock::now() + kSafety);
    QVERIFY(ready);
    QCOMPARE(ready->state.progress, PodProgress::Ready); // the pod's readiness, mirrored into the Sandbox
    QVERIFY(m_kubelet->processAlive("sandbox", "s"));
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok()); // deletes its pod too
    QVERIFY(m_kubelet->waitFor("sandbox", "s", Stage::Removed, kSafety));
    QCOMPARE(m_kubelet->exitCode("sandbox", "s").value_or(-1), 128 + SIGTERM);
}

// The guard the kubelet double relies on: a report naming another uid leaves the pod of that name alone.
void TestKubeletDouble::aReportForAnotherUidIsIgnored() {
    auto cluster = connected("uid");
    QVERIFY(cluster);
    QVERIFY(
        cluster->create({clusterPod("p", {"/bin/sleep", "1000"}), json(), tokenSecret("p"), json()}).ok());
    QVERIFY(m_kubelet->waitFor("uid", "p", Stage::Started, kSafety));
    const std::string version = (*m_api->object("pods", "uid", "p"))["metadata"]["resourceVersion"];
    m_api->podEnded("uid", "p", true, 0, "Completed", "another-uid");
    const auto pod = m_api->object("pods", "uid", "p");
    QCOMPARE((*pod)["metadata"]["resourceVersion"].get<std::string>(), version);
    QCOMPARE((*pod)["status"]["phase"].get<std::string>(), std::string("Running"));
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QVERIFY(m_kubelet->waitFor("uid", "p", Stage::Removed, kSafety));
}

QTEST_GUILESS_MAIN(TestKubeletDouble)
#include "tst_kubelet_double.moc"
