// Replicas over one PostgreSQL and data directory (DESIGN §15): each task is leased to the replica running it.
// kill -9 of replica A while its task runs and another waits in its queue: replica B takes both over, the
// running one from its last checkpoint, and both finish there; every event once, in order, the steps done
// before the kill not done again, each task started once, and a stream on B followed from before the kill
// goes on to the end. Here both replicas share a machine, so B sees at its
// next beat that A's process is gone; a replica of another machine waits until A's leases expired (serve
// --lease-sec; the expiry itself: tst_account_store).
#include "tests/support/LiveStream.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

// Writes a.txt (a step whose checkpoint follows), then waits at a gate the test opens, then finishes.
const QByteArray kScriptGated = R"({"turns": [
  {"content": "First the file.", "tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"path": "a.txt", "content": "once\n"}}]},
  {"content": "Waiting for the gate.", "tool_calls": [{"id": "g1", "name": "shell", "arguments": {"command": "while [ ! -e gate ]; do sleep 0.05; done; echo through"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "through the gate"}}]}]})";

const QByteArray kScriptQuick = R"({"turns": [
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "quick"}}]}]})";

const QStringList kLeases{"--lease-sec", "2", "--max-tasks", "1"};
const QByteArray kMetricsToken = "metrics-token-failover-0123456789";

// A sample's value by its name and labels as written; -1 when absent.
double sample(const QByteArray& text, const QByteArray& series) {
    for (const QByteArray& line : text.split('\n'))
        if (line.startsWith(series + " "))
            return line.mid(series.size() + 1).toDouble();
    return -1;
}

std::size_t count(const std::vector<json>& events, const std::string& type, const std::string& callId = {}) {
    return static_cast<std::size_t>(std::count_if(events.begin(), events.end(), [&](const json& event) {
        return event.value("type", "") == type &&
               (callId.empty() || (event.contains("data") && event["data"].value("id", "") == callId));
    }));
}

} // namespace

class TestWarrendFailover : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void aKilledReplicasTasksAreTakenOver();

private:
    QString createTask(WarrendServer& server, const QByteArray& script);
    QString status(WarrendServer& server, const QString& task);
    // Reads A's stream of the task until its agent waits at the gate.
    bool untilAtTheGate(WarrendServer& server, const QString& task);
    void openTheGate(const QString& task);

    std::unique_ptr<WarrendServer> m_a, m_b;
    QTemporaryDir m_scratch;
    QString m_alice;
};

void TestWarrendFailover::initTestCase() {
    QString error;
    m_a = WarrendServer::create(&error);
    QVERIFY2(m_a, qPrintable(error));
    m_alice = m_a->addUser("alice");
    QVERIFY(!m_alice.isEmpty());
    QFile token(m_scratch.filePath("metrics-token"));
    QVERIFY(token.open(QIODevice::WriteOnly) && token.write(kMetricsToken) == kMetricsToken.size());
    QVERIFY(token.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
}

void TestWarrendFailover::init() {
    QString error;
    QVERIFY2(m_a->start(&error, kLeases), qPrintable(error));
    m_b = WarrendServer::replicaOf(*m_a);
    QVERIFY2(m_b->start(&error, kLeases + QStringList{"--metrics-token-file", m_scratch.filePath("metrics-token")}),
             qPrintable(error));
}

void TestWarrendFailover::cleanup() {
    if (m_b)
        m_b->stop();
    m_b.reset();
    m_a->stop();
}

QString TestWarrendFailover::createTask(WarrendServer& server, const QByteArray& script) {
    const QString upload = server.uploadProject(m_alice, m_scratch.path());
    return server.createTask(m_alice, R"({"prompt": "do it", "workspace": ")" + upload.toUtf8() +
                                          R"(", "script": )" + script + "}");
}

QString TestWarrendFailover::status(WarrendServer& server, const QString& task) {
    return QString::fromStdString(server.request("GET", "/v1/tasks/" + task, m_alice).json().value("status", ""));
}

bool TestWarrendFailover::untilAtTheGate(WarrendServer& server, const QString& task) {
    // Each stream stops at a call shown (w1's, then g1's, shown before its command runs).
    QByteArray after;
    for (int call = 0; call < 2; ++call) {
        const auto events = server.streamEvents(task, m_alice, "tool_call", after);
        if (events.empty())
            return false;
        if (count(events, "tool_call", "g1") == 1)
            return true;
        after = QByteArray::number(static_cast<qulonglong>(events.back().value("seq", 0u)));
    }
    return false;
}

void TestWarrendFailover::openTheGate(const QString& task) {
    QFile gate(m_a->dataDir() + "/data/workspaces/" + task + "/gate");
    QVERIFY(gate.open(QIODevice::WriteOnly));
}

// A runs the gated task and holds the quick one in its queue (one task at a time). While A lives, B takes
// neither. kill -9 of A: B takes both over and both finish on B, the gated one from its checkpoint after w1.
void TestWarrendFailover::aKilledReplicasTasksAreTakenOver() {
    const QString gated = createTask(*m_a, kScriptGated);
    const QString quick = createTask(*m_a, kScriptQuick);
    QVERIFY(!gated.isEmpty() && !quick.isEmpty());
    QVERIFY2(untilAtTheGate(*m_a, gated), m_a->serverOutput().constData());
    // B answers for A's tasks as they are; had it taken one over while A lived, that task would have run twice
    // (counted below).
    QCOMPARE(status(*m_b, gated), QString("running"));
    QCOMPARE(status(*m_b, quick), QString("queued"));
    // A client following the gated task on B, from before the kill: its stream goes on through the takeover
    // (the task never stops being queued or running) to the end.
    LiveStream following(m_b->url(), gated, m_alice);

    m_a->kill();
    // B takes both over once A's leases expired: the quick one runs to its end there.
    const auto quickEvents = m_b->streamEvents(quick, m_alice, {});
    QVERIFY2(!quickEvents.empty(), m_b->serverOutput().constData());
    QCOMPARE(QString::fromStdString(quickEvents.back().value("type", "")), QString("task_finished"));
    QCOMPARE(count(quickEvents, "task_started"), std::size_t(1)); // it never ran on A
    QVERIFY(dense(seqsOf(quickEvents)));

    openTheGate(gated);
    QTRY_VERIFY2_WITH_TIMEOUT(following.ended(), describe(following).c_str(), 120000);
    const auto& events = following.events();
    QVERIFY2(!events.empty(), m_b->serverOutput().constData());
    QCOMPARE(QString::fromStdString(events.back().value("type", "")), QString("task_finished"));
    QCOMPARE(QString::fromStdString(events.back()["data"].value("reason", "")), QString("finished"));
    QVERIFY2(dense(seqsOf(events)), "every event once, in order, across the takeover");
    QCOMPARE(count(events, "task_started"), std::size_t(1)); // on A
    QCOMPARE(count(events, "task_resumed"), std::size_t(1)); // on B
    QCOMPARE(count(events, "tool_call", "w1"), std::size_t(1)); // done before the kill, not again
    QCOMPARE(count(events, "file_changed"), std::size_t(1));
    QCOMPARE(status(*m_b, gated), QString("succeeded"));
    // B counted both takeovers, and holds nothing now both have ended.
    const QByteArray metrics = m_b->request("GET", "/metrics", QString::fromUtf8(kMetricsToken)).body;
    QCOMPARE(sample(metrics, "warrend_task_lease_changes_total{change=\"adopted\"}"), 2.0);
    QCOMPARE(sample(metrics, "warrend_task_leases"), 0.0);
    QFile written(m_a->dataDir() + "/data/workspaces/" + gated + "/a.txt");
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(written.readAll(), QByteArray("once\n"));
}

QTEST_GUILESS_MAIN(TestWarrendFailover)
#include "tst_warrend_failover.moc"
