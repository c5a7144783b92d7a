// `warren run --backend podman` end to end: the demo and a scripted task run in a container with the same
// live view as under bubblewrap; a task moves between backends through its checkpoint (started under one,
// `warren` killed, resumed under the other, both ways); a cancel or a timeout leaves no container behind; a
// missing image fails the task with the preflight's report (exit 3).
//
// Needs podman, the image ($WARREN_TEST_IMAGE, default localhost/warren-test:3, from
// packaging/make-test-image.sh) and the static agent; skips with the reason otherwise. Podman reads
// $CONTAINERS_CONF; when that is unset and runc is installed, the repository's packaging/containers.conf is
// used.

#include "tests/support/AgentRun.h"
#include "tests/support/HostHttpServer.h"
#include "tests/support/PodmanTest.h"
#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <unistd.h>

using namespace warren;
using namespace warren::test;
using nlohmann::json;

namespace {

QString image() {
    return testImage();
}

// podman, or kube (tst_control_kube: the Pod, played by podman kube play, its agent connecting back).
QString backend() {
    const QString fromEnv = qEnvironmentVariable("WARREN_TEST_BACKEND");
    return fromEnv.isEmpty() ? QStringLiteral("podman") : fromEnv;
}

QStringList inPodman() {
    return {QStringLiteral("--backend"), backend(), QStringLiteral("--image"), image()};
}

QString readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// `podman ARGS`: exit status and stdout.
std::pair<int, QString> podman(const QStringList& arguments) {
    QProcess process;
    process.start(QStringLiteral("podman"), arguments);
    if (!process.waitForFinished(120000))
        return {-1, {}};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput())};
}

// Warren's containers of one task: running or not, or only those running.
QStringList containersOf(const QString& taskId, bool running = false) {
    const auto [status, out] =
        podman({QStringLiteral("ps"), running ? QStringLiteral("--filter=status=running") : QStringLiteral("--all"),
                QStringLiteral("--filter"),
                QStringLiteral("label=warren.sandbox=1"), QStringLiteral("--filter"),
                QStringLiteral("label=warren.task=") + taskId, QStringLiteral("--format"),
                QStringLiteral("{{.Names}}")});
    return status == 0 ? out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)
                       : QStringList{QStringLiteral("(podman ps failed)")};
}

// The newest task record from `warren tasks --json`.
json taskRecord(const QString& dataDir) {
    const auto records = jsonLines(runWarren({"tasks", "--json"}, dataDir).out);
    return records.empty() ? json() : records.front();
}

QString taskId(const json& record) {
    return record.is_object() ? QString::fromStdString(record.value("id", "")) : QString();
}

// The live view's step headers and tool lines: what a user sees, without timings and ids.
QStringList viewLines(const QByteArray& out) {
    QStringList lines;
    static const QRegularExpression step(QStringLiteral("^── step \\d+ ──"));
    for (const QString& line : QString::fromUtf8(out).split(QLatin1Char('\n'))) {
        if (const auto match = step.match(line); match.hasMatch())
            lines << match.captured(0);
        else if (line.startsWith(QStringLiteral("▶")) || line.contains(QStringLiteral("PASS")) ||
                 line.contains(QStringLiteral("FAIL")))
            lines << line;
    }
    return lines;
}

// The long command has started, so the agent's checkpoint records the call as started.
bool isSleepCall(const json& event) {
    return event.value("type", "") == "tool_output" &&
           event["data"].value("text", "").find("started") != std::string::npos;
}

// A script whose second step runs a long command (to be interrupted), then writes done.txt and finishes.
QString writeSleepScript(const QTemporaryDir& dir) {
    const QString script = dir.filePath(QStringLiteral("script.json"));
    writeScript(script, {turn("write_file", {{"path", "before.txt"}, {"content", "before\n"}}),
                         turn("shell", {{"command", "echo started && sleep 300"}}),
                         turn("write_file", {{"path", "done.txt"}, {"content", "done\n"}}),
                         turn("finish", {{"summary", "done after the interruption"}})});
    return script;
}

// As root, the container runs as the profile's uid 1000 and bubblewrap as uid 0 without capabilities: a
// workspace both write in must be open to both (docs/SECURITY.md, "User and workspace ownership").
bool shareWorkspace(const QTemporaryDir& workspace) {
    if (geteuid() != 0)
        return true;
    const QByteArray path = QFile::encodeName(workspace.path());
    return chown(path.constData(), 1000, 1000) == 0 && chmod(path.constData(), 0777) == 0;
}

} // namespace

class TestControlContainer : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void demoRunsInAContainerWithTheSameLiveView();
    void scriptedTaskRunsInAContainer();
    void scriptedTaskWritesARootOwnedWorkspace();
    void bwrapTaskResumesUnderPodman();
    void podmanTaskResumesUnderBwrap();
    void cancelRemovesTheContainer();
    void timeoutStopsTheTaskAndRemovesTheContainer();
    void missingImageFailsWithThePreflightReport();
    void allowListWorksFromAContainer();

private:
    void moveBetweenBackends(const QStringList& first, const QStringList& second);
};

void TestControlContainer::initTestCase() {
    if (const QString reason = podmanSkipReason(); !reason.isEmpty())
        QSKIP(qPrintable(reason));
}

void TestControlContainer::demoRunsInAContainerWithTheSameLiveView() {
    QTemporaryDir bwrapData, podmanData;
    const auto inBwrap = runWarren({"run", "--no-color", "fix the failing test"}, bwrapData.path());
    QCOMPARE(inBwrap.exitCode, 0);
    const auto inContainer =
        runWarren(QStringList{"run", "--no-color"} + inPodman() + QStringList{"fix the failing test"},
                  podmanData.path());
    QVERIFY2(inContainer.exitCode == 0, inContainer.err.constData());
    QVERIFY2(inContainer.err.contains("scripted demo"), inContainer.err.constData());
    QVERIFY(inContainer.out.contains("── step 6 ──"));
    QVERIFY(inContainer.out.contains("PASS: Hello, Warren!"));
    QCOMPARE(viewLines(inContainer.out), viewLines(inBwrap.out));

    const json task = taskRecord(podmanData.path());
    QCOMPARE(task.value("status", ""), "succeeded");
    QCOMPARE(QString::fromStdString(task["spec"].value("backend", "")), backend());
    QCOMPARE(QString::fromStdString(task["spec"].value("image", "")), image());
    QVERIFY(readFile(QString::fromStdString(task["workspace"].get<std::string>()) + "/greet.sh")
                .contains("Hello"));
    QCOMPARE(containersOf(taskId(task)), QStringList{});
}

void TestControlContainer::scriptedTaskRunsInAContainer() {
    QTemporaryDir data, workspace;
    QVERIFY(shareWorkspace(workspace));
    const QString script = data.filePath(QStringLiteral("script.json"));
    writeScript(script, {turn("write_file", {{"path", "notes.txt"}, {"content", "written in a container\n"}}),
                         turn("shell", {{"command", "cat notes.txt && id -u"}}),
                         turn("finish", {{"summary", "wrote notes.txt"}})});
    const auto run = runWarren(QStringList{"run", "--no-color", "--provider", "scripted:" + script,
                                           "--workspace", workspace.path()} +
                                   inPodman() + QStringList{"write notes"},
                               data.path());
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(readFile(workspace.filePath(QStringLiteral("notes.txt"))),
             QStringLiteral("written in a container\n"));
    QVERIFY(run.out.contains("written in a container"));
    const json task = taskRecord(data.path());
    const auto events = parseEvents(runWarren({"show", taskId(task), "--json"}, data.path()).out);
    QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
    QCOMPARE(events.events.front().type, "task_started");
    QCOMPARE(events.events.back().type, "task_finished");
    QCOMPARE(events.toolCalls(), (QStringList{"write_file", "shell", "finish"}));
    // The agent reports what it could reach; the report comes out of the container's /output.
    const json report = json::parse(
        readFile(data.filePath("tasks/" + taskId(task) + "/output/resource_report.json")).toStdString(),
        nullptr, false);
    QCOMPARE(report.value("exit_reason", ""), "finished");
}

// As root on root's own 0700 workspace: the agent runs as uid 1000 (never root) and writes through an
// idmapped view, so its file is root's on the host.
void TestControlContainer::scriptedTaskWritesARootOwnedWorkspace() {
    if (geteuid() != 0)
        QSKIP("only root runs a task on a root-owned workspace with a rootful podman");
    QTemporaryDir data, workspace;
    QVERIFY(chmod(QFile::encodeName(workspace.path()).constData(), 0700) == 0);
    const QString script = data.filePath(QStringLiteral("script.json"));
    writeScript(script, {turn("write_file", {{"path", "notes.txt"}, {"content", "written as root's\n"}}),
                         turn("shell", {{"command", "echo uid=$(id -u)"}}),
                         turn("finish", {{"summary", "wrote notes.txt"}})});
    const auto run = runWarren(QStringList{"run", "--no-color", "--provider", "scripted:" + script,
                                           "--workspace", workspace.path()} +
                                   inPodman() + QStringList{"write notes"},
                               data.path());
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("uid=1000"), run.out.constData());
    const QFileInfo notes(workspace.filePath(QStringLiteral("notes.txt")));
    QCOMPARE(readFile(notes.filePath()), QStringLiteral("written as root's\n"));
    QCOMPARE(notes.ownerId(), 0u);
    QCOMPARE(taskRecord(data.path()).value("status", ""), "succeeded");
}

void TestControlContainer::moveBetweenBackends(const QStringList& first, const QStringList& second) {
    QTemporaryDir data, workspace;
    QVERIFY(shareWorkspace(workspace));
    const QString script = writeSleepScript(data);
    QProcess warren;
    startWarren(
        warren,
        QStringList{"run", "--json", "--provider", "scripted:" + script, "--workspace", workspace.path()} +
            first + QStringList{"work"},
        data.path());
    QVERIFY(readEventsUntil(warren, isSleepCall));
    warren.kill(); // SIGKILL: no chance to clean up
    QVERIFY(warren.waitForFinished(60000));

    const json interrupted = taskRecord(data.path());
    QCOMPARE(interrupted.value("status", ""), "interrupted");
    const QString id = taskId(interrupted);
    // The sandbox dies with warren: a container too (its run client is told, and stops it, and it is removed).
    // A pod stops (its agent loses its connection and pauses) and is removed by the next launch's sweep of
    // what dead launchers left: checked below, after the resume.
    const bool pod = backend() == QLatin1String("kube") && first.contains(QStringLiteral("kube"));
    QTRY_COMPARE_WITH_TIMEOUT(containersOf(id, /*running=*/pod), QStringList{}, 60000);
    const auto before = parseEvents(runWarren({"show", id, "--json"}, data.path()).out);
    QVERIFY(!before.ofType("checkpoint").empty());

    const auto resumed = runWarren(QStringList{"resume", id, "--no-color"} + second, data.path());
    QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    QCOMPARE(readFile(workspace.filePath(QStringLiteral("done.txt"))), QStringLiteral("done\n"));
    const json finished = taskRecord(data.path());
    QCOMPARE(finished.value("status", ""), "succeeded");
    QCOMPARE(finished["spec"].value("backend", ""), second.at(1).toStdString());
    const auto after = parseEvents(runWarren({"show", id, "--json"}, data.path()).out);
    QVERIFY2(after.error.isEmpty(), qPrintable(after.error));
    for (std::size_t i = 0; i < before.events.size(); ++i)
        QCOMPARE(after.events[i], before.events[i]);
    QCOMPARE(after.events.back().type, "task_finished");
    // A stopped pod is removed by its own launcher, which outlived warren, once its agent has gone: that may
    // still be under way when the resumed run ends (a clean-clone CI run once found it there).
    QTRY_COMPARE_WITH_TIMEOUT(containersOf(id), QStringList{}, 60000);
}

void TestControlContainer::bwrapTaskResumesUnderPodman() {
    moveBetweenBackends({"--backend", "bwrap"}, inPodman());
}

void TestControlContainer::podmanTaskResumesUnderBwrap() {
    moveBetweenBackends(inPodman(), {"--backend", "bwrap"});
}

void TestControlContainer::cancelRemovesTheContainer() {
    QTemporaryDir data, workspace;
    QVERIFY(shareWorkspace(workspace));
    const QString script = writeSleepScript(data);
    QProcess warren;
    startWarren(
        warren,
        QStringList{"run", "--json", "--provider", "scripted:" + script, "--workspace", workspace.path()} +
            inPodman() + QStringList{"work"},
        data.path());
    QVERIFY(readEventsUntil(warren, isSleepCall));
    const QString id = taskId(taskRecord(data.path()));
    QCOMPARE(containersOf(id).size(), 1);
    QCOMPARE(runWarren({"cancel", id}, data.path()).exitCode, 0);
    QVERIFY(warren.state() == QProcess::NotRunning || warren.waitForFinished(120000));
    QCOMPARE(warren.exitCode(), 1);
    QCOMPARE(taskRecord(data.path()).value("status", ""), "cancelled");
    QVERIFY(!QFile::exists(workspace.filePath(QStringLiteral("done.txt"))));
    QCOMPARE(containersOf(id), QStringList{});
}

void TestControlContainer::timeoutStopsTheTaskAndRemovesTheContainer() {
    QTemporaryDir data, workspace;
    QVERIFY(shareWorkspace(workspace));
    const QString script = writeSleepScript(data);
    const auto run = runWarren(QStringList{"run", "--timeout", "2", "--provider", "scripted:" + script,
                                           "--workspace", workspace.path()} +
                                   inPodman() + QStringList{"work"},
                               data.path());
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("--timeout"), run.err.constData());
    const json task = taskRecord(data.path());
    QCOMPARE(task.value("status", ""), "failed");
    QCOMPARE(task.value("finish_reason", ""), "timeout");
    QCOMPARE(containersOf(taskId(task)), QStringList{});
}

void TestControlContainer::missingImageFailsWithThePreflightReport() {
    QTemporaryDir data;
    const auto run = runWarren({"run", "--no-color", "--backend", backend(), "--image",
                                "localhost/warren-no-such-image:0", "fix the failing test"},
                               data.path());
    QCOMPARE(run.exitCode, 3); // the sandbox is unavailable: never a run without one
    QVERIFY2(run.err.contains("FAILED  image") && run.err.contains("never pulls"), run.err.constData());
    const json task = taskRecord(data.path());
    QCOMPARE(task.value("status", ""), "failed");
    QCOMPARE(task.value("finish_reason", ""), "sandbox");
}

// The egress proxy's socket is bound into the container as into bubblewrap: the agent (uid 1000 there)
// reaches a listed host through it, and an unlisted one gets the proxy's refusal.
void TestControlContainer::allowListWorksFromAContainer() {
    HostHttpServer host;
    QVERIFY(host.port() != 0);
    const QString authority = "127.0.0.1:" + QString::number(host.port());
    QTemporaryDir data, workspace;
    QVERIFY(shareWorkspace(workspace));
    const QString script = data.filePath(QStringLiteral("script.json"));
    writeScript(script, {turn("shell", {{"command", "curl -sS --noproxy '' http://" + authority.toStdString() + "/box"}}),
                         turn("shell", {{"command", "curl -sS http://example.com/ 2>&1"}}),
                         turn("finish", {{"summary", "probed"}})});
    const auto run = runWarren(QStringList{"run", "--no-color", "--provider", "scripted:" + script, "--workspace",
                                           workspace.path(), "--network", "allow:" + authority} +
                                   inPodman() + QStringList{"probe"},
                               data.path());
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("hello from the host: GET /box HTTP/1.1"), run.out.constData());
    QVERIFY2(run.out.contains("example.com:80 is not in this task's network allow-list"), run.out.constData());
    QCOMPARE(host.requests, QStringList{"GET /box HTTP/1.1"});
    QCOMPARE(containersOf(taskId(taskRecord(data.path()))), QStringList{});
}

QTEST_GUILESS_MAIN(TestControlContainer)
#include "tst_control_container.moc"
