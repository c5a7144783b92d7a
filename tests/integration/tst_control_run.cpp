// `warren` end to end: real sandboxes, the real agent, the real database. The demo fixes its workspace; tasks
// are exported; a killed agent or a killed `warren run` resumes and completes with every stored event
// kept; cancel, timeout, a sandbox that cannot be set up, and approvals end the way they say.

#include "agent_core/protocol/EventTypes.h"
#include "tests/support/AgentRun.h"
#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <signal.h>
#include <sqlite3.h>

using namespace warren;
using namespace warren::test;
using nlohmann::json;

namespace {

QString readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// One task record from `warren tasks --json` (the newest first).
json taskRecord(const QString& dataDir, const QProcessEnvironment& environment = QProcessEnvironment()) {
    const auto result = runWarren({"tasks", "--json"}, dataDir, environment);
    const auto records = jsonLines(result.out);
    return records.empty() ? json() : records.front();
}

QString sqliteValue(const QString& database, const char* query) {
    sqlite3* db = nullptr;
    QString value;
    if (sqlite3_open_v2(database.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(db, query, -1, &statement, nullptr) == SQLITE_OK && sqlite3_step(statement) == SQLITE_ROW)
            value = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
        sqlite3_finalize(statement);
    }
    sqlite3_close(db);
    return value;
}

bool sqliteExec(const QString& database, const char* statement) {
    sqlite3* db = nullptr;
    const bool done = sqlite3_open(database.toUtf8().constData(), &db) == SQLITE_OK &&
                      sqlite3_exec(db, statement, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return done;
}

// The pid of the warren-agent running under warrenPid (its sandbox is a child tree of warren).
pid_t agentUnder(qint64 warrenPid) {
    const QDir proc("/proc");
    for (const QString& entry : proc.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool number = false;
        const pid_t pid = entry.toInt(&number);
        if (!number || !readFile("/proc/" + entry + "/cmdline").startsWith("/opt/warren/warren-agent"))
            continue;
        for (pid_t ancestor = pid; ancestor > 1;) {
            const QString stat = readFile("/proc/" + QString::number(ancestor) + "/stat");
            const QStringList fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
            if (fields.size() < 2)
                break;
            ancestor = fields[1].toInt();
            if (ancestor == warrenPid)
                return pid;
        }
    }
    return -1;
}

// The long command is running: its first output is out, so the agent's checkpoint already records the
// call as started (a kill before that point would, rightly, make the resumed agent ask for it again).
bool isSleepCall(const json& event) {
    return event.value("type", "") == "tool_output" && event["data"].value("text", "").find("started") != std::string::npos;
}

// A script whose second step runs a long command (to be interrupted), then writes done.txt and finishes.
QString writeSleepScript(const QTemporaryDir& dir) {
    const QString script = dir.filePath("script.json");
    writeScript(script, {turn("write_file", {{"path", "before.txt"}, {"content", "before\n"}}),
                         turn("shell", {{"command", "echo started && sleep 300"}}),
                         turn("write_file", {{"path", "done.txt"}, {"content", "done\n"}}),
                         turn("finish", {{"summary", "done after the interruption"}})});
    return script;
}

// Starts `warren run --approve ask --preset safe-mode` on the script and reads its events until it asks.
bool runUntilAsked(QProcess& warren, QByteArray& out, const QString& dataDir, const QString& workspace,
                   const QString& script) {
    warren.setProcessEnvironment(warrenEnvironment(dataDir));
    warren.start(warrenBinary(), {"run", "--json", "--approve", "ask", "--preset", "safe-mode", "--provider",
                                  "scripted:" + script, "--workspace", workspace, "--data-dir", dataDir, "work"});
    return warren.waitForStarted() &&
           readEventsUntil(warren, [](const json& event) { return event.value("type", "") == "approval_requested"; }, &out);
}

} // namespace

class TestControlRun : public QObject {
    Q_OBJECT

private slots:
    void demoRunsInTheSandboxAndIsExported();
    void warrenWithoutADisplayRunsTheDemo();
    void storedSettingsChooseTheModel();
    void killedAgentResumesAndCompletes();
    void killedWarrenIsRecoveredAndResumed();
    void cancelFromAnotherProcess();
    void timeoutStopsTheTask();
    void waitingForTheUserIsNotWorkingTime();
    void theSettingsIdleTimePutsAWaitingTaskToSleep();
    void sandboxThatCannotBeSetUpExits3();
    void aControlPlaneHoldingManyDescriptorsStartsSandboxes();
    void approvalsFollowRulesAndMode();
    void approvalAskedOnTheTerminal();
    void commandPrefixAllowedOnTheTerminal();
    void doctorReadsTheSettings();
    void aTooBroadWorkspaceIsRefused();
};

void TestControlRun::demoRunsInTheSandboxAndIsExported() {
    QTemporaryDir data;
    const auto run = runWarren({"run", "--no-color", "fix the failing test"}, data.path());
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.contains("scripted demo"), run.err.constData());
    QVERIFY(run.out.contains("── step 6 ──"));
    QVERIFY(run.out.contains("PASS: Hello, Warren!"));

    const json task = taskRecord(data.path());
    QCOMPARE(task.value("status", ""), "succeeded");
    QCOMPARE(task.value("steps", 0), 6);
    const QString id = QString::fromStdString(task["id"].get<std::string>());
    const QString workspace = QString::fromStdString(task["workspace"].get<std::string>());
    QVERIFY(readFile(workspace + "/greet.sh").contains("Hello"));

    // Every event in order, store seqs 1..n, the agent's whole story from task_started to task_finished.
    const auto show = runWarren({"show", id, "--json"}, data.path());
    QCOMPARE(show.exitCode, 0);
    const auto events = parseEvents(show.out);
    QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
    QCOMPARE(events.events.front().seq, 1u);
    QCOMPARE(events.events.back().seq, events.events.size());
    QCOMPARE(events.events.front().type, "task_started");
    QCOMPARE(events.events.back().type, "task_finished");
    QCOMPARE(events.toolCalls(), (QStringList{"list_files", "shell", "read_file", "edit_file", "shell", "finish"}));
    QCOMPARE(sqliteValue(data.filePath("warren.db"), "PRAGMA integrity_check"), "ok");

    const QString exported = data.filePath("export");
    const auto exportRun = runWarren({"export", id, exported}, data.path());
    QCOMPARE(exportRun.exitCode, 0);
    QCOMPARE(json::parse(readFile(exported + "/task.json").toStdString()).value("status", ""), "succeeded");
    QCOMPARE(jsonLines(readFile(exported + "/events.jsonl").toUtf8()).size(), events.events.size());
    const json report = json::parse(readFile(exported + "/output/resource_report.json").toStdString(), nullptr, false);
    QCOMPARE(report.value("exit_reason", ""), "finished");
}

void TestControlRun::warrenWithoutADisplayRunsTheDemo() {
    QTemporaryDir data;
    QProcessEnvironment environment = warrenEnvironment(data.path());
    for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
        environment.remove(name);
    const auto run = runWarren({"--no-color"}, data.path(), environment);
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.contains("no display") && run.err.contains("scripted demo"), run.err.constData());
    QVERIFY(run.out.contains("PASS: Hello, Warren!"));
    const json task = taskRecord(data.path());
    QCOMPARE(task.value("status", ""), "succeeded");
    QCOMPARE(task["spec"].value("demo", false), true);
}

void TestControlRun::storedSettingsChooseTheModel() {
    QTemporaryDir data, workspace;
    QVERIFY(runWarren({"tasks"}, data.path()).exitCode == 0); // creates warren.db
    const QString script = data.filePath("script.json");
    writeScript(script, {turn("write_file", {{"path", "from-settings.txt"}, {"content", "yes\n"}}),
                         turn("finish", {{"summary", "used the stored model"}})});
    // What Settings in the window saves: the model, and presets for new tasks.
    const std::string insert = "INSERT INTO settings(key, value) VALUES ('model.provider', 'scripted:" +
                               script.toStdString() + "'), ('tasks.presets', '[\"local-light\"]')";
    QVERIFY(sqliteExec(data.filePath("warren.db"), insert.c_str()));

    const auto run = runWarren({"run", "--json", "--workspace", workspace.path(), "write the file"}, data.path());
    QCOMPARE(run.exitCode, 0);
    QVERIFY(QFile::exists(workspace.filePath("from-settings.txt")));
    const json task = taskRecord(data.path());
    QCOMPARE(task["spec"].value("provider", ""), "scripted:" + script.toStdString());
    QCOMPARE(task["spec"].value("presets", json::array()), json::array({"local-light"}));

    // A flag still wins over the stored setting.
    const auto flagged = runWarren({"run", "--json", "--preset", "safe-mode", "--workspace", workspace.path(), "again"},
                                   data.path());
    QCOMPARE(flagged.exitCode, 0);
    const auto records = jsonLines(runWarren({"tasks", "--json"}, data.path()).out);
    QCOMPARE(records.size(), 2u);
    const auto again = std::find_if(records.begin(), records.end(),
                                    [](const json& record) { return record.value("prompt", "") == "again"; });
    QVERIFY(again != records.end());
    QCOMPARE((*again)["spec"].value("presets", json::array()), json::array({"safe-mode"}));
}

void TestControlRun::killedAgentResumesAndCompletes() {
    QTemporaryDir data, workspace;
    const QString script = writeSleepScript(data);
    QProcess warren;
    startWarren(warren, {"run", "--json", "--provider", "scripted:" + script, "--workspace", workspace.path(), "work"},
                data.path());
    QByteArray firstRun;
    QVERIFY(readEventsUntil(warren, isSleepCall, &firstRun));
    const pid_t agent = agentUnder(warren.processId());
    QVERIFY(agent > 0);
    QCOMPARE(::kill(agent, SIGKILL), 0);
    QVERIFY(warren.waitForFinished(60000));
    QCOMPARE(warren.exitCode(), 1);
    QVERIFY(warren.readAllStandardError().contains("warren resume"));
    const json interrupted = taskRecord(data.path());
    QCOMPARE(interrupted.value("status", ""), "interrupted");
    const QString id = QString::fromStdString(interrupted["id"].get<std::string>());
    const auto before = parseEvents(runWarren({"show", id, "--json"}, data.path()).out);

    const auto resumed = runWarren({"resume", id, "--json"}, data.path());
    QCOMPARE(resumed.exitCode, 0);
    QCOMPARE(taskRecord(data.path()).value("status", ""), "succeeded");
    QCOMPARE(readFile(workspace.filePath("done.txt")), "done\n");
    // Nothing stored before the kill was lost or rewritten, and the sequence continues without a gap.
    const auto after = parseEvents(runWarren({"show", id, "--json"}, data.path()).out);
    QVERIFY2(after.error.isEmpty(), qPrintable(after.error));
    QVERIFY(after.events.size() > before.events.size());
    for (std::size_t i = 0; i < before.events.size(); ++i)
        QCOMPARE(after.events[i], before.events[i]);
    QCOMPARE(after.events.back().seq, after.events.size());
    // The interrupted call is reported as interrupted, not run again.
    QCOMPARE(after.ofType("task_resumed").size(), 1u);
    QCOMPARE(sqliteValue(data.filePath("warren.db"), "PRAGMA integrity_check"), "ok");
}

void TestControlRun::killedWarrenIsRecoveredAndResumed() {
    QTemporaryDir data, workspace, runtime;
    // The records of placeholders in a directory of this test's own: no other test's launch sweeps them.
    QProcessEnvironment environment = warrenEnvironment(data.path());
    environment.insert("WARREN_PLACEHOLDER_RECORDS", runtime.filePath("records"));
    const QString script = writeSleepScript(data);
    QProcess warren;
    startWarren(warren, {"run", "--json", "--provider", "scripted:" + script, "--workspace", workspace.path(), "work"},
                data.path(), environment);
    QByteArray firstRun;
    QVERIFY(readEventsUntil(warren, isSleepCall, &firstRun));
    warren.kill(); // SIGKILL: no chance to clean up; the sandbox dies with it
    QVERIFY(warren.waitForFinished(60000));
    // The sandbox's placeholders of protected paths that did not exist (the workspace is no repository) are
    // left in the workspace, with their record.
    const QStringList placeholders = {".envrc", ".git", ".vscode", ".idea", ".devcontainer"};
    for (const QString& name : placeholders)
        QVERIFY2(QFileInfo::exists(workspace.filePath(name)), qPrintable(name));
    QCOMPARE(QDir(runtime.filePath("records")).entryList({"rec-*"}, QDir::Files).size(), 1);

    // The next warren finds the task running without a process and marks it interrupted, and removes the
    // placeholders its sandbox left.
    const json interrupted = taskRecord(data.path(), environment);
    QCOMPARE(interrupted.value("status", ""), "interrupted");
    for (const QString& name : placeholders)
        QVERIFY2(!QFileInfo::exists(workspace.filePath(name)), qPrintable(name));
    QVERIFY(QDir(runtime.filePath("records")).entryList({"rec-*"}, QDir::Files).isEmpty());
    QCOMPARE(QDir(workspace.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{"before.txt"});
    QCOMPARE(sqliteValue(data.filePath("warren.db"), "PRAGMA integrity_check"), "ok");
    const QString id = QString::fromStdString(interrupted["id"].get<std::string>());
    const auto before = parseEvents(runWarren({"show", id, "--json"}, data.path()).out);
    QVERIFY2(before.error.isEmpty(), qPrintable(before.error));
    QVERIFY(!before.ofType("checkpoint").empty());

    const auto resumed = runWarren({"resume", id}, data.path());
    QCOMPARE(resumed.exitCode, 0);
    QCOMPARE(readFile(workspace.filePath("done.txt")), "done\n");
    const auto after = parseEvents(runWarren({"show", id, "--json"}, data.path()).out);
    QVERIFY2(after.error.isEmpty(), qPrintable(after.error));
    for (std::size_t i = 0; i < before.events.size(); ++i)
        QCOMPARE(after.events[i], before.events[i]);
    QCOMPARE(after.events.back().type, "task_finished");
    QCOMPARE(sqliteValue(data.filePath("warren.db"), "PRAGMA integrity_check"), "ok");
}

void TestControlRun::cancelFromAnotherProcess() {
    QTemporaryDir data, workspace;
    const QString script = writeSleepScript(data);
    QProcess warren;
    startWarren(warren, {"run", "--json", "--provider", "scripted:" + script, "--workspace", workspace.path(), "work"},
                data.path());
    QByteArray out;
    QVERIFY(readEventsUntil(warren, isSleepCall, &out));
    const QString id = QString::fromStdString(taskRecord(data.path())["id"].get<std::string>());
    QCOMPARE(runWarren({"cancel", id}, data.path()).exitCode, 0);
    // runWarren ran the event loop: warren may already have been seen to finish.
    QVERIFY(warren.state() == QProcess::NotRunning || warren.waitForFinished(60000));
    QCOMPARE(warren.exitCode(), 1);
    QCOMPARE(taskRecord(data.path()).value("status", ""), "cancelled");
    QVERIFY(!QFile::exists(workspace.filePath("done.txt")));
    const auto events = parseEvents(runWarren({"show", id, "--json"}, data.path()).out);
    QCOMPARE(events.events.back().type, "task_finished");
    QCOMPARE(events.events.back().data.value("reason", ""), "cancelled");
}

void TestControlRun::timeoutStopsTheTask() {
    QTemporaryDir data, workspace;
    const QString script = writeSleepScript(data);
    const auto run = runWarren({"run", "--timeout", "2", "--provider", "scripted:" + script, "--workspace",
                                workspace.path(), "work"},
                               data.path());
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("--timeout"), run.err.constData());
    const json task = taskRecord(data.path());
    QCOMPARE(task.value("status", ""), "failed");
    QCOMPARE(task.value("finish_reason", ""), "timeout");
}

// Waiting is not working (DESIGN §14): a run that only waits for its user's answer spends none of its
// --timeout (5 s), so it is still there to fall asleep after its own idle_sleep_sec (8 s) instead of failing
// on the timeout; the answer on the terminal wakes it, and it finishes.
void TestControlRun::waitingForTheUserIsNotWorkingTime() {
    QTemporaryDir data, workspace;
    const QString script = data.filePath("script.json");
    writeScript(script, {turn("write_file", {{"path", "answered.txt"}, {"content", "yes\n"}}),
                         turn("finish", {{"summary", "written"}})});
    QProcess warren;
    warren.setProcessEnvironment(warrenEnvironment(data.path()));
    warren.start(warrenBinary(), {"run", "--json", "--approve", "ask", "--preset", "safe-mode", "--timeout", "5",
                                  "--set", "idle_sleep_sec=8", "--provider", "scripted:" + script, "--workspace",
                                  workspace.path(), "--data-dir", data.path(), "work"});
    QByteArray out;
    QVERIFY(warren.waitForStarted());
    QVERIFY2(readEventsUntil(warren, [](const json& event) { return event.value("type", "") == "task_slept"; }, &out),
             out.constData());
    const auto asleep = parseEvents(out);
    QCOMPARE(asleep.ofType("task_slept").front().data.value("idle_ms", 0), 8000);
    // The task's record says so once the run's end is stored, just after its last event.
    QTRY_COMPARE_WITH_TIMEOUT(taskRecord(data.path()).value("status", ""), "sleeping", 10000);
    QVERIFY(!QFile::exists(workspace.filePath("answered.txt")));

    warren.write("y\n");
    QVERIFY(warren.waitForBytesWritten());
    QVERIFY(warren.waitForFinished(60000));
    QCOMPARE(warren.exitCode(), 0);
    QCOMPARE(taskRecord(data.path()).value("status", ""), "succeeded");
    QCOMPARE(readFile(workspace.filePath("answered.txt")), QString("yes\n"));
}

// The desktop's idle time is a setting (Settings, "Release a waiting sandbox after"): a task that waits for
// the terminal's answer sleeps after it, and the answer wakes it.
void TestControlRun::theSettingsIdleTimePutsAWaitingTaskToSleep() {
    QTemporaryDir data, workspace;
    const QString script = data.filePath("script.json");
    writeScript(script, {turn("write_file", {{"path", "answered.txt"}, {"content", "yes\n"}}),
                         turn("finish", {{"summary", "written"}})});
    QVERIFY(runWarren({"tasks"}, data.path()).exitCode == 0); // creates warren.db
    QVERIFY(sqliteExec(data.filePath("warren.db"), "INSERT INTO settings(key, value) VALUES ('tasks.idle_sleep_sec', '1')"));
    QProcess warren;
    QByteArray out;
    QVERIFY(runUntilAsked(warren, out, data.path(), workspace.path(), script));
    QVERIFY2(readEventsUntil(warren, [](const json& event) { return event.value("type", "") == "task_slept"; }, &out),
             out.constData());
    QCOMPARE(parseEvents(out).ofType("task_slept").front().data.value("idle_ms", 0), 1000);
    warren.write("y\n");
    QVERIFY(warren.waitForBytesWritten());
    QVERIFY(warren.waitForFinished(60000));
    QCOMPARE(warren.exitCode(), 0);
    QCOMPARE(readFile(workspace.filePath("answered.txt")), QString("yes\n"));
}

void TestControlRun::sandboxThatCannotBeSetUpExits3() {
    QTemporaryDir data;
    const QString layer = data.filePath("broken.json");
    QFile file(layer);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"mounts\": {\"/needed\": {\"type\": \"ro-bind\", \"source\": \"/does/not/exist\"}}}");
    file.close();
    QProcessEnvironment environment = warrenEnvironment(data.path());
    environment.insert("WARREN_SANDBOX_PROFILE", layer);
    const auto run = runWarren({"run", "anything"}, data.path(), environment);
    QCOMPARE(run.exitCode, 3);
    QVERIFY2(run.err.contains("/does/not/exist") && run.err.contains("warren doctor"), run.err.constData());
    QCOMPARE(taskRecord(data.path()).value("status", ""), "failed");
}

// warrend running hundreds of tasks holds thousands of descriptors, more than a sandbox's open-files limit
// (limits.open_files): its sandboxes still start. Here warren holds descriptors 3 to 300 (its shell's,
// inherited) and the sandbox may open 64: every number below the limit is taken when the launch's child
// makes its own, so the limit is set only once it has made them.
void TestControlRun::aControlPlaneHoldingManyDescriptorsStartsSandboxes() {
    QTemporaryDir data, workspace;
    const QString layer = data.filePath("few-files.json");
    QFile file(layer);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"limits": {"open_files": 64}})");
    file.close();
    const QString script = data.filePath("script.json");
    writeScript(script, {turn("shell", {{"command", "echo ran > ran.txt"}}), turn("finish", {{"summary", "ran"}})});
    QProcessEnvironment environment = warrenEnvironment(data.path());
    environment.insert("WARREN_SANDBOX_PROFILE", layer);
    QProcess warren;
    warren.setProcessEnvironment(environment);
    warren.start("bash", {"-c", R"(for fd in $(seq 3 300); do eval "exec $fd</dev/null"; done; exec "$@")", "bash",
                          warrenBinary(), "run", "--json", "--provider", "scripted:" + script, "--workspace",
                          workspace.path(), "--data-dir", data.path(), "work"});
    QVERIFY(warren.waitForFinished(kWarrenTimeoutMs));
    QVERIFY2(warren.exitCode() == 0, warren.readAllStandardError().constData());
    QCOMPARE(taskRecord(data.path()).value("status", ""), "succeeded");
    QCOMPARE(readFile(workspace.filePath("ran.txt")), QString("ran\n"));
}

void TestControlRun::approvalsFollowRulesAndMode() {
    QTemporaryDir data, workspace;
    const QString script = data.filePath("script.json");
    writeScript(script, {turn("shell", {{"command", "ls"}}),             // allowed by a rule
                         turn("shell", {{"command", "touch made.txt"}}), // no rule: the mode (deny) decides
                         turn("shell", {{"command", "df -k /tmp"}}),     // no rule: denied as well
                         turn("finish", {{"summary", "asked"}})});
    const auto run = runWarren({"run", "--json", "--preset", "safe-mode", "--approve", "deny", "--provider",
                                "scripted:" + script, "--workspace", workspace.path(), "work"},
                               data.path());
    QCOMPARE(run.exitCode, 0);
    const auto events = parseEvents(run.out);
    const auto resolved = events.ofType("approval_resolved");
    QCOMPARE(resolved.size(), 3u);
    QCOMPARE(resolved[0].data.value("approved", false), true);
    QCOMPARE(resolved[1].data.value("approved", true), false);
    QVERIFY(!QFile::exists(workspace.filePath("made.txt")));

    // --approve auto: the same unruled command runs, in the strict profile safe-mode asks for (/tmp capped).
    QTemporaryDir data2;
    const auto automatic = runWarren({"run", "--json", "--preset", "safe-mode", "--approve", "auto", "--provider",
                                      "scripted:" + script, "--workspace", workspace.path(), "work"},
                                     data2.path());
    QCOMPARE(automatic.exitCode, 0);
    QVERIFY(QFile::exists(workspace.filePath("made.txt")));
    const auto autoEvents = parseEvents(automatic.out);
    QVERIFY2(QString::fromStdString(autoEvents.outputOf("call_2_0")).contains("131072"),
             autoEvents.outputOf("call_2_0").c_str());
}

void TestControlRun::approvalAskedOnTheTerminal() {
    QTemporaryDir data, workspace;
    const QString script = data.filePath("script.json");
    writeScript(script, {turn("shell", {{"command", "touch asked.txt"}}), turn("finish", {{"summary", "asked"}})});
    QProcess warren;
    QByteArray out;
    QVERIFY(runUntilAsked(warren, out, data.path(), workspace.path(), script));
    warren.write("n\nplease do not\n");
    QVERIFY(warren.waitForBytesWritten());
    QVERIFY(warren.waitForFinished(60000));
    out += warren.readAllStandardOutput();
    QCOMPARE(warren.exitCode(), 0);
    const auto events = parseEvents(out);
    const auto resolved = events.ofType("approval_resolved");
    QCOMPARE(resolved.size(), 1u);
    QCOMPARE(resolved[0].data.value("approved", true), false);
    QCOMPARE(resolved[0].data.value("note", ""), "please do not");
    QVERIFY(!QFile::exists(workspace.filePath("asked.txt")));
}

// "c" on the terminal: this call and the task's next touch run, the prefix is kept for later tasks.
void TestControlRun::commandPrefixAllowedOnTheTerminal() {
    QTemporaryDir data, workspace;
    const QString script = data.filePath("script.json");
    writeScript(script, {turn("shell", {{"command", "touch one.txt"}}), turn("shell", {{"command", "touch two.txt"}}),
                         turn("finish", {{"summary", "touched"}})});
    QProcess warren;
    QByteArray out;
    QVERIFY(runUntilAsked(warren, out, data.path(), workspace.path(), script));
    warren.write("c\n");
    QVERIFY(warren.waitForBytesWritten());
    QVERIFY(warren.waitForFinished(60000));
    out += warren.readAllStandardOutput();
    QCOMPARE(warren.exitCode(), 0);
    QVERIFY(warren.readAllStandardError().contains("[c]ommands starting with \"touch\""));
    QVERIFY(QFile::exists(workspace.filePath("one.txt")));
    QVERIFY(QFile::exists(workspace.filePath("two.txt")));
    QCOMPARE(sqliteValue(data.filePath("warren.db"),
                         "SELECT value FROM settings WHERE key = 'approvals.allowed_commands'"),
             QStringLiteral("[\"touch\"]"));
    QCOMPARE(sqliteValue(data.filePath("warren.db"),
                         "SELECT group_concat(decided_by) FROM (SELECT decided_by FROM approvals ORDER BY rowid)"),
             QStringLiteral("user,rule"));
}

// `warren doctor` checks what `warren run` would use: the model from the settings the window keeps when the
// environment names none, and the container engine and image when the settings choose a container backend.
void TestControlRun::doctorReadsTheSettings() {
    QTemporaryDir data;
    const QString script = data.filePath("script.json");
    writeScript(script, {turn("finish", {{"summary", "done"}})});
    QVERIFY(runWarren({"tasks"}, data.path()).exitCode == 0); // creates warren.db
    const std::string rows = "INSERT INTO settings(key, value) VALUES ('model.provider', 'scripted:" +
                             script.toStdString() + "'), ('sandbox.backend', 'podman'), " +
                             "('sandbox.image', 'localhost/no-such-image:0')";
    QVERIFY(sqliteExec(data.filePath("warren.db"), rows.c_str()));
    QProcessEnvironment environment = warrenEnvironment(data.path());
    environment.remove("WARREN_PROVIDER");
    environment.remove("WARREN_MODEL");
    const auto doctor = runWarren({"doctor", "--json"}, data.path(), environment);
    const json report = json::parse(doctor.out.toStdString(), nullptr, false);
    QVERIFY2(report.is_object(), doctor.out.constData());
    std::map<std::string, json> checks;
    for (const auto& check : report["checks"])
        checks[check.value("name", "")] = check;
    QCOMPARE(checks["model provider"].value("status", ""), "ok");
    QVERIFY2(checks["model provider"].value("detail", "").find("scripted") != std::string::npos,
             checks["model provider"].dump().c_str());
    // The container checks are there, under the engine's name; the missing image is found and named.
    QVERIFY2(checks.contains("podman engine"), doctor.out.constData());
    if (checks.contains("podman image")) {
        QCOMPARE(checks["podman image"].value("status", ""), "failed");
        QVERIFY(checks["podman image"].value("detail", "").find("localhost/no-such-image:0") != std::string::npos);
        QCOMPARE(report.value("ok", true), false);
    }
}

// The home folder (where a menu starts the app), what holds it and its key folders are never a workspace:
// refused before a task exists, saying why and what to do.
void TestControlRun::aTooBroadWorkspaceIsRefused() {
    QTemporaryDir data, home;
    QVERIFY(QDir(home.path()).mkpath(".ssh"));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("HOME", home.path());
    const QString script = data.filePath("script.json");
    QVERIFY(writeScript(script, {turn("finish", {{"summary", "nothing"}})}));
    for (const QString& workspace : {home.path(), home.filePath(".ssh"), QFileInfo(home.path()).absolutePath()}) {
        const auto result = runWarren({"run", "--provider", "scripted:" + script, "--workspace", workspace,
                                       "do something"},
                                      data.path(), environment);
        QVERIFY2(result.exitCode != 0, result.out.constData());
        QVERIFY2(result.err.contains("Choose the project's own folder"), result.err.constData());
    }
    QVERIFY(taskRecord(data.path()).is_null()); // no task was made
}

QTEST_GUILESS_MAIN(TestControlRun)
#include "tst_control_run.moc"
