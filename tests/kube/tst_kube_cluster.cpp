// KubeCluster against the API server double (tests/support/KubeApiDouble: not a cluster, none can run
// here), over real TLS with a certificate made by openssl: create, watch until ready from the create's
// resourceVersion, 410 -> relist, bookmarks advance the version, a closed watch resumes without missing the
// change, deletion leaves nothing, the Sandbox CRD, interruption, and the errors a user sees.
#include "sandbox/cluster/client/KubeCluster.h"
#include "tests/kube/KubeTestFiles.h"
#include "tests/support/KubeApiDouble.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <future>
#include <sys/eventfd.h>
#include <unistd.h>

using namespace warren;
using namespace warren::kube;
using namespace warren::test;
using nlohmann::json;
using namespace std::chrono_literals;

class TestKubeCluster : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void createsWatchesFromTheCreateAndRemovesEverything();
    void relistsAfterGone();
    void bookmarksAdvanceTheVersion();
    void aClosedWatchResumesWithoutMissingTheEnd();
    void aStuckPodIsReportedWithItsReason();
    void usesTheSandboxCrdWhereServed();
    void withASandboxStartedAndEndedAreThePods();
    void aPodTheControllerMakesLateIsWaitedFor();
    void aControllerThatMakesNoPodIsStuckAtTheDeadline();
    void waitingCanBeInterrupted();
    void errorsAreReadable();

private:
    KubeClusterOptions options(const std::string& ns) const;
    std::unique_ptr<KubeCluster> connected(const std::string& ns);
    ClusterObjects objects(const std::string& name) const;
    QString lastWatch() const;

    QTemporaryDir m_dir;
    std::unique_ptr<KubeApiDouble> m_api;
    std::unique_ptr<KubeApiDouble> m_idleApi; // its Sandbox controller makes pods only when told
};

void TestKubeCluster::initTestCase() {
    QVERIFY(m_dir.isValid());
    if (QStandardPaths::findExecutable("openssl").isEmpty())
        QSKIP("needs openssl to make the double's certificate (packaging/install-deps.sh)");
    QVERIFY(makeCertificate(m_dir.filePath("cert.pem"), m_dir.filePath("key.pem")));
    QVERIFY(makeCertificate(m_dir.filePath("other-cert.pem"), m_dir.filePath("other-key.pem")));
    QString error;
    m_api = KubeApiDouble::start({m_dir.filePath("cert.pem"), m_dir.filePath("key.pem"), kToken, true}, &error);
    QVERIFY2(m_api, qPrintable(error));
    QVERIFY(m_api->url().startsWith("https://127.0.0.1:"));
    KubeApiDouble::Options idle{m_dir.filePath("cert.pem"), m_dir.filePath("key.pem"), kToken, true};
    idle.sandboxControllerMakesPods = false;
    m_idleApi = KubeApiDouble::start(idle, &error);
    QVERIFY2(m_idleApi, qPrintable(error));
}

KubeClusterOptions TestKubeCluster::options(const std::string& ns) const {
    KubeClusterOptions options = doubleClusterOptions(m_api->url(), m_dir.filePath("cert.pem"), ns);
    options.callTimeout = 30s;
    return options;
}

std::unique_ptr<KubeCluster> TestKubeCluster::connected(const std::string& ns) {
    auto cluster = KubeCluster::connect(options(ns));
    if (!cluster) {
        qWarning("%s", cluster.error().message.c_str());
        return nullptr;
    }
    return std::move(*cluster);
}

ClusterObjects TestKubeCluster::objects(const std::string& name) const {
    return {podObject(name), json(), secretObject(name), networkPolicyObject(name)};
}

QString TestKubeCluster::lastWatch() const {
    const QStringList requests = m_api->requests();
    for (auto it = requests.rbegin(); it != requests.rend(); ++it)
        if (it->contains("watch=1"))
            return *it;
    return {};
}

void TestKubeCluster::createsWatchesFromTheCreateAndRemovesEverything() {
    auto cluster = connected("one");
    QVERIFY(cluster);
    QVERIFY(cluster->create(objects("warren-a")).ok());
    QVERIFY(!cluster->usesSandboxCrd()); // the ClusterObjects carry no Sandbox
    QCOMPARE(m_api->objectCount("one"), std::size_t(3));
    const auto pod = m_api->object("pods", "one", "warren-a");
    QVERIFY(pod);
    const std::string createdVersion = (*pod)["metadata"]["resourceVersion"];
    const int watches = m_api->watchesOpened();

    auto ready = std::async(std::launch::async, [&] { return cluster->waitFor(KubeCluster::Goal::Ready, std::nullopt); });
    QVERIFY(m_api->waitForWatches(watches + 1, kSafety));
    QVERIFY2(lastWatch().contains("resourceVersion=" + QString::fromStdString(createdVersion)), qPrintable(lastWatch()));
    QVERIFY(lastWatch().contains("allowWatchBookmarks=true"));
    QVERIFY(lastWatch().contains("fieldSelector=metadata.name=warren-a"));
    m_api->podRunning("one", "warren-a", false);
    m_api->podRunning("one", "warren-a", true);
    QCOMPARE(ready.wait_for(kSafety), std::future_status::ready);
    auto reached = ready.get();
    QVERIFY2(reached.ok(), reached.ok() ? "" : reached.error().message.c_str());
    QCOMPARE(reached->stop, KubeCluster::Stop::Reached);
    QCOMPARE(reached->state.progress, PodProgress::Ready);

    auto ended = std::async(std::launch::async, [&] { return cluster->waitFor(KubeCluster::Goal::Ended, std::nullopt); });
    QVERIFY(m_api->waitForWatches(watches + 2, kSafety));
    m_api->podEnded("one", "warren-a", false, 3, "Error");
    QCOMPARE(ended.wait_for(kSafety), std::future_status::ready);
    auto end = ended.get();
    QVERIFY(end.ok());
    QCOMPARE(end->state.progress, PodProgress::Ended);
    QCOMPARE(end->state.exitCode.value_or(-1), 3);

    const Status removed = cluster->removeAll(std::nullopt, KubeCluster::Clock::now() + kSafety);
    QVERIFY2(removed.ok(), removed.ok() ? "" : removed.error().message.c_str());
    QCOMPARE(m_api->objectCount("one"), std::size_t(0));
    QVERIFY(cluster->leftBehind().empty());
    // Each deletion was checked with a GET the double answered 404 for.
    const QStringList requests = m_api->requests();
    for (const char* path : {"/api/v1/namespaces/one/pods/warren-a", "/api/v1/namespaces/one/secrets/warren-a-token",
                             "/apis/networking.k8s.io/v1/namespaces/one/networkpolicies/warren-a-egress"}) {
        QVERIFY2(requests.contains(QString("DELETE ") + path), path);
        QVERIFY2(requests.lastIndexOf(QString("GET ") + path) > requests.lastIndexOf(QString("DELETE ") + path), path);
    }
}

void TestKubeCluster::relistsAfterGone() {
    auto cluster = connected("two");
    QVERIFY(cluster);
    QVERIFY(cluster->create(objects("warren-b")).ok());
    // The cluster moves on and compacts: the create's version is too old to watch from.
    m_api->touchOther("two");
    m_api->compact();
    const int watches = m_api->watchesOpened();
    auto ready = std::async(std::launch::async, [&] { return cluster->waitFor(KubeCluster::Goal::Ready, std::nullopt); });
    QVERIFY(m_api->waitForWatches(watches + 2, kSafety)); // the refused one, then the one from the list
    QVERIFY2(lastWatch().contains("resourceVersion=" + QString::fromStdString(m_api->resourceVersion())),
             qPrintable(lastWatch()));
    m_api->podRunning("two", "warren-b", true);
    QCOMPARE(ready.wait_for(kSafety), std::future_status::ready);
    auto reached = ready.get();
    QVERIFY(reached.ok());
    QCOMPARE(reached->state.progress, PodProgress::Ready);
    QCOMPARE(cluster->counters().relists, 1);
    QVERIFY(m_api->requests().contains("GET /api/v1/namespaces/two/pods?fieldSelector=metadata.name=warren-b"));
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QCOMPARE(m_api->objectCount("two"), std::size_t(1)); // the unrelated "other" Secret only
}

void TestKubeCluster::bookmarksAdvanceTheVersion() {
    auto cluster = connected("three");
    QVERIFY(cluster);
    QVERIFY(cluster->create(objects("warren-c")).ok());
    const int watches = m_api->watchesOpened();
    auto ready = std::async(std::launch::async, [&] { return cluster->waitFor(KubeCluster::Goal::Ready, std::nullopt); });
    QVERIFY(m_api->waitForWatches(watches + 1, kSafety));
    m_api->touchOther("three");
    const std::string bookmarked = m_api->resourceVersion();
    m_api->bookmark();
    // Compacted up to the bookmark: only a client that kept the bookmark's version resumes without a 410.
    m_api->compact();
    m_api->dropWatches();
    QVERIFY(m_api->waitForWatches(watches + 2, kSafety));
    QVERIFY2(lastWatch().contains("resourceVersion=" + QString::fromStdString(bookmarked)), qPrintable(lastWatch()));
    m_api->podRunning("three", "warren-c", true);
    QCOMPARE(ready.wait_for(kSafety), std::future_status::ready);
    QVERIFY(ready.get().ok());
    QCOMPARE(cluster->counters().bookmarks, 1);
    QCOMPARE(cluster->counters().relists, 0);
    QCOMPARE(cluster->counters().reconnects, 1);
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
}

void TestKubeCluster::aClosedWatchResumesWithoutMissingTheEnd() {
    auto cluster = connected("four");
    QVERIFY(cluster);
    QVERIFY(cluster->create(objects("warren-d")).ok());
    const int watches = m_api->watchesOpened();
    auto ended = std::async(std::launch::async, [&] { return cluster->waitFor(KubeCluster::Goal::Ended, std::nullopt); });
    QVERIFY(m_api->waitForWatches(watches + 1, kSafety));
    m_api->dropWatches();
    // The pod ends while no watch is open: the next watch, from the last version seen, must still see it.
    m_api->podEnded("four", "warren-d", true, 0, "Completed");
    QCOMPARE(ended.wait_for(kSafety), std::future_status::ready);
    auto end = ended.get();
    QVERIFY(end.ok());
    QCOMPARE(end->state.progress, PodProgress::Ended);
    QVERIFY(end->state.succeeded);
    QCOMPARE(end->state.exitCode.value_or(-1), 0);
    QCOMPARE(cluster->counters().reconnects, 1);
    QVERIFY(cluster->removeAll(std::nullopt, KubeCluster::Clock::now() + kSafety).ok());
    QCOMPARE(m_api->objectCount("four"), std::size_t(0));
}

void TestKubeCluster::aStuckPodIsReportedWithItsReason() {
    auto cluster = connected("five");
    QVERIFY(cluster);
    QVERIFY(cluster->create(objects("warren-e")).ok());
    const int watches = m_api->watchesOpened();
    auto started = std::async(std::launch::async, [&] { return cluster->waitFor(KubeCluster::Goal::Started, std::nullopt); });
    QVERIFY(m_api->waitForWatches(watches + 1, kSafety));
    m_api->podPending("five", "warren-e", "ContainerCreating");
    m_api->podPending("five", "warren-e", "ImagePullBackOff", "Back-off pulling image \"localhost/warren-test:latest\"");
    QCOMPARE(started.wait_for(kSafety), std::future_status::ready);
    auto stuck = started.get();
    QVERIFY(stuck.ok());
    QCOMPARE(stuck->stop, KubeCluster::Stop::Stuck);
    QCOMPARE(stuck->state.reason, std::string("ImagePullBackOff"));
    QVERIFY(QString::fromStdString(describePodState(stuck->state)).contains("Back-off pulling image"));
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QCOMPARE(m_api->objectCount("five"), std::size_t(0));
}

void TestKubeCluster::usesTheSandboxCrdWhereServed() {
    auto cluster = connected("six");
    QVERIFY(cluster);
    ClusterObjects withSandbox = objects("warren-f");
    withSandbox.sandbox = sandboxObject("warren-f");
    QVERIFY(cluster->create(withSandbox).ok());
    QVERIFY(cluster->usesSandboxCrd());
    QVERIFY(m_api->object("sandboxes", "six", "warren-f"));
    QVERIFY(m_api->object("pods", "six", "warren-f")); // the double plays the controller's part
    const int watches = m_api->watchesOpened();
    auto ready = std::async(std::launch::async, [&] { return cluster->waitFor(KubeCluster::Goal::Ready, std::nullopt); });
    QVERIFY(m_api->waitForWatches(watches + 1, kSafety));
    QVERIFY(lastWatch().startsWith("GET /apis/agents.x-k8s.io/v1beta1/namespaces/six/sandboxes?"));
    m_api->podRunning("six", "warren-f", true);
    QCOMPARE(ready.wait_for(kSafety), std::future_status::ready);
    auto reached = ready.get();
    QVERIFY(reached.ok());
    QCOMPARE(reached->state.progress, PodProgress::Ready);
    auto ended = std::async(std::launch::async, [&] { return cluster->waitFor(KubeCluster::Goal::Ended, std::nullopt); });
    QVERIFY(m_api->waitForWatches(watches + 2, kSafety));
    m_api->podEnded("six", "warren-f", false, 137, "OOMKilled");
    QCOMPARE(ended.wait_for(kSafety), std::future_status::ready);
    auto end = ended.get();
    QVERIFY(end.ok());
    QCOMPARE(end->state.exitCode.value_or(-1), 137);
    QCOMPARE(end->state.reason, std::string("OOMKilled"));
    QVERIFY(cluster->removeAll(std::nullopt, KubeCluster::Clock::now() + kSafety).ok());
    QCOMPARE(m_api->objectCount("six"), std::size_t(0));
    QVERIFY(m_api->requests().contains("DELETE /apis/agents.x-k8s.io/v1beta1/namespaces/six/sandboxes/warren-f"));
}

// A command that ends before its pod is ever ready never makes the Sandbox ready: Started and Ended watch the
// pod of the Sandbox's name, so its end is seen with its exit code.
void TestKubeCluster::withASandboxStartedAndEndedAreThePods() {
    auto cluster = connected("six-b");
    QVERIFY(cluster);
    ClusterObjects withSandbox = objects("warren-fb");
    withSandbox.sandbox = sandboxObject("warren-fb");
    QVERIFY(cluster->create(withSandbox).ok());
    QVERIFY(cluster->usesSandboxCrd());
    const int watches = m_api->watchesOpened();
    auto started = std::async(std::launch::async, [&] { return cluster->waitFor(KubeCluster::Goal::Started, std::nullopt); });
    QVERIFY(m_api->waitForWatches(watches + 1, kSafety));
    QVERIFY2(lastWatch().startsWith("GET /api/v1/namespaces/six-b/pods?"), qPrintable(lastWatch()));
    m_api->podEnded("six-b", "warren-fb", false, 3, "Error");
    QCOMPARE(started.wait_for(kSafety), std::future_status::ready);
    auto reached = started.get();
    QVERIFY2(reached.ok(), reached.ok() ? "" : reached.error().message.c_str());
    QCOMPARE(reached->stop, KubeCluster::Stop::Reached);
    QCOMPARE(reached->state.progress, PodProgress::Ended);
    QCOMPARE(reached->state.exitCode.value_or(-1), 3);
    const auto sandbox = m_api->object("sandboxes", "six-b", "warren-fb");
    QVERIFY(sandbox);
    QVERIFY(sandbox->dump().find("\"status\":\"True\"") == std::string::npos); // never ready
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QCOMPARE(m_api->objectCount("six-b"), std::size_t(0));
}

// The controller's pod is not there when the wait starts: the list that finds none is not the pod's end.
void TestKubeCluster::aPodTheControllerMakesLateIsWaitedFor() {
    KubeClusterOptions asked = options("six-c");
    asked.config.server = m_idleApi->url().toStdString();
    auto cluster = KubeCluster::connect(asked);
    QVERIFY(cluster);
    ClusterObjects withSandbox = objects("warren-fc");
    withSandbox.sandbox = sandboxObject("warren-fc");
    QVERIFY((*cluster)->create(withSandbox).ok());
    QVERIFY(!m_idleApi->object("pods", "six-c", "warren-fc"));
    const int watches = m_idleApi->watchesOpened();
    auto started = std::async(std::launch::async,
                              [&] { return (*cluster)->waitFor(KubeCluster::Goal::Started, std::nullopt); });
    QVERIFY(m_idleApi->waitForWatches(watches + 1, kSafety));
    QCOMPARE(started.wait_for(100ms), std::future_status::timeout);
    QVERIFY(m_idleApi->makeSandboxPod("six-c", "warren-fc"));
    m_idleApi->podRunning("six-c", "warren-fc", false);
    QCOMPARE(started.wait_for(kSafety), std::future_status::ready);
    auto reached = started.get();
    QVERIFY2(reached.ok(), reached.ok() ? "" : reached.error().message.c_str());
    QCOMPARE(reached->stop, KubeCluster::Stop::Reached);
    QCOMPARE(reached->state.progress, PodProgress::Running);
    // Once seen, the pod's deletion is its end.
    auto ended = std::async(std::launch::async, [&] { return (*cluster)->waitFor(KubeCluster::Goal::Ended, std::nullopt); });
    QVERIFY(m_idleApi->waitForWatches(watches + 2, kSafety));
    QVERIFY((*cluster)->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QCOMPARE(ended.wait_for(kSafety), std::future_status::ready);
    auto end = ended.get();
    QVERIFY(end.ok());
    QCOMPARE(end->state.reason, std::string("Deleted"));
    QCOMPARE(m_idleApi->objectCount("six-c"), std::size_t(0));
}

void TestKubeCluster::aControllerThatMakesNoPodIsStuckAtTheDeadline() {
    KubeClusterOptions asked = options("six-d");
    asked.config.server = m_idleApi->url().toStdString();
    asked.podAppearTimeout = 300ms;
    auto cluster = KubeCluster::connect(asked);
    QVERIFY(cluster);
    ClusterObjects withSandbox = objects("warren-fd");
    withSandbox.sandbox = sandboxObject("warren-fd");
    QVERIFY((*cluster)->create(withSandbox).ok());
    for (const auto goal : {KubeCluster::Goal::Started, KubeCluster::Goal::Ended}) {
        const auto before = KubeCluster::Clock::now();
        auto waited = (*cluster)->waitFor(goal, before + kSafety);
        QVERIFY2(waited.ok(), waited.ok() ? "" : waited.error().message.c_str());
        QCOMPARE(waited->stop, KubeCluster::Stop::Stuck);
        QCOMPARE(waited->state.reason, std::string("NoPod"));
        QCOMPARE(waited->state.message,
                 std::string("agent-sandbox's controller made no pod for Sandbox six-d/warren-fd within 300 ms"));
        QVERIFY(KubeCluster::Clock::now() - before < 10s);
    }
    // An earlier deadline of the caller's is a time-out, not the controller's fault.
    KubeClusterOptions patient = asked;
    patient.podAppearTimeout = 60s;
    auto other = KubeCluster::connect(patient);
    QVERIFY(other);
    ClusterObjects second = objects("warren-fe");
    second.sandbox = sandboxObject("warren-fe");
    QVERIFY((*other)->create(second).ok());
    auto timedOut = (*other)->waitFor(KubeCluster::Goal::Started, KubeCluster::Clock::now() + 200ms);
    QVERIFY(timedOut.ok());
    QCOMPARE(timedOut->stop, KubeCluster::Stop::TimedOut);
    QVERIFY((*cluster)->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QVERIFY((*other)->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QCOMPARE(m_idleApi->objectCount("six-d"), std::size_t(0));
}

void TestKubeCluster::waitingCanBeInterrupted() {
    auto cluster = connected("seven");
    QVERIFY(cluster);
    QVERIFY(cluster->create(objects("warren-g")).ok());
    const int interrupt = ::eventfd(0, EFD_CLOEXEC);
    QVERIFY(interrupt >= 0);
    const int watches = m_api->watchesOpened();
    auto ready = std::async(std::launch::async,
                            [&] { return cluster->waitFor(KubeCluster::Goal::Ready, std::nullopt, interrupt); });
    QVERIFY(m_api->waitForWatches(watches + 1, kSafety));
    const std::uint64_t one = 1;
    QCOMPARE(::write(interrupt, &one, sizeof one), ssize_t(sizeof one));
    QCOMPARE(ready.wait_for(kSafety), std::future_status::ready);
    auto stopped = ready.get();
    ::close(interrupt);
    QVERIFY(stopped.ok());
    QCOMPARE(stopped->stop, KubeCluster::Stop::Interrupted);
    QVERIFY(cluster->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QCOMPARE(m_api->objectCount("seven"), std::size_t(0));
}

void TestKubeCluster::errorsAreReadable() {
    auto first = connected("eight");
    QVERIFY(first);
    QVERIFY(first->create(objects("warren-h")).ok());

    // 409: the same name again. What the second client had created before is removed.
    auto second = connected("eight");
    ClusterObjects again = objects("warren-h");
    again.secret = secretObject("warren-h2");
    const Status taken = second->create(again);
    QVERIFY(!taken.ok());
    QVERIFY2(QString::fromStdString(taken.error().message).contains("it already exists"), taken.error().message.c_str());
    QVERIFY(!m_api->object("secrets", "eight", "warren-h2-token"));
    QVERIFY(second->leftBehind().empty());

    // 422: a pod without containers, with the field named.
    ClusterObjects invalid = objects("warren-i");
    invalid.pod["spec"].erase("containers");
    invalid.secret = json();
    invalid.networkPolicy = json();
    const Status refused = connected("eight")->create(invalid);
    QVERIFY(!refused.ok());
    QVERIFY2(QString::fromStdString(refused.error().message).contains("spec.containers: Required value"),
             refused.error().message.c_str());

    // 401: a token the server does not know.
    KubeClusterOptions wrongToken = options("eight");
    wrongToken.config.token = "stale";
    const Status unauthorized = (*KubeCluster::connect(wrongToken))->create(objects("warren-j"));
    QVERIFY(!unauthorized.ok());
    QVERIFY2(QString::fromStdString(unauthorized.error().message).contains("did not accept our credentials (401"),
             unauthorized.error().message.c_str());

    // TLS: a CA that did not sign the server's certificate.
    KubeClusterOptions otherCa = options("eight");
    otherCa.config.caPem = fileText(m_dir.filePath("other-cert.pem"));
    const Status untrusted = (*KubeCluster::connect(otherCa))->create(objects("warren-k"));
    QVERIFY(!untrusted.ok());
    const QString tls = QString::fromStdString(untrusted.error().message);
    QVERIFY2(tls.contains("does not verify against the kubeconfig's CA") && tls.contains("127.0.0.1"), qPrintable(tls));

    // Nobody listening.
    KubeClusterOptions nobody = options("eight");
    nobody.config.server = "http://127.0.0.1:1";
    const Status refusedConnection = (*KubeCluster::connect(nobody))->create(objects("warren-l"));
    QVERIFY(!refusedConnection.ok());
    QVERIFY2(QString::fromStdString(refusedConnection.error().message).contains("cannot connect"),
             refusedConnection.error().message.c_str());

    QVERIFY(first->removeAll(0, KubeCluster::Clock::now() + kSafety).ok());
    QCOMPARE(m_api->objectCount("eight"), std::size_t(0));
}

QTEST_GUILESS_MAIN(TestKubeCluster)
#include "tst_kube_cluster.moc"
