// Two warrend serve over one PostgreSQL and one data directory (docs/SERVER.md, "Replicas"): a task
// created on replica A and running there is followed live by an event stream on replica B, every event once
// and in order, from the first or from a Last-Event-ID in the middle, and B ends the stream by itself once
// the task has ended. B hears of A's commits through the database's notifications: its stream keeps up with
// A's own, well within the 15 s keep-alive at which B would otherwise have looked at the store. What only A
// can do for its task, B asks of it through the database: whether a question waits, its answer, a cancel.
#include "tests/support/LiveStream.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QFile>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

constexpr int kTaskMs = 120000; // a task's steps in sandboxes, on a loaded CI machine
// How much later than A's own stream B's may see an event: the keep-alive (15 s) would have shown it by
// then without notifications, so a wider bound would prove nothing.
constexpr qint64 kNotifiedMs = 10000;

// Reads README.md, then asks before writing notes.txt (safe-mode: no rule allows it), so that the task waits
// on A for its owner's answer while the streams are open; after the answer a few steps more.
const QByteArray kScript = R"({"turns": [
  {"content": "Reading first.", "tool_calls": [{"id": "r1", "name": "read_file", "arguments": {"path": "README.md"}}]},
  {"content": "Writing a file no rule allows.", "tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"path": "notes.txt", "content": "asked\n"}}]},
  {"content": "Checking it.", "tool_calls": [{"id": "r2", "name": "read_file", "arguments": {"path": "notes.txt"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote notes.txt"}}]}]})";

} // namespace

class TestWarrendReplicas : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void anotherReplicaFollowsARunningTask();
    void anotherReplicaResumesFromALastEventId();
    void anotherReplicaPassesAnAnswerToTheRunner();
    void anotherReplicaPassesACancelToTheRunner();

private:
    QString createTaskOnA();
    void answerOnA(const QString& task);

    std::unique_ptr<WarrendServer> m_a, m_b;
    QTemporaryDir m_scratch;
    QString m_alice;
};

void TestWarrendReplicas::initTestCase() {
    QString error;
    m_a = WarrendServer::create(&error);
    QVERIFY2(m_a, qPrintable(error));
    m_alice = m_a->addUser("alice");
    QVERIFY(!m_alice.isEmpty());
    QVERIFY2(m_a->start(&error), qPrintable(error));
    m_b = WarrendServer::replicaOf(*m_a);
    QVERIFY2(m_b->start(&error), qPrintable(error));
}

void TestWarrendReplicas::cleanupTestCase() {
    m_b.reset(); // before the first, which holds the database and the data directory
    m_a.reset();
}

QString TestWarrendReplicas::createTaskOnA() {
    const QString upload = m_a->uploadProject(m_alice, m_scratch.path());
    return m_a->createTask(m_alice, R"({"prompt": "do it", "workspace": ")" + upload.toUtf8() +
                                        R"(", "script": )" + kScript + R"(, "presets": ["safe-mode"]})");
}

void TestWarrendReplicas::answerOnA(const QString& task) {
    const HttpAnswer answered =
        m_a->request("POST", "/v1/tasks/" + task + "/approvals/w1", m_alice, R"({"approved": true})");
    QVERIFY2(answered.status == 202, answered.body.constData());
}

// B's stream, opened as the task starts on A, has every event as A's own stream has it: the events before
// the question, and, after the answer, the rest to task_finished, when B ends it by itself.
void TestWarrendReplicas::anotherReplicaFollowsARunningTask() {
    const QString task = createTaskOnA();
    QVERIFY(!task.isEmpty());
    LiveStream onA(m_a->url(), task, m_alice);
    LiveStream onB(m_b->url(), task, m_alice);
    QTRY_VERIFY2_WITH_TIMEOUT(onA.arrivedAt("approval_requested") >= 0 &&
                                  onB.arrivedAt("approval_requested") >= 0,
                              describe(onB).c_str(), kTaskMs);
    QVERIFY2(!onB.ended(), describe(onB).c_str()); // the task waits on A for its owner: it is running
    QVERIFY2(onB.arrivedAt("approval_requested") - onA.arrivedAt("approval_requested") < kNotifiedMs,
             "B saw the question long after A stored it");

    answerOnA(task);
    QTRY_VERIFY2_WITH_TIMEOUT(onA.ended() && onB.ended(), describe(onB).c_str(), kTaskMs);
    QCOMPARE(onB.error(), QNetworkReply::NoError); // the server ended it
    QCOMPARE(lastType(onB), std::string("task_finished"));
    QVERIFY2(dense(seqsOf(onB.events())), describe(onB).c_str());
    QCOMPARE(seqsOf(onB.events()), seqsOf(onA.events()));
    QCOMPARE(onB.types(), onA.types());
    QVERIFY2(onB.endedAt() - onA.endedAt() < kNotifiedMs, "B ended the stream long after A");
}

// A client that reconnects to B with the last seq it had (taken here from A's stream, in the middle of what
// the task stored before its question) gets every later event once, in order, live, to the end.
void TestWarrendReplicas::anotherReplicaResumesFromALastEventId() {
    const QString task = createTaskOnA();
    QVERIFY(!task.isEmpty());
    LiveStream onA(m_a->url(), task, m_alice);
    QTRY_VERIFY2_WITH_TIMEOUT(onA.arrivedAt("approval_requested") >= 0, describe(onA).c_str(), kTaskMs);
    const std::vector<std::uint64_t> before = seqsOf(onA.events());
    QVERIFY(before.size() >= 2);
    const std::uint64_t middle = before[before.size() / 2 - 1];
    LiveStream onB(m_b->url(), task, m_alice, QByteArray::number(static_cast<qulonglong>(middle)));
    QTRY_VERIFY2_WITH_TIMEOUT(onB.arrivedAt("approval_requested") >= 0, describe(onB).c_str(), kTaskMs);
    QVERIFY2(!onB.ended(), describe(onB).c_str());

    answerOnA(task);
    QTRY_VERIFY2_WITH_TIMEOUT(onA.ended() && onB.ended(), describe(onB).c_str(), kTaskMs);
    QCOMPARE(onB.error(), QNetworkReply::NoError);
    QCOMPARE(lastType(onB), std::string("task_finished"));
    const std::vector<std::uint64_t> all = seqsOf(onA.events());
    QVERIFY(dense(all));
    QCOMPARE(seqsOf(onB.events()),
             std::vector<std::uint64_t>(all.begin() + static_cast<std::ptrdiff_t>(middle), all.end()));
    QVERIFY2(onB.endedAt() - onA.endedAt() < kNotifiedMs, "B ended the stream long after A");
}

// The question of a task A runs, asked and answered on B: B says it waits, takes the answer to A, where the
// agent gets it once; an answer to a call A's agent never asks (A waits kQuestionWaitMs for it) and a second
// answer find no question.
void TestWarrendReplicas::anotherReplicaPassesAnAnswerToTheRunner() {
    const QString task = createTaskOnA();
    QVERIFY(!task.isEmpty());
    LiveStream onB(m_b->url(), task, m_alice);
    QTRY_VERIFY2_WITH_TIMEOUT(onB.arrivedAt("approval_requested") >= 0, describe(onB).c_str(), kTaskMs);
    const QString approvals = "/v1/tasks/" + task + "/approvals/";
    const HttpAnswer waits = m_b->request("GET", approvals + "w1", m_alice);
    QVERIFY2(waits.status == 200, waits.body.constData());
    QCOMPARE(waits.json().value("waiting", false), true);
    QCOMPARE(m_b->request("POST", approvals + "no-such-call", m_alice, R"({"approved": true})").status, 404);
    const HttpAnswer answered = m_b->request("POST", approvals + "w1", m_alice, R"({"approved": true})");
    QVERIFY2(answered.status == 202, answered.body.constData());
    QTRY_VERIFY2_WITH_TIMEOUT(onB.ended(), describe(onB).c_str(), kTaskMs);
    QCOMPARE(lastType(onB), std::string("task_finished"));
    const auto types = onB.types();
    QCOMPARE(std::count(types.begin(), types.end(), "approval_resolved"), std::ptrdiff_t(1));
    QCOMPARE(std::count(types.begin(), types.end(), "file_changed"), std::ptrdiff_t(1));
    QCOMPARE(m_b->request("POST", approvals + "w1", m_alice, R"({"approved": false})").status, 404);
    QCOMPARE(QString::fromStdString(m_b->request("GET", "/v1/tasks/" + task, m_alice).json().value("status", "")),
             QString("succeeded"));
}

// A cancel of a task A runs, asked on B: A stops it, and it ends cancelled.
void TestWarrendReplicas::anotherReplicaPassesACancelToTheRunner() {
    const QString task = createTaskOnA();
    QVERIFY(!task.isEmpty());
    LiveStream onB(m_b->url(), task, m_alice);
    QTRY_VERIFY2_WITH_TIMEOUT(onB.arrivedAt("approval_requested") >= 0, describe(onB).c_str(), kTaskMs);
    const HttpAnswer cancelled = m_b->request("POST", "/v1/tasks/" + task + "/cancel", m_alice);
    QVERIFY2(cancelled.status == 202, cancelled.body.constData());
    QTRY_VERIFY2_WITH_TIMEOUT(onB.ended(), describe(onB).c_str(), kTaskMs);
    QCOMPARE(lastType(onB), std::string("task_finished"));
    QCOMPARE(onB.events().back()["data"].value("reason", ""), std::string("cancelled"));
    QCOMPARE(QString::fromStdString(m_b->request("GET", "/v1/tasks/" + task, m_alice).json().value("status", "")),
             QString("cancelled"));
}

QTEST_GUILESS_MAIN(TestWarrendReplicas)
#include "tst_warrend_replicas.moc"
