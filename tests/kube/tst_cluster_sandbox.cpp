// The kubernetes backend (sandbox/ClusterSandbox) through prepareLaunch, as warren-sandbox runs it, against
// the API server DOUBLE (tests/support/KubeApiDouble: not a cluster; none can run here), over real TLS with a
// kubeconfig file naming the double's CA and token. The double runs no pod: each test moves the pod through
// its phases as a kubelet would report them, and checks what the sandbox reports and that the double holds
// none of the test's objects afterwards.
#include "sandbox/SandboxLaunch.h"
#include "sandbox/SandboxSetup.h"
#include "tests/kube/KubeTestFiles.h"
#include "tests/support/KubeApiDouble.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <poll.h>

using namespace warren;
using namespace warren::sandbox;
using namespace warren::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

QString errorOf(const Error& error) { return QString::fromStdString(error.message); }

} // namespace

class TestClusterSandbox : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void podHasTheTranslatorsFieldsAndTheExitIsTheContainers_data();
    void podHasTheTranslatorsFieldsAndTheExitIsTheContainers();
    void stuckPodIsSetupFailedWithItsReason();
    void killDeletesEverything();
    void terminateDeletesEverything();
    void timeoutKillsAndDeletesEverything();
    void destroyingARunningSandboxDeletesEverything();
    void aWatchTheDoubleClosesStillSeesTheEnd();
    void explainAsksTheDoubleNothing();
    void unreachableApiServerIsAClearError();
    void missingKubeconfigIsAClearError();

private:
    QString writeKubeconfig(const QString& name, const QString& server) const;
    SandboxRequest request(const std::string& ns, const QString& kubeconfig = {}) const;
    std::unique_ptr<RunningSandbox> started(const std::string& ns);
    std::string onlyPod(const std::string& ns) const;

    QTemporaryDir m_dir;
    std::unique_ptr<KubeApiDouble> m_api;
    QString m_kubeconfig;
};

void TestClusterSandbox::initTestCase() {
    QVERIFY(m_dir.isValid());
    if (QStandardPaths::findExecutable("openssl").isEmpty())
        QSKIP("needs openssl to make the double's certificate (packaging/install-deps.sh)");
    QVERIFY(makeCertificate(m_dir.filePath("cert.pem"), m_dir.filePath("key.pem")));
    QVERIFY(QDir(m_dir.path()).mkdir("workspace"));
    QString error;
    m_api = KubeApiDouble::start({m_dir.filePath("cert.pem"), m_dir.filePath("key.pem"), kToken, true}, &error);
    QVERIFY2(m_api, qPrintable(error));
    m_kubeconfig = writeKubeconfig("kubeconfig", m_api->url());
    QVERIFY(!m_kubeconfig.isEmpty());
}

// A kubeconfig as kubectl writes it: the CA by file, a bearer token, a context with its own namespace (which
// every test overrides with --namespace).
QString TestClusterSandbox::writeKubeconfig(const QString& name, const QString& server) const {
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QString("apiVersion: v1\nkind: Config\nclusters:\n- name: double\n  cluster:\n    server: %1\n"
                       "    certificate-authority: cert.pem\nusers:\n- name: tester\n  user:\n    token: %2\n"
                       "contexts:\n- name: double\n  context:\n    cluster: double\n    user: tester\n"
                       "    namespace: unused\ncurrent-context: double\n")
                   .arg(server, kToken)
                   .toUtf8());
    return path;
}

SandboxRequest TestClusterSandbox::request(const std::string& ns, const QString& kubeconfig) const {
    SandboxRequest request;
    request.backend = Backend::Kubernetes;
    auto profile = resolveProfile(
        {defaultProfileJson(), json{{"workspace", {{"source", m_dir.filePath("workspace").toStdString()}}}}});
    if (profile)
        request.profile = std::move(*profile);
    request.command = {"sh", "-c", "exit 3"};
    request.image = "localhost/warren-test:latest";
    request.labels["warren.task"] = "t-" + ns;
    request.kubeconfig = (kubeconfig.isEmpty() ? m_kubeconfig : kubeconfig).toStdString();
    request.kubeNamespace = ns;
    return request;
}

std::unique_ptr<RunningSandbox> TestClusterSandbox::started(const std::string& ns) {
    auto launch = prepareLaunch(request(ns));
    if (!launch) {
        qWarning("prepare: %s", launch.error().message.c_str());
        return nullptr;
    }
    const int watches = m_api->watchesOpened();
    auto sandbox = (*launch)->start();
    if (!sandbox) {
        qWarning("start: %s", sandbox.error().message.c_str());
        return nullptr;
    }
    // The sandbox's thread creates the objects, then watches its pod: once the watch is open, the pod is there.
    if (!m_api->waitForWatches(watches + 1, kSafety)) {
        qWarning("start: the sandbox did not watch its pod");
        return nullptr;
    }
    return std::move(*sandbox);
}

std::string TestClusterSandbox::onlyPod(const std::string& ns) const {
    const auto pods = m_api->names("pods", ns);
    return pods.size() == 1 ? pods.front() : std::string();
}

void TestClusterSandbox::podHasTheTranslatorsFieldsAndTheExitIsTheContainers_data() {
    QTest::addColumn<bool>("succeeded");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("reason");
    QTest::newRow("exit-0") << true << 0 << "Completed";
    QTest::newRow("exit-3") << false << 3 << "Error";
    QTest::newRow("oom-killed") << false << 137 << "OOMKilled";
}

void TestClusterSandbox::podHasTheTranslatorsFieldsAndTheExitIsTheContainers() {
    QFETCH(bool, succeeded);
    QFETCH(int, exitCode);
    QFETCH(QString, reason);
    const std::string ns = QTest::currentDataTag();
    auto sandbox = started(ns);
    QVERIFY(sandbox);
    QCOMPARE(sandbox->backend(), Backend::Kubernetes);
    const std::string name = onlyPod(ns);
    QVERIFY2(name.rfind("warren-", 0) == 0, name.c_str());
    QVERIFY(QString::fromStdString(sandbox->commandLine()).contains(QString::fromStdString(ns + "/" + name)));

    // The cluster variant of KubeManifest: nothing of this host, no privilege, the request's labels.
    const auto pod = m_api->object("pods", ns, name);
    QVERIFY(pod);
    const json& spec = (*pod)["spec"];
    const json& container = spec["containers"][0];
    QCOMPARE(container["command"], (json{"sh", "-c", "exit 3"}));
    QCOMPARE(container["image"], json("localhost/warren-test:latest"));
    QCOMPARE(container["imagePullPolicy"], json("IfNotPresent"));
    QCOMPARE(container["securityContext"]["runAsNonRoot"], json(true));
    QCOMPARE(container["securityContext"]["capabilities"]["drop"], (json{"ALL"}));
    QCOMPARE(container["securityContext"]["readOnlyRootFilesystem"], json(true));
    QCOMPARE(spec["automountServiceAccountToken"], json(false));
    QCOMPARE(spec["restartPolicy"], json("Never"));
    QVERIFY(pod->dump().find("hostPath") == std::string::npos);
    QCOMPARE((*pod)["metadata"]["labels"]["warren.task"], json("t-" + ns));
    QCOMPARE((*pod)["metadata"]["namespace"], json(ns));
    // No control plane to reach: a NetworkPolicy that lets nothing in or out; no token, so no Secret.
    const auto policies = m_api->names("networkpolicies", ns);
    QCOMPARE(policies.size(), std::size_t(1));
    const auto policy = m_api->object("networkpolicies", ns, policies.front());
    QCOMPARE((*policy)["spec"]["egress"], json::array());
    QCOMPARE((*policy)["spec"]["ingress"], json::array());
    QVERIFY(m_api->names("secrets", ns).empty());

    m_api->podRunning(ns, name, true);
    m_api->podEnded(ns, name, succeeded, exitCode, reason.toStdString());
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::Exited);
    QCOMPARE(exit->exitCode, exitCode);
    QCOMPARE(exit->oomKilled, reason == "OOMKilled");
    // pidfd() became readable only once everything was deleted.
    pollfd ended{sandbox->pidfd(), POLLIN, 0};
    QCOMPARE(::poll(&ended, 1, 0), 1);
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
}

void TestClusterSandbox::stuckPodIsSetupFailedWithItsReason() {
    const std::string ns = "stuck";
    auto sandbox = started(ns);
    QVERIFY(sandbox);
    const std::string name = onlyPod(ns);
    m_api->podPending(ns, name, "ContainerCreating");
    m_api->podPending(ns, name, "ImagePullBackOff", "Back-off pulling image \"localhost/warren-test:latest\"");
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::SetupFailed);
    const QString report = QString::fromStdString(sandbox->setupFailureReport());
    QVERIFY2(report.contains("did not start") && report.contains("ImagePullBackOff") &&
                 report.contains("Back-off pulling image"),
             qPrintable(report));
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
}

void TestClusterSandbox::killDeletesEverything() {
    const std::string ns = "killed";
    auto sandbox = started(ns);
    QVERIFY(sandbox);
    const std::string name = onlyPod(ns);
    m_api->podRunning(ns, name, true);
    sandbox->kill();
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::Killed);
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
    QVERIFY(m_api->requests().contains(QString::fromStdString("DELETE /api/v1/namespaces/" + ns + "/pods/" + name)));
}

void TestClusterSandbox::terminateDeletesEverything() {
    const std::string ns = "terminated";
    auto sandbox = started(ns);
    QVERIFY(sandbox);
    m_api->podRunning(ns, onlyPod(ns), true);
    sandbox->terminate();
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::Signaled);
    QCOMPARE(exit->exitCode, 128 + SIGTERM);
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
}

// The pod never moves on the double: a zero timeout passes at once, and the sandbox is deleted.
void TestClusterSandbox::timeoutKillsAndDeletesEverything() {
    const std::string ns = "timed-out";
    auto sandbox = started(ns);
    QVERIFY(sandbox);
    const auto exit = sandbox->wait(0ms);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::TimedOut);
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
}

void TestClusterSandbox::destroyingARunningSandboxDeletesEverything() {
    const std::string ns = "destroyed";
    auto sandbox = started(ns);
    QVERIFY(sandbox);
    m_api->podRunning(ns, onlyPod(ns), true);
    QCOMPARE(m_api->objectCount(ns), std::size_t(2)); // the pod and its NetworkPolicy
    sandbox.reset();
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
}

void TestClusterSandbox::aWatchTheDoubleClosesStillSeesTheEnd() {
    const std::string ns = "dropped";
    const int watches = m_api->watchesOpened();
    auto sandbox = started(ns);
    QVERIFY(sandbox);
    const std::string name = onlyPod(ns);
    m_api->podRunning(ns, name, true);
    QVERIFY(m_api->waitForWatches(watches + 2, kSafety)); // until started, then until ended
    m_api->dropWatches();
    // The pod ends while no watch is open: the one reopened from the last version seen must still see it.
    m_api->podEnded(ns, name, false, 42, "Error");
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::Exited);
    QCOMPARE(exit->exitCode, 42);
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
}

void TestClusterSandbox::explainAsksTheDoubleNothing() {
    const qsizetype before = m_api->requests().size();
    SandboxRequest explained = request("explained");
    explained.explainOnly = true;
    auto launch = prepareLaunch(std::move(explained));
    QVERIFY2(launch, launch ? "" : launch.error().message.c_str());
    const QString text = QString::fromStdString((*launch)->explain());
    for (const char* expected : {"\"kind\": \"Pod\"", "\"kind\": \"NetworkPolicy\"", "\"namespace\": \"explained\"",
                                 "not streamed", "warren-seccomp-"})
        QVERIFY2(text.contains(expected), expected);
    QVERIFY(text.contains(m_api->url()));
    QCOMPARE(m_api->requests().size(), before);
    QVERIFY(m_api->names("pods", "explained").empty());
}

void TestClusterSandbox::unreachableApiServerIsAClearError() {
    const QString nobody = writeKubeconfig("nobody", "http://127.0.0.1:1");
    auto launch = prepareLaunch(request("unreachable", nobody));
    QVERIFY2(launch, launch ? "" : launch.error().message.c_str());
    auto sandbox = (*launch)->start(); // the objects are created on the sandbox's own thread
    QVERIFY(sandbox);
    const auto exit = (*sandbox)->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::SetupFailed);
    const QString message = QString::fromStdString((*sandbox)->setupFailureReport());
    QVERIFY2(message.contains("could not create the Pod unreachable/warren-") && message.contains("cannot connect") &&
                 message.contains("127.0.0.1:1"),
             qPrintable(message));
}

void TestClusterSandbox::missingKubeconfigIsAClearError() {
    const QString missing = m_dir.filePath("no-such-kubeconfig");
    auto launch = prepareLaunch(request("missing", missing));
    QVERIFY(!launch);
    const QString message = errorOf(launch.error());
    QVERIFY2(message.contains("cannot find its cluster") && message.contains(missing) &&
                 message.contains("--kubeconfig"),
             qPrintable(message));
}

QTEST_GUILESS_MAIN(TestClusterSandbox)
#include "tst_cluster_sandbox.moc"
