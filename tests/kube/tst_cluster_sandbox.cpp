// The kubernetes backend (sandbox/cluster/ClusterSandbox) through prepareLaunch, as warren-sandbox runs it, against
// the API server DOUBLE (tests/support/KubeApiDouble: not a cluster; none can run here), over real TLS with a
// kubeconfig file naming the double's CA and token. The double serves agent-sandbox's CRD and plays its
// controller (the Sandbox's pod at once), so the sandbox is a Sandbox; two more doubles serve no CRD (a
// bare Pod) and play a controller that makes no pod until told. The double runs no pod: each test moves the pod through
// its phases as a kubelet would report them (and gives its log text), and checks what the sandbox reports,
// what reaches the stderr it was given, and that the double holds none of the test's objects afterwards (but
// for a detached sandbox, whose pod is left to the task's next launch, which rejoins a running one).
#include "sandbox/SandboxLaunch.h"
#include "sandbox/bwrap/SandboxSetup.h"
#include "sandbox/cluster/client/KubeCluster.h"
#include "tests/kube/KubeTestFiles.h"
#include "tests/support/KubeApiDouble.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

using namespace warren;
using namespace warren::sandbox;
using namespace warren::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

QString errorOf(const Error& error) { return QString::fromStdString(error.message); }

// A pipe for the sandbox's stderr: the test keeps the read end, the sandbox gets (and duplicates) the write end.
struct StderrPipe {
    int read = -1;
    int write = -1;
    StderrPipe() {
        int ends[2];
        if (::pipe2(ends, O_CLOEXEC) == 0) {
            read = ends[0];
            write = ends[1];
        }
    }
    ~StderrPipe() {
        closeWrite();
        if (read >= 0)
            ::close(read);
    }
    void closeWrite() {
        if (write >= 0)
            ::close(write);
        write = -1;
    }
    // Everything until every write end is closed: returns only once the sandbox has closed its copy.
    std::string readToEnd() const {
        std::string text;
        char buffer[4096];
        for (;;) {
            const ssize_t n = ::read(read, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return text;
            text.append(buffer, static_cast<std::size_t>(n));
        }
    }
};

json labelled(json object, const std::string& name, const std::string& task) {
    object["metadata"]["name"] = name;
    object["metadata"]["labels"] = {{"app.kubernetes.io/managed-by", "warren"}, {"warren.task", task}};
    return object;
}

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
    void theLogsTailReachesTheGivenStderrAfterTheEnd();
    void aLogThatCannotBeReadLeavesTheExitAsItWas();
    void whatAnEarlierRunOfTheTaskLeftIsRemovedFirst();
    void aRunningPodOfTheTaskIsRejoined();
    void anEndedPodIsNotRejoined();
    void aDetachedSandboxLeavesItsPodRunning();
    void aRunWithoutATaskLabelLooksForNothingLeft();
    void unreachableApiServerIsAClearError();
    void missingKubeconfigIsAClearError();
    void aCommandThatEndsBeforeItsPodIsReadyHasItsExitCode();
    void whereTheCrdIsNotServedABarePodIsCreated();
    void aPodTheControllerMakesLateIsFollowed();
    void aControllerThatMakesNoPodIsSetupFailedAtTheDeadline();

private:
    QString writeKubeconfig(const QString& name, const QString& server) const;
    SandboxRequest request(const std::string& ns, const QString& kubeconfig = {}) const;
    std::unique_ptr<RunningSandbox> started(const std::string& ns, int stderrFd = -1);
    std::unique_ptr<RunningSandbox> started(SandboxRequest request);
    std::string onlyPod(const std::string& ns) const;
    // The objects of a task's run whose launcher was killed (never removed), through a Sandbox or a bare Pod.
    void leaveObjects(const std::string& ns, const std::string& prefix, const std::string& task,
                      bool viaSandbox);

    QTemporaryDir m_dir;
    std::unique_ptr<KubeApiDouble> m_api;
    QString m_kubeconfig;
    std::unique_ptr<KubeApiDouble> m_bareApi; // no agent-sandbox CRD
    QString m_bareKubeconfig;
    std::unique_ptr<KubeApiDouble> m_idleApi; // the CRD, and a controller that makes pods only when told
    QString m_idleKubeconfig;
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
    m_bareApi = KubeApiDouble::start({m_dir.filePath("cert.pem"), m_dir.filePath("key.pem"), kToken, false}, &error);
    QVERIFY2(m_bareApi, qPrintable(error));
    m_bareKubeconfig = writeKubeconfig("bare-kubeconfig", m_bareApi->url());
    KubeApiDouble::Options idle{m_dir.filePath("cert.pem"), m_dir.filePath("key.pem"), kToken, true};
    idle.sandboxControllerMakesPods = false;
    m_idleApi = KubeApiDouble::start(idle, &error);
    QVERIFY2(m_idleApi, qPrintable(error));
    m_idleKubeconfig = writeKubeconfig("idle-kubeconfig", m_idleApi->url());
}

// A kubeconfig whose CA is named relative to it; a context namespace every test overrides with --namespace.
QString TestClusterSandbox::writeKubeconfig(const QString& name, const QString& server) const {
    return warren::test::writeKubeconfig(m_dir.filePath(name), server, "cert.pem", kToken, "unused");
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

std::unique_ptr<RunningSandbox> TestClusterSandbox::started(const std::string& ns, int stderrFd) {
    SandboxRequest asked = request(ns);
    asked.stdio.stderrFd = stderrFd;
    return started(std::move(asked));
}

std::unique_ptr<RunningSandbox> TestClusterSandbox::started(SandboxRequest asked) {
    auto launch = prepareLaunch(asked);
    if (!launch) {
        qWarning("prepare: %s", launch.error().message.c_str());
        return nullptr;
    }
    KubeApiDouble* api = asked.kubeconfig == m_bareKubeconfig.toStdString()   ? m_bareApi.get()
                         : asked.kubeconfig == m_idleKubeconfig.toStdString() ? m_idleApi.get()
                                                                               : m_api.get();
    const int watches = api->watchesOpened();
    auto sandbox = (*launch)->start();
    if (!sandbox) {
        qWarning("start: %s", sandbox.error().message.c_str());
        return nullptr;
    }
    // The sandbox's thread creates the objects, then watches its pod: once the watch is open, the pod is there.
    if (!api->waitForWatches(watches + 1, kSafety)) {
        qWarning("start: the sandbox did not watch its pod");
        return nullptr;
    }
    return std::move(*sandbox);
}

void TestClusterSandbox::leaveObjects(const std::string& ns, const std::string& prefix,
                                      const std::string& task, bool viaSandbox) {
    auto config = kube::loadKubeConfigFile(m_kubeconfig.toStdString());
    QVERIFY(config);
    kube::KubeClusterOptions options;
    options.config = *config;
    options.namespaceName = ns;
    auto earlier = kube::KubeCluster::connect(options);
    QVERIFY(earlier);
    json sandbox = labelled(sandboxObject(prefix + "-pod"), prefix + "-pod", task);
    sandbox["spec"]["podTemplate"]["metadata"]["labels"] =
        sandbox["metadata"]["labels"]; // its pod's, as warren's
    auto created = (*earlier)->create({labelled(podObject(prefix + "-pod"), prefix + "-pod", task),
                                       viaSandbox ? sandbox : json(),
                                       labelled(secretObject(prefix), prefix + "-token", task),
                                       labelled(networkPolicyObject(prefix), prefix + "-egress", task)});
    QVERIFY2(created, created ? "" : created.error().message.c_str());
    // Destroyed without removeAll: what a killed launcher leaves.
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
    // Through agent-sandbox's Sandbox: the pod is its controller's, of its name, with its template's labels.
    const auto sandboxes = m_api->created("sandboxes", ns);
    QCOMPARE(sandboxes.size(), std::size_t(1));
    QCOMPARE(sandboxes.front()["metadata"]["name"], json(name));
    QCOMPARE(sandboxes.front()["metadata"]["labels"]["warren.task"], json("t-" + ns));
    QCOMPARE((*pod)["metadata"]["ownerReferences"][0]["kind"], json("Sandbox"));
    QCOMPARE((*pod)["metadata"]["labels"]["warren.sandbox/pod"], json(name)); // what the NetworkPolicy selects
    QVERIFY(m_api->created("pods", ns).empty()); // no bare Pod was asked for
    // No control plane to reach: a NetworkPolicy that lets nothing in or out; no token, so no Secret.
    const auto policies = m_api->names("networkpolicies", ns);
    QCOMPARE(policies.size(), std::size_t(1));
    const auto policy = m_api->object("networkpolicies", ns, policies.front());
    QCOMPARE((*policy)["spec"]["podSelector"]["matchLabels"]["warren.sandbox/pod"], json(name));
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
    QVERIFY(m_api->requests().contains(
        QString::fromStdString("DELETE /apis/agents.x-k8s.io/v1beta1/namespaces/" + ns + "/sandboxes/" + name)));
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
    QCOMPARE(m_api->objectCount(ns), std::size_t(3)); // the Sandbox, its pod and the NetworkPolicy
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
                                 "not streamed", "warren-seccomp-",
                                 "where the cluster serves agents.x-k8s.io/v1beta1 (agent-sandbox's CRD), a Sandbox"})
        QVERIFY2(text.contains(expected), expected);
    QVERIFY(text.contains(m_api->url()));
    QCOMPARE(m_api->requests().size(), before);
    QVERIFY(m_api->names("pods", "explained").empty());
}

// The double serves the pod's log as the API server does (tailLines): the sandbox asks for its tail once the
// container has ended, writes it to the stderr it was given, and closes that before it says it has ended.
void TestClusterSandbox::theLogsTailReachesTheGivenStderrAfterTheEnd() {
    const std::string ns = "logged";
    std::string log;
    for (int i = 0; i < 1500; ++i)
        log += "line " + std::to_string(i) + "\n";
    m_api->setPodLogSource([ns, log](const std::string& from, const std::string&) -> std::optional<std::string> {
        return from == ns ? std::optional<std::string>(log) : std::nullopt;
    });
    StderrPipe stderrPipe;
    QVERIFY(stderrPipe.write >= 0);
    auto sandbox = started(ns, stderrPipe.write);
    QVERIFY(sandbox);
    stderrPipe.closeWrite(); // the sandbox holds its own copy
    const std::string name = onlyPod(ns);
    m_api->podRunning(ns, name, true);
    m_api->podEnded(ns, name, false, 3, "Error");
    const auto exit = sandbox->wait(kSafety);
    m_api->setPodLogSource({});
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::Exited);
    QCOMPARE(exit->exitCode, 3);
    const std::string received = stderrPipe.readToEnd(); // an end: the sandbox closed its copy
    QVERIFY2(received.rfind("line 500\n", 0) == 0, received.substr(0, 200).c_str()); // the last 1000 lines
    QVERIFY(received.size() > 9 && received.compare(received.size() - 10, 10, "line 1499\n") == 0);
    QVERIFY(m_api->requests().contains(QString::fromStdString("GET /api/v1/namespaces/" + ns + "/pods/" + name +
                                                              "/log?container=sandbox&limitBytes=1048576&tailLines=1000")));
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
}

void TestClusterSandbox::aLogThatCannotBeReadLeavesTheExitAsItWas() {
    const std::string ns = "unlogged"; // no log source: the double answers 400 "waiting to start"
    StderrPipe stderrPipe;
    auto sandbox = started(ns, stderrPipe.write);
    QVERIFY(sandbox);
    stderrPipe.closeWrite();
    const std::string name = onlyPod(ns);
    m_api->podRunning(ns, name, true);
    m_api->podEnded(ns, name, false, 7, "Error");
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::Exited);
    QCOMPARE(exit->exitCode, 7);
    QVERIFY(sandbox->setupFailureReport().empty());
    const QString received = QString::fromStdString(stderrPipe.readToEnd());
    QCOMPARE(received.count('\n'), 1);
    QVERIFY2(received.startsWith("warren: the pod's output is lost: reading the log of Pod unlogged/warren-") &&
                 received.contains("is waiting to start"),
             qPrintable(received));
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
}

// A launcher killed with kill -9 left its task's pod, Secret and policy: the task's next sandbox deletes them
// before it makes its own, and says so; another task's objects in the namespace are not touched.
void TestClusterSandbox::whatAnEarlierRunOfTheTaskLeftIsRemovedFirst() {
    const std::string ns = "swept";
    // The earlier run of this task went through a Sandbox (its controller made the pod); the other task's
    // through a bare Pod.
    leaveObjects(ns, "left", "t-" + ns, true);
    leaveObjects(ns, "other", "t-another-task", false);
    if (QTest::currentTestFailed())
        return;
    m_api->podRunning(ns, "left-pod", true); // it may still run
    QVERIFY(m_api->object("sandboxes", ns, "left-pod"));
    QCOMPARE(m_api->objectCount(ns), std::size_t(7));

    StderrPipe stderrPipe;
    auto sandbox = started(ns, stderrPipe.write);
    QVERIFY(sandbox);
    stderrPipe.closeWrite();
    QCOMPARE(m_api->names("pods", ns).size(), std::size_t(2));
    QVERIFY(!m_api->object("pods", ns, "left-pod"));
    QVERIFY(!m_api->object("sandboxes", ns, "left-pod"));
    QVERIFY(!m_api->object("secrets", ns, "left-token"));
    QVERIFY(!m_api->object("networkpolicies", ns, "left-egress"));
    for (const auto& [resource, name] : std::vector<std::pair<std::string, std::string>>{
             {"pods", "other-pod"}, {"secrets", "other-token"}, {"networkpolicies", "other-egress"}})
        QVERIFY2(m_api->object(resource, ns, name), name.c_str());
    std::string name;
    for (const auto& pod : m_api->names("pods", ns))
        if (pod != "other-pod")
            name = pod;
    m_api->podRunning(ns, name, true);
    m_api->podEnded(ns, name, true, 0, "Completed");
    QVERIFY(sandbox->wait(kSafety));
    const QString received = QString::fromStdString(stderrPipe.readToEnd());
    for (const char* removed : {"warren: removed Sandbox swept/left-pod left by an earlier run of task t-swept\n",
                                "warren: removed Secret swept/left-token left by an earlier run of task t-swept\n",
                                "warren: removed NetworkPolicy swept/left-egress left by an earlier run of task "
                                "t-swept\n"})
        QVERIFY2(received.contains(removed), qPrintable(received));
    QVERIFY(!received.contains("other"));
    QCOMPARE(m_api->objectCount(ns), std::size_t(3)); // the other task's, as they were
}

// A launch asked to rejoin (the control plane that made the task's pod died: SandboxRequest::rejoin) follows
// the task's pod that still runs: nothing is deleted or made; the pod's end is this launch's exit, and its
// objects are then deleted as if it had made them. Another task's are left alone.
void TestClusterSandbox::aRunningPodOfTheTaskIsRejoined() {
    const std::string ns = "rejoined";
    leaveObjects(ns, "left", "t-" + ns, true);
    leaveObjects(ns, "other", "t-another-task", false);
    if (QTest::currentTestFailed())
        return;
    m_api->podRunning(ns, "left-pod", true);
    const std::size_t created = m_api->created("pods", ns).size();

    StderrPipe stderrPipe;
    SandboxRequest asked = request(ns);
    asked.stdio.stderrFd = stderrPipe.write;
    asked.rejoin = true;
    auto sandbox = started(std::move(asked));
    QVERIFY(sandbox);
    stderrPipe.closeWrite();
    QCOMPARE(m_api->created("pods", ns).size(), created);
    QCOMPARE(m_api->objectCount(ns), std::size_t(7));
    m_api->podEnded(ns, "left-pod", false, 4, "Error");
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->exitCode, 4);
    const QString received = QString::fromStdString(stderrPipe.readToEnd());
    QVERIFY2(received.contains("warren: rejoined the Sandbox rejoined/left-pod through ") &&
                 received.contains(", left running by an earlier run of task t-rejoined\n"),
             qPrintable(received));
    QCOMPARE(m_api->objectCount(ns), std::size_t(3)); // the other task's, as they were
}

// Nothing of the task's runs (its pod ended, as when its node died): the launch asked to rejoin removes what
// was left and makes its own, as any launch.
void TestClusterSandbox::anEndedPodIsNotRejoined() {
    const std::string ns = "not-rejoined";
    leaveObjects(ns, "left", "t-" + ns, true);
    if (QTest::currentTestFailed())
        return;
    m_api->podEnded(ns, "left-pod", false, 137, "Error");
    SandboxRequest asked = request(ns);
    asked.rejoin = true;
    auto sandbox = started(std::move(asked));
    QVERIFY(sandbox);
    QVERIFY(!m_api->object("pods", ns, "left-pod"));
    QVERIFY(!m_api->object("secrets", ns, "left-token"));
    const std::string name = onlyPod(ns);
    QVERIFY(!name.empty());
    sandbox->kill();
    QVERIFY(sandbox->wait(kSafety));
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
}

// detach(): the launcher stops following its pod and leaves it and its objects to the task's next launch.
void TestClusterSandbox::aDetachedSandboxLeavesItsPodRunning() {
    const std::string ns = "detached";
    auto sandbox = started(ns);
    QVERIFY(sandbox);
    const std::string name = onlyPod(ns);
    m_api->podRunning(ns, name, true);
    QVERIFY(sandbox->detach());
    QVERIFY(sandbox->wait(kSafety));
    sandbox.reset();
    QVERIFY(m_api->object("pods", ns, name));
    QCOMPARE(m_api->objectCount(ns),
             std::size_t(3)); // the Sandbox, its pod and the policy (no token: no Secret)
    for (const QString& line : m_api->requests())
        QVERIFY2(!line.startsWith("DELETE ") || !line.contains("/namespaces/detached/"), qPrintable(line));
}

// warren-sandbox's own runs carry no task label: nothing is looked for, so nothing of anyone's is removed.
void TestClusterSandbox::aRunWithoutATaskLabelLooksForNothingLeft() {
    const std::string ns = "unlabelled";
    SandboxRequest asked = request(ns);
    asked.labels.clear();
    auto sandbox = started(std::move(asked));
    QVERIFY(sandbox);
    sandbox->kill();
    QVERIFY(sandbox->wait(kSafety));
    for (const QString& line : m_api->requests())
        QVERIFY2(!line.contains("/namespaces/unlabelled/") || !line.contains("labelSelector"), qPrintable(line));
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
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
    // The first call is the look for what an earlier run of the task left.
    QVERIFY2(message.contains("the kubernetes backend could not") && message.contains("namespace unreachable") &&
                 message.contains("cannot connect") && message.contains("127.0.0.1:1"),
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

// The pod ends before it is ever ready, so the Sandbox is never Ready: the end is still seen (the pod's),
// with the container's exit code.
void TestClusterSandbox::aCommandThatEndsBeforeItsPodIsReadyHasItsExitCode() {
    const std::string ns = "quick";
    auto sandbox = started(ns);
    QVERIFY(sandbox);
    const std::string name = onlyPod(ns);
    QVERIFY(m_api->object("sandboxes", ns, name));
    m_api->podEnded(ns, name, false, 5, "Error");
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::Exited);
    QCOMPARE(exit->exitCode, 5);
    QCOMPARE(m_api->created("sandboxes", ns).size(), std::size_t(1));
    QCOMPARE(m_api->objectCount(ns), std::size_t(0));
}

void TestClusterSandbox::whereTheCrdIsNotServedABarePodIsCreated() {
    const std::string ns = "bare";
    auto sandbox = started(request(ns, m_bareKubeconfig));
    QVERIFY(sandbox);
    const auto pods = m_bareApi->names("pods", ns);
    QCOMPARE(pods.size(), std::size_t(1));
    const std::string name = pods.front();
    QCOMPARE(m_bareApi->created("pods", ns).size(), std::size_t(1));
    QVERIFY(m_bareApi->created("sandboxes", ns).empty());
    m_bareApi->podEnded(ns, name, false, 3, "Error");
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::Exited);
    QCOMPARE(exit->exitCode, 3);
    QVERIFY(m_bareApi->requests().contains(
        QString::fromStdString("DELETE /api/v1/namespaces/" + ns + "/pods/" + name)));
    QCOMPARE(m_bareApi->objectCount(ns), std::size_t(0));
}

void TestClusterSandbox::aPodTheControllerMakesLateIsFollowed() {
    const std::string ns = "late";
    auto sandbox = started(request(ns, m_idleKubeconfig)); // returns once the watch of the absent pod is open
    QVERIFY(sandbox);
    const auto sandboxes = m_idleApi->names("sandboxes", ns);
    QCOMPARE(sandboxes.size(), std::size_t(1));
    const std::string name = sandboxes.front();
    QVERIFY(m_idleApi->names("pods", ns).empty());
    pollfd ended{sandbox->pidfd(), POLLIN, 0};
    QCOMPARE(::poll(&ended, 1, 200), 0); // the list that found no pod was not taken for its end
    QVERIFY(m_idleApi->makeSandboxPod(ns, name));
    m_idleApi->podRunning(ns, name, true);
    m_idleApi->podEnded(ns, name, true, 0, "Completed");
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::Exited);
    QCOMPARE(exit->exitCode, 0);
    QCOMPARE(m_idleApi->objectCount(ns), std::size_t(0));
}

void TestClusterSandbox::aControllerThatMakesNoPodIsSetupFailedAtTheDeadline() {
    const std::string ns = "no-pod";
    SandboxRequest asked = request(ns, m_idleKubeconfig);
    asked.kubePodAppearTimeout = 300ms;
    auto sandbox = started(std::move(asked));
    QVERIFY(sandbox);
    const auto exit = sandbox->wait(kSafety);
    QVERIFY(exit);
    QCOMPARE(exit->reason, SandboxExit::Reason::SetupFailed);
    const QString report = QString::fromStdString(sandbox->setupFailureReport());
    QVERIFY2(report.contains("did not start") && report.contains("NoPod") &&
                 report.contains("agent-sandbox's controller made no pod for Sandbox no-pod/warren-") &&
                 report.contains("within 300 ms") && report.contains("the Sandbox was deleted"),
             qPrintable(report));
    QCOMPARE(m_idleApi->created("sandboxes", ns).size(), std::size_t(1));
    QCOMPARE(m_idleApi->objectCount(ns), std::size_t(0));
}

QTEST_GUILESS_MAIN(TestClusterSandbox)
#include "tst_cluster_sandbox.moc"
