// A task that only waits for its owner sleeps (warrend serve --idle-sleep-sec, DESIGN §14): its agent
// checkpoints and its sandbox goes, its status says `sleeping` and a task_slept event says why; the owner's
// answer through the approvals API wakes it into a fresh sandbox, where the call is asked and shown once and
// runs once, and the task finishes. A kill -9 of warrend while the task sleeps loses nothing; a task
// cancelled asleep takes no answer. The idle time is the shortest of serve's, the owner's quota and the
// task's own idle_sleep_sec.
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

// With safe-mode the agent asks before it writes notes.txt (no rule allows it), then finishes.
const QByteArray kScriptAsking = R"({"turns": [
  {"content": "Writing a file no rule allows.", "tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"path": "notes.txt", "content": "asked\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote notes.txt"}}]}]})";

QByteArray taskBody(const QString& upload, const json& settings = json::object()) {
    return R"({"prompt": "do it", "workspace": ")" + upload.toUtf8() + R"(", "script": )" + kScriptAsking +
           R"(, "presets": ["safe-mode"], "settings": )" + QByteArray::fromStdString(settings.dump()) + "}";
}

std::size_t count(const std::vector<json>& events, const std::string& type) {
    return static_cast<std::size_t>(
        std::count_if(events.begin(), events.end(), [&](const json& event) { return event.value("type", "") == type; }));
}

// The processes whose command line names the task's directory: its sandbox and agent, while they live.
QStringList processesOf(const QString& taskId) {
    QStringList found;
    QDirIterator proc("/proc", QDir::Dirs | QDir::NoDotAndDotDot);
    while (proc.hasNext()) {
        const QString dir = proc.next();
        QFile cmdline(dir + "/cmdline");
        if (!cmdline.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = cmdline.readAll();
        if (line.contains(("/tasks/" + taskId + "/").toUtf8()))
            found << dir;
    }
    return found;
}

} // namespace

class TestWarrendSleep : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void anAnswerWakesASleepingTask();
    void aSleepingTaskSurvivesAKilledServer();
    void aTaskCancelledAsleepTakesNoAnswer();
    void theShortestOfServerQuotaAndTaskDecides();

private:
    QString createTask(const QString& user = {}, const json& settings = json::object());
    json untilAsleep(const QString& task, std::vector<json>& events); // the task's record once its run ended
    QString status(const QString& task);

    std::unique_ptr<WarrendServer> m_server;
    QTemporaryDir m_scratch;
    QString m_alice, m_bob;
};

void TestWarrendSleep::initTestCase() {
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_alice = m_server->addUser("alice");
    m_bob = m_server->addUser("bob");
    QVERIFY2(m_server->start(&error, {"--idle-sleep-sec", "1"}), qPrintable(error));
}

QString TestWarrendSleep::createTask(const QString& user, const json& settings) {
    const QString owner = user.isEmpty() ? m_alice : user;
    return m_server->createTask(owner, taskBody(m_server->uploadProject(owner, m_scratch.path()), settings));
}

QString TestWarrendSleep::status(const QString& task) {
    return QString::fromStdString(m_server->request("GET", "/v1/tasks/" + task, m_alice).json().value("status", ""));
}

json TestWarrendSleep::untilAsleep(const QString& task, std::vector<json>& events) {
    // To the stream's end: the server ends it once the run has ended and its record says so.
    events = m_server->streamEvents(task, m_alice, {});
    return m_server->request("GET", "/v1/tasks/" + task, m_alice).json();
}

// Asleep: the question open (asked, not resolved), the run ended paused, task_slept naming the question,
// status sleeping, no process of the task left, the question still waiting. The answer wakes it: resumed
// from its checkpoint, the question resolved once with the owner's note, the file written once, finished.
void TestWarrendSleep::anAnswerWakesASleepingTask() {
    const QString task = createTask();
    QVERIFY(!task.isEmpty());
    std::vector<json> asleep;
    const json record = untilAsleep(task, asleep);
    QVERIFY2(!asleep.empty() && asleep.back().value("type", "") == "task_slept", m_server->serverOutput().constData());
    QCOMPARE(count(asleep, "approval_requested"), std::size_t(1));
    QCOMPARE(count(asleep, "approval_resolved"), std::size_t(0));
    QCOMPARE(asleep.back()["data"]["questions"], json::array({"w1"}));
    QCOMPARE(asleep.back()["data"].value("idle_ms", 0), 1000);
    QCOMPARE(QString::fromStdString(record.value("status", "")), QString("sleeping"));
    QCOMPARE(QString::fromStdString(record.value("summary", "")),
             QString("asleep until its question is answered; the answer wakes it")); // not the agent's "paused"
    QVERIFY2(processesOf(task).isEmpty(), qPrintable(processesOf(task).join(", ")));

    const QString approval = "/v1/tasks/" + task + "/approvals/w1";
    const HttpAnswer waiting = m_server->request("GET", approval, m_alice);
    QCOMPARE(waiting.status, 200);
    QCOMPARE(waiting.json().value("waiting", false), true);
    // Another user's answer reaches nothing, asleep as awake.
    QCOMPARE(m_server->request("POST", approval, m_bob, R"({"approved": true})").status, 404);
    QCOMPARE(m_server->request("POST", approval, m_alice, R"({"approved": true, "note": "go ahead"})").status, 202);

    const QByteArray after = QByteArray::number(static_cast<qulonglong>(asleep.back().value("seq", 0u)));
    const auto woken = m_server->streamEvents(task, m_alice, {}, after);
    QVERIFY(!woken.empty());
    QCOMPARE(QString::fromStdString(woken.back().value("type", "")), QString("task_finished"));
    QCOMPARE(QString::fromStdString(woken.back()["data"].value("reason", "")), QString("finished"));
    QCOMPARE(count(woken, "task_resumed"), std::size_t(1));
    QCOMPARE(count(woken, "tool_call"), std::size_t(1)); // finish's: write_file's was shown before the sleep
    QCOMPARE(count(woken, "approval_requested"), std::size_t(0));
    QCOMPARE(count(woken, "approval_resolved"), std::size_t(1));
    QCOMPARE(count(woken, "file_changed"), std::size_t(1));
    for (const auto& event : woken)
        if (event.value("type", "") == "approval_resolved") {
            QCOMPARE(event["data"].value("id", ""), std::string("w1"));
            QCOMPARE(event["data"].value("approved", false), true);
        }
    std::vector<json> all = asleep;
    all.insert(all.end(), woken.begin(), woken.end());
    QVERIFY2(dense(seqsOf(all)), "every event exactly once, in order, across the sleep");
    QCOMPARE(status(task), QString("succeeded"));
    // Answered once: another answer finds no question.
    QCOMPARE(m_server->request("POST", approval, m_alice, R"({"approved": false})").status, 404);
    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + task + "/patch", m_alice);
    QVERIFY2(patch.body.contains("+asked"), patch.body.constData());
}

// kill -9 of warrend while the task sleeps: restarted, the task still sleeps (nothing to recover: no
// process held it), its question still waits, and the answer wakes it to its end.
void TestWarrendSleep::aSleepingTaskSurvivesAKilledServer() {
    const QString task = createTask();
    std::vector<json> asleep;
    QCOMPARE(QString::fromStdString(untilAsleep(task, asleep).value("status", "")), QString("sleeping"));
    m_server->kill();
    QString error;
    QVERIFY2(m_server->start(&error, {"--idle-sleep-sec", "1"}), qPrintable(error));
    QCOMPARE(status(task), QString("sleeping"));
    const QString approval = "/v1/tasks/" + task + "/approvals/w1";
    QCOMPARE(m_server->request("GET", approval, m_alice).status, 200);
    QCOMPARE(m_server->request("POST", approval, m_alice, R"({"approved": false, "note": "not that file"})").status,
             202);
    const QByteArray after = QByteArray::number(static_cast<qulonglong>(asleep.back().value("seq", 0u)));
    const auto woken = m_server->streamEvents(task, m_alice, {}, after);
    QVERIFY(!woken.empty());
    QCOMPARE(QString::fromStdString(woken.back()["data"].value("reason", "")), QString("finished"));
    QCOMPARE(count(woken, "file_changed"), std::size_t(0)); // denied: not written
    bool denied = false;
    for (const auto& event : woken)
        denied = denied || (event.value("type", "") == "tool_result" &&
                            event["data"].dump().find("not that file") != std::string::npos);
    QVERIFY2(denied, "the model is told the user's note");
}

void TestWarrendSleep::aTaskCancelledAsleepTakesNoAnswer() {
    const QString task = createTask();
    std::vector<json> asleep;
    QCOMPARE(QString::fromStdString(untilAsleep(task, asleep).value("status", "")), QString("sleeping"));
    QCOMPARE(m_server->request("POST", "/v1/tasks/" + task + "/cancel", m_alice).status, 202);
    QCOMPARE(status(task), QString("cancelled"));
    const QString approval = "/v1/tasks/" + task + "/approvals/w1";
    QCOMPARE(m_server->request("GET", approval, m_alice).status, 404);
    QCOMPARE(m_server->request("POST", approval, m_alice, R"({"approved": true})").status, 404);
    QCOMPARE(status(task), QString("cancelled"));
}

// The idle time is the shortest of serve's, the owner's quota (idle_sleep_sec, the user's or the tenant's)
// and the task's own setting; each binds alone. Under a server that never puts a task to sleep: the task's
// own setting puts it to sleep, and a tenant's quota shorter than a task's setting wins over it.
void TestWarrendSleep::theShortestOfServerQuotaAndTaskDecides() {
    m_server->stop();
    QString error;
    QVERIFY2(m_server->start(&error, {"--idle-sleep-sec", "0"}, true), qPrintable(error));
    const QString carol = m_server->addUser("carol", "brief");
    QVERIFY(!carol.isEmpty());
    const auto quota = m_server->admin({"set-quota", "--tenant", "brief", "--idle-sleep-sec", "1"});
    QCOMPARE(quota.exitCode, 0);
    // 0 would read as "never": the quota refuses it, saying how to lift the limit.
    const auto zero = m_server->admin({"set-quota", "--tenant", "brief", "--idle-sleep-sec", "0"});
    QVERIFY(zero.exitCode != 0);

    struct Case {
        QString user;
        json settings;
        int idleMs;
    };
    for (const Case& each : {Case{m_alice, {{"idle_sleep_sec", 2}}, 2000}, Case{carol, {{"idle_sleep_sec", 30}}, 1000}}) {
        const QString task = createTask(each.user, each.settings);
        QVERIFY(!task.isEmpty());
        const std::vector<json> events = m_server->streamEvents(task, each.user, {});
        QVERIFY2(!events.empty() && events.back().value("type", "") == "task_slept",
                 m_server->serverOutput().constData());
        QCOMPARE(events.back()["data"].value("idle_ms", 0), each.idleMs);
        QCOMPARE(QString::fromStdString(
                     m_server->request("GET", "/v1/tasks/" + task, each.user).json().value("status", "")),
                 QString("sleeping"));
        QCOMPARE(m_server->request("POST", "/v1/tasks/" + task + "/cancel", each.user).status, 202);
    }
}

QTEST_GUILESS_MAIN(TestWarrendSleep)
#include "tst_warrend_sleep.moc"
