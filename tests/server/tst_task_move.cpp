// `warren move TASK --to URL` end to end: a task started on this machine, asleep on its question, goes to a
// real warrend with its workspace, events and conversation, is asked its question there once, finishes there,
// and `warren apply` brings its change home; its record here says where it went and nothing continues it
// here. A move the server refuses after its uploads leaves the task here as it was. A server's task comes
// home the same way, its change applied here, and finishes here. A history that is not the agent's is refused
// by the server, naming the line.
#include "tests/support/LosingRelay.h"
#include "tests/support/WarrenRun.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

// Under safe-mode its write is a question for the user; the answer lets it finish.
const QByteArray kScriptAsking = R"({"turns": [
  {"content": "Asking first.", "tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"path": "answered.txt", "content": "moved and answered\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "written after the move"}}]}]})";

std::size_t count(const std::vector<json>& events, const std::string& type) {
    return static_cast<std::size_t>(std::count_if(
        events.begin(), events.end(), [&](const json& event) { return event.value("type", "") == type; }));
}

} // namespace

class TestTaskMove : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void aSleepingTaskFinishesOnTheServerAndItsChangeComesHome();
    void aMoveTheServerRefusesLeavesTheTaskHere();
    void aMoveCutOffIsFinishedByRunningItAgain();
    void aServersTaskComesHomeAndFinishesHere();
    void aHistoryThatIsNotTheAgentsIsRefused();

private:
    QProcessEnvironment environment() const;
    WarrenResult warren(const QStringList& args) { return runWarren(args, m_data, environment()); }
    // A task of this machine, asleep on its question (safe-mode, idle_sleep_sec 1); its id and workspace.
    QString sleepingTask(QString* workspace);
    json localTask(const QString& id);

    std::unique_ptr<WarrendServer> m_server;
    QTemporaryDir m_dir;
    QString m_data;
    QString m_alice;
};

void TestTaskMove::initTestCase() {
    if (warrenBinary().isEmpty())
        QSKIP("WARREN_CLI is not set: run through ctest");
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_alice = m_server->addUser("alice", "acme");
    QVERIFY(!m_alice.isEmpty());
    m_data = m_dir.path() + "/data";
}

QProcessEnvironment TestTaskMove::environment() const {
    QProcessEnvironment environment = warrenEnvironment(m_data);
    environment.insert("WARREN_REMOTE_KEY", m_alice);
    return environment;
}

QString TestTaskMove::sleepingTask(QString* workspace) {
    static int count = 0;
    const QString n = QString::number(++count);
    *workspace = m_dir.path() + "/workspace-" + n;
    const QString script = m_dir.path() + "/script-" + n + ".json";
    if (!writeTestFile(*workspace + "/README.md", "# a project\n") || !writeTestFile(script, kScriptAsking))
        return {};
    QProcess run; // its stdin open: the question waits for the terminal's answer
    run.setProcessEnvironment(environment());
    run.start(warrenBinary(), {"run", "--json", "--approve", "ask", "--preset", "safe-mode", "--set",
                               "idle_sleep_sec=1", "--provider", "scripted:" + script, "--workspace",
                               *workspace, "--data-dir", m_data, "write answered.txt"});
    QByteArray out;
    bool slept = readEventsUntil(
        run, [](const json& event) { return event.value("type", "") == "task_slept"; }, &out);
    // Its record says so once the terminal says so.
    QByteArray err;
    run.setReadChannel(QProcess::StandardError);
    while (slept && !err.contains("the task sleeps until its question is answered"))
        slept = run.waitForReadyRead(60000) && !(err += run.readAllStandardError()).isEmpty();
    run.kill(); // its terminal goes; the task sleeps on, holding no process
    run.waitForFinished();
    if (!slept) {
        qWarning("warren run did not fall asleep: %s\n%s", out.constData(), err.constData());
        return {};
    }
    for (const auto& event : jsonLines(out))
        if (event.value("type", "") == "task_started")
            return QString::fromStdString(event["data"].value("task_id", ""));
    return {};
}

json TestTaskMove::localTask(const QString& id) {
    for (const auto& task : jsonLines(warren({"tasks", "--json"}).out)) // one a line
        if (task.value("id", "") == id.toStdString())
            return task;
    return json::object();
}

void TestTaskMove::aSleepingTaskFinishesOnTheServerAndItsChangeComesHome() {
    QString workspace;
    const QString local = sleepingTask(&workspace);
    QVERIFY(!local.isEmpty());
    QCOMPARE(QString::fromStdString(localTask(local).value("status", "")), QString("sleeping"));
    const auto before = jsonLines(warren({"show", local, "--json"}).out);
    QVERIFY(!before.empty());

    const auto moved = warren({"move", local, "--to", m_server->url()});
    QVERIFY2(moved.exitCode == 0, moved.err.constData());
    const json record = localTask(local);
    QCOMPARE(QString::fromStdString(record.value("status", "")), QString("moved"));
    QCOMPARE(QString::fromStdString(record.value("moved_to", "")), m_server->url());
    const QString remote = QString::fromStdString(record.value("moved_as", ""));
    QVERIFY(!remote.isEmpty() && remote != local);
    QVERIFY2(moved.out.contains(("as " + remote).toUtf8()), moved.out.constData());
    QVERIFY2(!QFile::exists(m_data + "/tasks/" + local + "/move.json"),
             "the move is over: nothing under way");

    // Here nothing continues it: it goes on there.
    for (const QStringList& again : {QStringList{"resume", local}, QStringList{"reply", local, "go on"},
                                     QStringList{"move", local, "--to", m_server->url()}}) {
        const auto refused = warren(again);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("moved to " + m_server->url().toUtf8()), refused.err.constData());
    }
    const auto here = jsonLines(warren({"show", local, "--json"}).out);
    QCOMPARE(here.size(), before.size() + 1); // the line saying where it went
    QVERIFY2(here.back()["data"].value("message", "").find("moved to") != std::string::npos,
             here.back().dump().c_str());

    // There its question is asked again, once, and the answer lets it finish.
    const QString approval = "/v1/tasks/" + remote + "/approvals/w1";
    const HttpAnswer waiting = m_server->request("GET", approval, m_alice);
    QVERIFY2(waiting.status == 200, waiting.body.constData());
    QCOMPARE(m_server->request("POST", approval, m_alice, R"({"approved": true})").status, 202);
    const auto there = m_server->streamEvents(remote, m_alice, {});
    QVERIFY(!there.empty());
    QCOMPARE(QString::fromStdString(there.back().value("type", "")), QString("task_finished"));
    QCOMPARE(QString::fromStdString(there.back()["data"].value("summary", "")),
             QString("written after the move"));
    QVERIFY2(dense(seqsOf(there)), "seqs 1, 2, ... across the move, each once");
    // The history as it was here, seqs and all, then the server's line, then the run there.
    for (std::size_t i = 0; i < before.size(); ++i) {
        QCOMPARE(there[i].value("seq", 0u), before[i].value("seq", 0u));
        QCOMPARE(there[i].value("type", ""), before[i].value("type", ""));
    }
    QVERIFY(there[before.size()]["data"]
                .value("message", "")
                .find("moved here from task " + local.toStdString()) != std::string::npos);
    QCOMPARE(there[before.size() + 1].value("type", ""),
             std::string("limits_applied"));                      // the server's clamps
    QCOMPARE(count(there, "approval_requested"), std::size_t(1)); // asked here, not shown twice
    QCOMPARE(count(there, "approval_resolved"), std::size_t(1));
    QCOMPARE(count(there, "task_started"), std::size_t(1));
    QVERIFY(count(there, "task_resumed") >= 1);

    const auto applied = warren({"apply", remote, "--remote", m_server->url()});
    QVERIFY2(applied.exitCode == 0, applied.err.constData());
    QCOMPARE(readTestFile(workspace + "/answered.txt"), QByteArray("moved and answered\n"));
}

void TestTaskMove::aMoveTheServerRefusesLeavesTheTaskHere() {
    QString workspace;
    const QString local = sleepingTask(&workspace);
    QVERIFY(!local.isEmpty());
    const auto tasksThere = [&] {
        return m_server->request("GET", "/v1/tasks", m_alice).json().value("tasks", json::array()).size();
    };
    const std::size_t tasksBefore = tasksThere();
    // The server takes the uploads, then refuses the task: no slot of alice's.
    QCOMPARE(m_server->admin({"set-quota", "--user", "alice", "--max-concurrent", "0"}).exitCode, 0);
    const auto refused = warren({"move", local, "--to", m_server->url()});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("stays here"), refused.err.constData());
    QCOMPARE(tasksThere(), tasksBefore);
    // Refused for what it is, nothing was made there: the move is over, the task here as it was.
    QVERIFY(!QFile::exists(m_data + "/tasks/" + local + "/move.json"));
    QCOMPARE(QString::fromStdString(localTask(local).value("status", "")), QString("sleeping"));

    QCOMPARE(m_server->admin({"set-quota", "--user", "alice", "--max-concurrent", "4"}).exitCode, 0);
    const auto moved = warren({"move", local, "--to", m_server->url()});
    QVERIFY2(moved.exitCode == 0, moved.err.constData());
    QCOMPARE(tasksThere(), tasksBefore + 1);
    const QString remote = QString::fromStdString(localTask(local).value("moved_as", ""));
    QVERIFY(!remote.isEmpty());
    QCOMPARE(m_server->request("POST", "/v1/tasks/" + remote + "/cancel", m_alice).status, 202);
}

// The server creates the task but its answer never comes (a network cut, or warren killed as it waited): the
// move stays under way, nothing continues the task here, and running it again gets the task the server
// made, not a second one.
void TestTaskMove::aMoveCutOffIsFinishedByRunningItAgain() {
    QString workspace;
    const QString local = sleepingTask(&workspace);
    QVERIFY(!local.isEmpty());
    LosingRelay relay("POST /v1/tasks ");
    QVERIFY(relay.start(static_cast<std::uint16_t>(QUrl(m_server->url()).port())));
    const QString through = "http://127.0.0.1:" + QString::number(relay.port());
    const auto tasksThere = [&] {
        return m_server->request("GET", "/v1/tasks", m_alice).json().value("tasks", json::array());
    };
    const std::size_t tasksBefore = tasksThere().size();

    relay.arm(true);
    const auto cut = warren({"move", local, "--to", through});
    QCOMPARE(cut.exitCode, 2);
    QVERIFY2(cut.err.contains("stays here"), cut.err.constData());
    QVERIFY(relay.lost() >= 1);
    QCOMPARE(tasksThere().size(), tasksBefore + 1); // made there, once: the retry sent the same key
    QVERIFY(QFile::exists(m_data + "/tasks/" + local + "/move.json"));
    QCOMPARE(QString::fromStdString(localTask(local).value("status", "")), QString("sleeping"));
    const auto resumed = warren({"resume", local});
    QCOMPARE(resumed.exitCode, 2);
    QVERIFY2(resumed.err.contains("a move of it to " + through.toUtf8() + " began"), resumed.err.constData());

    relay.arm(false);
    const auto finished = warren({"move", local, "--to", through});
    QVERIFY2(finished.exitCode == 0, finished.err.constData());
    const json there = tasksThere();
    QCOMPARE(there.size(), tasksBefore + 1); // the same task, answered again
    const std::string remote = localTask(local).value("moved_as", "");
    QCOMPARE(remote, there.front().value("id", "")); // newest first
    QVERIFY(!QFile::exists(m_data + "/tasks/" + local + "/move.json"));
    QCOMPARE(
        m_server->request("POST", "/v1/tasks/" + QString::fromStdString(remote) + "/cancel", m_alice).status,
        202);
}

void TestTaskMove::aServersTaskComesHomeAndFinishesHere() {
    const QString workspace = m_dir.path() + "/remote-workspace";
    const QString script = m_dir.path() + "/remote-script.json";
    QVERIFY(writeTestFile(workspace + "/README.md", "# a project\n") && writeTestFile(script, kScriptAsking));
    // Started there from here (its home kept here), asleep there on its question.
    QProcess run;
    run.setProcessEnvironment(environment());
    run.start(warrenBinary(),
              {"run", "--json", "--approve", "ask", "--preset", "safe-mode", "--set", "idle_sleep_sec=1",
               "--provider", "scripted:" + script, "--workspace", workspace, "--data-dir", m_data, "--remote",
               m_server->url(), "write answered.txt"});
    QByteArray out;
    QVERIFY(readEventsUntil(
        run, [](const json& event) { return event.value("type", "") == "task_slept"; }, &out));
    run.kill();
    run.waitForFinished();
    QString task;
    for (const auto& event : jsonLines(out))
        if (event.value("type", "") == "task_started")
            task = QString::fromStdString(event["data"].value("task_id", ""));
    QVERIFY(!task.isEmpty());
    const auto statusThere = [&] {
        return QString::fromStdString(
            m_server->request("GET", "/v1/tasks/" + task, m_alice).json().value("status", ""));
    };
    QTRY_COMPARE_WITH_TIMEOUT(statusThere(), QString("sleeping"), 60000);
    const std::size_t eventsThere = m_server->request("GET", "/v1/tasks/" + task + "/events", m_alice)
                                        .json()
                                        .value("events", json::array())
                                        .size();

    const auto home = warren({"move", task, "--remote", m_server->url(), "--to", "local"});
    QVERIFY2(home.exitCode == 0, home.err.constData());
    QVERIFY2(home.out.contains("warren resume " + task.toUtf8()), home.out.constData());
    // There it is moved and goes on nowhere: an answer, a resume and another move home are refused.
    const json there = m_server->request("GET", "/v1/tasks/" + task, m_alice).json();
    QCOMPARE(QString::fromStdString(there.value("status", "")), QString("moved"));
    QCOMPARE(QString::fromStdString(there.value("moved_to", "")), QString("local"));
    QVERIFY(m_server->request("POST", "/v1/tasks/" + task + "/approvals/w1", m_alice, R"({"approved": true})")
                .status >= 400);
    QVERIFY(m_server->request("POST", "/v1/tasks/" + task + "/resume", m_alice).status >= 400);
    const HttpAnswer again =
        m_server->request("POST", "/v1/tasks/" + task + "/move", m_alice, R"({"to": "local"})");
    QCOMPARE(again.status, 200); // the same answer, for a client that was killed half-way
    QCOMPARE(QString::fromStdString(again.json().value("was", "")), QString("sleeping"));
    QCOMPARE(
        m_server->request("POST", "/v1/tasks/" + task + "/move", m_alice, R"({"to": "elsewhere"})").status,
        400);

    // Here: paused, its history as it was there plus the server's line and ours, then it finishes here.
    QCOMPARE(QString::fromStdString(localTask(task).value("status", "")), QString("paused"));
    const auto arrived = jsonLines(warren({"show", task, "--json"}).out);
    QCOMPARE(arrived.size(), eventsThere + 2);
    const auto resumed = warren({"resume", task, "--json", "--approve", "auto"});
    QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    const auto all = jsonLines(warren({"show", task, "--json"}).out);
    QVERIFY2(dense(seqsOf(all)), "seqs 1, 2, ... across the move home, each once");
    QCOMPARE(QString::fromStdString(all.back().value("type", "")), QString("task_finished"));
    QCOMPARE(count(all, "approval_requested"), std::size_t(1));
    QCOMPARE(count(all, "approval_resolved"), std::size_t(1));
    QCOMPARE(readTestFile(workspace + "/answered.txt"), QByteArray("moved and answered\n"));
}

void TestTaskMove::aHistoryThatIsNotTheAgentsIsRefused() {
    const QString scratch = m_dir.path() + "/forged";
    const QString workspace = m_server->uploadProject(m_alice, scratch);
    QVERIFY(!workspace.isEmpty());
    const json event = {{"seq", 1},
                        {"ts", "2026-12-07T10:00:00.000Z"},
                        {"type", "step_started"},
                        {"step", 1},
                        {"data", json::object()}};
    const json forged = {{"seq", 2},
                         {"ts", "2026-12-07T10:00:01.000Z"},
                         {"type", "not_an_event"},
                         {"step", 1},
                         {"data", json::object()}};
    const QString history = scratch + "/history";
    QVERIFY(writeTestFile(history + "/events.jsonl",
                          QByteArray::fromStdString(event.dump() + "\n" + forged.dump() + "\n")));
    QVERIFY(writeTestFile(history + "/checkpoint.json", "{}"));
    const QString historyUpload = m_server->upload(m_alice, history);
    QVERIFY(!historyUpload.isEmpty());
    const json body = {
        {"prompt", "go on"},
        {"workspace", workspace.toStdString()},
        {"script", json::parse(kScriptAsking.toStdString())},
        {"moved",
         {{"from", "t-0123456789ab"}, {"status", "paused"}, {"history", historyUpload.toStdString()}}}};
    const HttpAnswer answer =
        m_server->request("POST", "/v1/tasks", m_alice, QByteArray::fromStdString(body.dump()));
    QCOMPARE(answer.status, 400);
    QVERIFY2(answer.body.contains("events.jsonl line 2"), answer.body.constData());
    // Another user's upload as the history is not found, as any upload of theirs.
    const QString bob = m_server->addUser("bob", "globex");
    json bobs = body;
    bobs["workspace"] = m_server->uploadProject(bob, m_dir.path() + "/bobs").toStdString();
    const HttpAnswer notFound =
        m_server->request("POST", "/v1/tasks", bob, QByteArray::fromStdString(bobs.dump()));
    QCOMPARE(notFound.status, 404);
    QVERIFY2(notFound.body.contains(historyUpload.toUtf8()), notFound.body.constData());
}

QTEST_GUILESS_MAIN(TestTaskMove)
#include "tst_task_move.moc"
