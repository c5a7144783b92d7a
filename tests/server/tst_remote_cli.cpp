// `warren --remote URL` as a user meets it: the real CLI against a real warrend on a PostgreSQL of its
// own, tasks in real sandboxes with scripted models. The workspace goes up as git would pack it, the live
// view is the same as a local run's, the change comes home without overwriting what the user changed
// since, another user's ids are not found, and a kill -9 of the server mid-task loses and repeats no event.
#include "tests/support/WarrendServer.h"
#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QDirIterator>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

// Writes a file, edits another, removes a third: each kind of change a patch carries.
const QByteArray kScriptChanging = R"({"turns": [
  {"content": "Notes first.", "tool_calls": [{"name": "write_file", "arguments": {"path": "notes.md", "content": "remote notes\n"}}]},
  {"tool_calls": [{"name": "edit_file", "arguments": {"path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}}]},
  {"tool_calls": [{"name": "shell", "arguments": {"command": "rm b.txt && ls"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "changed three files"}}]}]})";

// Waits in its first call until the file go appears in its workspace (the test creates it on the server),
// so the server can be killed while the task runs.
const QByteArray kScriptWaiting = R"({"turns": [
  {"content": "Waiting for go.", "tool_calls": [{"name": "shell", "arguments": {"command": "while [ ! -e go ]; do sleep 0.05; done; echo went"}}]},
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "after.txt", "content": "after the restart\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "done"}}]}]})";

// With safe-mode the agent asks before it writes: a rule allows docs/, no rule notes.txt, so only that write
// is a question for the user.
const QByteArray kScriptAsking = R"({"turns": [
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "docs/a.md", "content": "a\n"}}]},
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "asked\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote"}}]}]})";

// A task that finishes, and what it does when its owner replies.
const QByteArray kScriptReplied = R"({"turns": [
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "notes.md", "content": "first\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote notes.md"}}]},
  {"content": "As you asked.", "tool_calls": [{"name": "write_file", "arguments": {"path": "more.md", "content": "more\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote more.md too"}}]}]})";

// The tool calls of a run, as name and arguments: what a local and a remote run of one script share.
std::vector<std::string> toolCalls(const std::vector<json>& events) {
    std::vector<std::string> calls;
    for (const auto& event : events)
        if (event.value("type", "") == "tool_call")
            calls.push_back(event.value("tool", "") + " " + event["data"]["arguments"].dump());
    return calls;
}

// task_started names its task.
QString taskIdOf(const std::vector<json>& events) {
    for (const auto& event : events)
        if (event.value("type", "") == "task_started")
            return QString::fromStdString(event["data"].value("task_id", ""));
    return {};
}

} // namespace

class TestRemoteCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void runsATaskOnTheServerWithTheLiveView();
    void printsTheSameEventsAsALocalRun();
    void appliesTheChangeAndLeavesLocalEditsAlone();
    void appliesFromAnotherDataDirectoryIntoTheWorkspaceNamed();
    void answersOnlyTheQuestionsForTheUser_data();
    void answersOnlyTheQuestionsForTheUser();
    void anotherUsersTaskIsNotFound_data();
    void anotherUsersTaskIsNotFound();
    void continuesAcrossAServerKilledMidTask();
    void aReplyGoesOnOnTheServer();
    void saysWhatIsWrongWithTheServerOrTheKey_data();
    void saysWhatIsWrongWithTheServerOrTheKey();

private:
    QProcessEnvironment environmentWithKey(const QString& key) const;
    WarrenResult remote(const QStringList& args, const QString& key);
    QString makeWorkspace();
    QString scriptFile(const QByteArray& script);

    std::unique_ptr<WarrendServer> m_server;
    QTemporaryDir m_dir;
    QString m_alice, m_bob;
    QString m_workspace; // alice's, after runsATaskOnTheServerWithTheLiveView
    QString m_task;      // its task
    std::vector<json> m_events;
};

void TestRemoteCli::initTestCase() {
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_alice = m_server->addUser("alice", "acme");
    m_bob = m_server->addUser("bob", "globex");
    QVERIFY(!m_alice.isEmpty() && !m_bob.isEmpty());
}

QProcessEnvironment TestRemoteCli::environmentWithKey(const QString& key) const {
    QProcessEnvironment environment = warrenEnvironment(m_dir.path() + "/data");
    environment.insert("WARREN_REMOTE_KEY", key);
    return environment;
}

WarrenResult TestRemoteCli::remote(const QStringList& args, const QString& key) {
    return runWarren(args + QStringList{"--remote", m_server->url()}, m_dir.path() + "/data", environmentWithKey(key));
}

QString TestRemoteCli::makeWorkspace() {
    static int count = 0;
    const QString workspace = m_dir.path() + "/workspace-" + QString::number(++count);
    writeTestFile(workspace + "/a.txt", "alpha\nbeta\n");
    writeTestFile(workspace + "/b.txt", "to be removed\n");
    writeTestFile(workspace + "/.gitignore", "build/\n*.log\n");
    writeTestFile(workspace + "/build/output.o", QByteArray(4096, 'x'));
    writeTestFile(workspace + "/debug.log", "ignored\n");
    return workspace;
}

QString TestRemoteCli::scriptFile(const QByteArray& script) {
    static int count = 0;
    const QString path = m_dir.path() + "/script-" + QString::number(++count) + ".json";
    writeTestFile(path, script);
    return path;
}

void TestRemoteCli::runsATaskOnTheServerWithTheLiveView() {
    m_workspace = makeWorkspace();
    const auto run = remote({"run", "--json", "--workspace", m_workspace, "--provider", "scripted:" + scriptFile(kScriptChanging),
                             "change three files"},
                            m_alice);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    m_events = jsonLines(run.out);
    QVERIFY2(!m_events.empty() && dense(seqsOf(m_events)), "every event once, in order, from the first");
    QCOMPARE(m_events.front().value("type", ""), "limits_applied"); // the server's clamp comes first
    QCOMPARE(m_events.back().value("type", ""), "task_finished");
    m_task = taskIdOf(m_events);
    QVERIFY(!m_task.isEmpty());

    // The server got what git would not ignore, and nothing else.
    const QString uploads = m_server->dataDir() + "/data/uploads";
    QStringList uploaded;
    for (QDirIterator it(uploads, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories); it.hasNext();) {
        const QString path = it.next();
        if (path.contains("/tree/"))
            uploaded << path.mid(path.indexOf("/tree/") + 6);
    }
    uploaded.sort();
    QCOMPARE(uploaded, (QStringList{".gitignore", "a.txt", "b.txt"}));

    // The task is alice's, in the list and shown, as a local task is.
    const auto listed = remote({"tasks", "--json"}, m_alice);
    QCOMPARE(listed.exitCode, 0);
    const auto tasks = jsonLines(listed.out);
    QCOMPARE(tasks.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(tasks[0].value("id", "")), m_task);
    QCOMPARE(tasks[0].value("status", ""), "succeeded");
    QCOMPARE(QString::fromStdString(tasks[0].value("workspace", "")), QDir(m_workspace).canonicalPath());
    const auto shown = remote({"show", m_task, "--json"}, m_alice);
    QCOMPARE(shown.exitCode, 0);
    QCOMPARE(seqsOf(jsonLines(shown.out)), seqsOf(m_events));
    const auto text = remote({"show", m_task}, m_alice);
    QVERIFY2(text.out.contains("notes.md") && text.out.contains("succeeded"), text.out.constData());

    // Nothing of the change has reached the local workspace yet.
    QVERIFY(!QFile::exists(m_workspace + "/notes.md"));
    QCOMPARE(readTestFile(m_workspace + "/a.txt"), QByteArray("alpha\nbeta\n"));
}

void TestRemoteCli::printsTheSameEventsAsALocalRun() {
    QVERIFY(!m_events.empty());
    const QString workspace = makeWorkspace();
    const auto local = runWarren({"run", "--json", "--workspace", workspace, "--provider",
                                  "scripted:" + scriptFile(kScriptChanging), "change three files"},
                                 m_dir.path() + "/local");
    QVERIFY2(local.exitCode == 0, local.err.constData());
    const auto events = jsonLines(local.out);
    QCOMPARE(toolCalls(m_events), toolCalls(events));
    QCOMPARE(toolCalls(events).front().substr(0, 11), "write_file ");
    QCOMPARE(toolCalls(events).size(), std::size_t{4});
    // Each event has the same envelope, field for field.
    for (const auto& event : m_events)
        for (const char* field : {"seq", "ts", "type", "step", "data"})
            QVERIFY2(event.contains(field), event.dump().c_str());
}

void TestRemoteCli::appliesTheChangeAndLeavesLocalEditsAlone() {
    QVERIFY(!m_task.isEmpty());
    // The user changed a.txt here while the task ran there.
    QVERIFY(writeTestFile(m_workspace + "/a.txt", "alpha, edited here\n"));

    const auto check = remote({"apply", m_task, "--check"}, m_alice);
    QCOMPARE(check.exitCode, 1);
    QVERIFY2(check.out.contains("would apply notes.md") && check.out.contains("would apply b.txt"), check.out.constData());
    QVERIFY2(check.out.contains("conflict    a.txt"), check.out.constData());
    QVERIFY(!QFile::exists(m_workspace + "/notes.md")); // --check writes nothing
    QVERIFY(QFile::exists(m_workspace + "/b.txt"));

    const auto applied = remote({"apply", m_task}, m_alice);
    QCOMPARE(applied.exitCode, 1); // a file was left
    QVERIFY2(applied.err.contains("left as they are"), applied.err.constData());
    QCOMPARE(readTestFile(m_workspace + "/notes.md"), QByteArray("remote notes\n"));
    QVERIFY(!QFile::exists(m_workspace + "/b.txt"));
    QCOMPARE(readTestFile(m_workspace + "/a.txt"), QByteArray("alpha, edited here\n"));
    QCOMPARE(readTestFile(m_workspace + "/build/output.o").size(), 4096); // ignored files are not the task's

    // Into another directory, named: a copy of the original workspace takes the whole change.
    const QString copy = makeWorkspace();
    const auto elsewhere = remote({"apply", m_task, "--workspace", copy}, m_alice);
    QVERIFY2(elsewhere.exitCode == 0, elsewhere.err.constData());
    QCOMPARE(readTestFile(copy + "/a.txt"), QByteArray("ALPHA\nbeta\n"));
    QCOMPARE(readTestFile(copy + "/notes.md"), QByteArray("remote notes\n"));
}

// Another computer, or another data directory: nothing of the upload is known there, so the user names the
// workspace, and the patch's own pre-images tell the files the user changed from the task's.
void TestRemoteCli::appliesFromAnotherDataDirectoryIntoTheWorkspaceNamed() {
    QVERIFY(!m_task.isEmpty());
    const QString elsewhere = m_dir.path() + "/elsewhere";
    const auto fromElsewhere = [&](const QStringList& args) {
        return runWarren(args + QStringList{"--remote", m_server->url()}, elsewhere, environmentWithKey(m_alice));
    };
    const auto unnamed = fromElsewhere({"apply", m_task});
    QCOMPARE(unnamed.exitCode, 2);
    QVERIFY2(unnamed.err.contains("--workspace DIR"), unnamed.err.constData());

    const QString copy = makeWorkspace();
    QVERIFY(writeTestFile(copy + "/a.txt", "alpha, edited here\n"));
    const auto check = fromElsewhere({"apply", m_task, "--workspace", copy, "--check"});
    QVERIFY2(check.exitCode == 1, check.err.constData());
    QVERIFY2(check.out.contains("would apply notes.md") && check.out.contains("would apply b.txt"), check.out.constData());
    QVERIFY2(check.out.contains("conflict    a.txt: was changed here since the upload"), check.out.constData());
    const auto applied = fromElsewhere({"apply", m_task, "--workspace", copy});
    QCOMPARE(applied.exitCode, 1); // a.txt was left
    QCOMPARE(readTestFile(copy + "/notes.md"), QByteArray("remote notes\n"));
    QVERIFY(!QFile::exists(copy + "/b.txt"));
    QCOMPARE(readTestFile(copy + "/a.txt"), QByteArray("alpha, edited here\n"));
}

void TestRemoteCli::answersOnlyTheQuestionsForTheUser_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<bool>("written");
    QTest::newRow("approve") << "auto" << true;
    QTest::newRow("deny") << "deny" << false;
}

void TestRemoteCli::answersOnlyTheQuestionsForTheUser() {
    QFETCH(QString, mode);
    QFETCH(bool, written);
    const QString workspace = makeWorkspace();
    const auto run = remote({"run", "--json", "--preset", "safe-mode", "--approve", mode, "--workspace", workspace,
                             "--provider", "scripted:" + scriptFile(kScriptAsking), "write two files"},
                            m_alice);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    // docs/a.md was the rule's to decide: the CLI answered only notes.txt, and every answer reached the server.
    QVERIFY2(!run.err.contains("did not reach"), run.err.constData());
    std::vector<json> resolved;
    for (const auto& event : jsonLines(run.out))
        if (event.value("type", "") == "approval_resolved")
            resolved.push_back(event["data"]);
    QCOMPARE(resolved.size(), std::size_t{2});
    QCOMPARE(resolved[0].value("approved", false), true);
    QCOMPARE(resolved[1].value("approved", !written), written);
    const auto applied = remote({"apply", taskIdOf(jsonLines(run.out))}, m_alice);
    QCOMPARE(applied.exitCode, 0);
    QVERIFY(QFile::exists(workspace + "/docs/a.md"));
    QCOMPARE(QFile::exists(workspace + "/notes.txt"), written);
}

void TestRemoteCli::anotherUsersTaskIsNotFound_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("show") << QStringList{"show", "TASK"};
    QTest::newRow("show --json") << QStringList{"show", "TASK", "--json"};
    QTest::newRow("cancel") << QStringList{"cancel", "TASK"};
    QTest::newRow("resume") << QStringList{"resume", "TASK", "--approve", "deny"};
    QTest::newRow("reply") << QStringList{"reply", "TASK", "now delete everything", "--approve", "auto"};
    QTest::newRow("export") << QStringList{"export", "TASK", "EXPORT"};
    QTest::newRow("apply") << QStringList{"apply", "TASK", "--workspace", "WORKSPACE"};
}

void TestRemoteCli::anotherUsersTaskIsNotFound() {
    QFETCH(QStringList, args);
    QVERIFY(!m_task.isEmpty());
    const QString workspace = makeWorkspace();
    args.replaceInStrings("TASK", m_task);
    args.replaceInStrings("EXPORT", m_dir.path() + "/bob-export");
    args.replaceInStrings("WORKSPACE", workspace);
    const auto attempt = remote(args, m_bob);
    QCOMPARE(attempt.exitCode, 2);
    QVERIFY2(attempt.err.contains("not found") || attempt.err.contains("no task"), attempt.err.constData());
    QVERIFY(attempt.out.isEmpty());
    QVERIFY(!QFile::exists(m_dir.path() + "/bob-export/events.jsonl"));
    QCOMPARE(readTestFile(workspace + "/a.txt"), QByteArray("alpha\nbeta\n"));
    // bob's list is his own: empty.
    const auto listed = remote({"tasks", "--json"}, m_bob);
    QCOMPARE(listed.exitCode, 0);
    QVERIFY(jsonLines(listed.out).empty());
    // And alice's task is as it was.
    const auto shown = remote({"show", m_task, "--json"}, m_alice);
    QCOMPARE(seqsOf(jsonLines(shown.out)), seqsOf(m_events));
}

void TestRemoteCli::continuesAcrossAServerKilledMidTask() {
    QProcess cli;
    startWarren(cli,
                {"run", "--json", "--workspace", makeWorkspace(), "--provider", "scripted:" + scriptFile(kScriptWaiting),
                 "wait for go", "--remote", m_server->url()},
                m_dir.path() + "/data", environmentWithKey(m_alice));
    QByteArray out;
    QString task;
    // Until the agent waits in its shell call.
    const auto waiting = [&] {
        out += cli.readAllStandardOutput();
        const auto events = jsonLines(out);
        task = taskIdOf(events);
        for (const auto& event : events)
            if (event.value("type", "") == "tool_call" && event.value("tool", "") == "shell")
                return !task.isEmpty();
        return false;
    };
    QVERIFY(cli.waitForStarted());
    QDeadlineTimer deadline(120000);
    while (!waiting() && !deadline.hasExpired() && cli.state() == QProcess::Running)
        cli.waitForReadyRead(1000);
    QVERIFY2(waiting(), cli.readAllStandardError().constData());
    m_server->kill();
    QString error;
    QVERIFY2(m_server->start(&error, {}, true), qPrintable(error));
    // The restarted server resumed the task; let it go on.
    QVERIFY(writeTestFile(m_server->dataDir() + "/data/workspaces/" + task + "/go", ""));
    const bool finished = cli.waitForFinished(150000);
    out += cli.readAllStandardOutput();
    const QByteArray err = cli.readAllStandardError();
    if (!finished)
        cli.kill();
    QVERIFY2(finished, (err + "\n" + out.right(3000) + "\n" + m_server->serverOutput().right(3000)).constData());
    QVERIFY2(cli.exitCode() == 0, err.constData());
    QVERIFY2(err.contains("reconnecting"), err.constData());
    const auto events = jsonLines(out);
    QVERIFY2(!events.empty() && dense(seqsOf(events)), "every event once, in order, across the kill");
    QCOMPARE(events.back().value("type", ""), "task_finished");
    bool resumed = false;
    for (const auto& event : events)
        resumed = resumed || event.value("type", "") == "task_resumed";
    QVERIFY2(resumed, "the server resumed the task after its restart");
}

// `warren reply --remote`: the finished task goes on on the server with the message, and the live view
// follows its new events from where the first run's ended.
void TestRemoteCli::aReplyGoesOnOnTheServer() {
    const QString workspace = makeWorkspace();
    const auto run = remote({"run", "--json", "--workspace", workspace, "--provider",
                             "scripted:" + scriptFile(kScriptReplied), "write the notes"},
                            m_alice);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const auto first = jsonLines(run.out);
    const QString task = taskIdOf(first);
    QVERIFY(!task.isEmpty());
    const auto replied = remote({"reply", task, "Also write more.md", "--json"}, m_alice);
    QVERIFY2(replied.exitCode == 0, replied.err.constData());
    const auto events = jsonLines(replied.out);
    QVERIFY(!events.empty());
    std::vector<json> all = first;
    all.insert(all.end(), events.begin(), events.end());
    QVERIFY2(dense(seqsOf(all)), "the reply's events follow the first run's, each once");
    std::vector<std::string> said;
    for (const auto& event : events)
        if (event.value("type", "") == "user_message")
            said.push_back(event["data"].value("text", ""));
    QCOMPARE(said, std::vector<std::string>{"Also write more.md"});
    QCOMPARE(events.back().value("type", ""), "task_finished");
    QCOMPARE(events.back()["data"].value("summary", ""), "wrote more.md too");
    const auto applied = remote({"apply", task, "--workspace", workspace}, m_alice);
    QVERIFY2(applied.exitCode == 0, applied.err.constData());
    QCOMPARE(readTestFile(workspace + "/notes.md"), QByteArray("first\n"));
    QCOMPARE(readTestFile(workspace + "/more.md"), QByteArray("more\n"));
    const auto again = remote({"reply", task, " "}, m_alice);
    QCOMPARE(again.exitCode, 2);
    QVERIFY2(again.err.contains("MESSAGE is missing"), again.err.constData());
}

void TestRemoteCli::saysWhatIsWrongWithTheServerOrTheKey_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("message");
    QTest::newRow("a mistyped key") << "SERVER" << "wrn_notakey" << "refused the API key";
    QTest::newRow("nothing listens") << "http://127.0.0.1:1" << "wrn_any" << "connection refused";
    QTest::newRow("not a URL") << "ftp://example" << "wrn_any" << "https://";
    QTest::newRow("a revoked key") << "SERVER" << "REVOKED" << "refused the API key";
}

void TestRemoteCli::saysWhatIsWrongWithTheServerOrTheKey() {
    QFETCH(QString, url);
    QFETCH(QString, key);
    QFETCH(QString, message);
    if (url == "SERVER")
        url = m_server->url();
    if (key == "REVOKED") { // carol's key worked until the operator revoked it
        key = m_server->addUser("carol", "acme");
        QCOMPARE(runWarren({"tasks", "--remote", url}, m_dir.path() + "/data", environmentWithKey(key)).exitCode, 0);
        QCOMPARE(m_server->admin({"revoke-key", "carol"}).exitCode, 0);
    }
    const auto attempt =
        runWarren({"tasks", "--remote", url}, m_dir.path() + "/data", environmentWithKey(key));
    QCOMPARE(attempt.exitCode, 2);
    QVERIFY2(attempt.err.contains(message.toUtf8()), attempt.err.constData());
}

QTEST_GUILESS_MAIN(TestRemoteCli)
#include "tst_remote_cli.moc"
