// Warm podman containers (sandbox/container/WarmPool), for real: a plane that keeps one per shape starts a
// container before its task, holding nothing of any task's (its binds empty slots, its environment none, its
// process the waiter), and the next task of that shape claims it: its own workspace, its own files, protected
// paths as protected as in a cold container, the agent the container's pid 1. Two tasks racing for one warm
// container both run, one warm, one cold. When the pool is cleared nothing is left: no container, no
// scratch directory, no mount; nor when the process that kept it is killed (kill -9: its containers end,
// and the next launcher's sweep detaches and removes the rest). That process is this program again, run
// with WARREN_WARM_CHILD set (main below).
//
// Needs root, podman (rootful), the image ($WARREN_TEST_IMAGE, default localhost/warren-test:3) and the
// static agent; skips with the reason otherwise.

#include "app/control/LocalControlPlane.h"
#include "sandbox/container/WarmPool.h"
#include "tests/support/AgentRun.h"
#include "tests/support/PodmanTest.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <cstdio>
#include <unistd.h>

using namespace warren;
using namespace warren::control;
using namespace warren::test;
using nlohmann::json;

namespace {

std::pair<int, QString> podman(const QStringList& arguments) {
    QProcess process;
    process.start(QStringLiteral("podman"), arguments);
    if (!process.waitForFinished(120000))
        return {-1, {}};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput())};
}

// Warren's containers owned by a process (warm or not), by name.
QStringList containersOf(qint64 pid, bool warmOnly) {
    QStringList arguments{QStringLiteral("ps"), QStringLiteral("--all"), QStringLiteral("--filter"),
                          QStringLiteral("label=warren.sandbox=1")};
    if (warmOnly)
        arguments << QStringLiteral("--filter") << QStringLiteral("label=warren.warm=1");
    arguments << QStringLiteral("--format")
              << QStringLiteral("{{.Names}}\t{{index .Labels \"warren.owner\"}}");
    const auto [status, out] = podman(arguments);
    if (status != 0)
        return {QStringLiteral("(podman ps failed)")};
    QStringList names;
    const QString marker = QStringLiteral(":%1:").arg(pid);
    for (const QString& line : out.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (line.contains(marker))
            names << line.section(QLatin1Char('\t'), 0, 0);
    return names;
}

QStringList containersOfThisProcess(bool warmOnly) { return containersOf(::getpid(), warmOnly); }

QString readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// The scratch directories and mounts of a process's containers.
QStringList leftovers(qint64 pid = ::getpid()) {
    QStringList found;
    const QString prefix = QStringLiteral("warren-container-%1-").arg(pid);
    for (const QString& name : QDir(QStringLiteral("/tmp")).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        if (name.startsWith(prefix))
            found << QStringLiteral("/tmp/") + name;
    for (const QString& line : readFile(QStringLiteral("/proc/self/mountinfo")).split(QLatin1Char('\n')))
        if (line.contains(prefix))
            found << line;
    return found;
}

} // namespace

class TestWarmStart : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void theNextTaskClaimsAContainerStartedBeforeIt();
    void aClaimedContainerKeepsTheProtectedPaths();
    void twoTasksRaceForOneWarmContainer();
    void clearingThePoolLeavesNothing();
    void aKilledProcessLeavesNothingAfterTheSweep();
    void cleanupTestCase();

private:
    // A task that writes note.txt, runs `command`, and finishes; its events.
    json runTask(const QString& workspace, const QString& note,
                 const QString& command = QStringLiteral("true"));
    std::string submit(const QString& workspace, const QString& note, const QString& command);
    json finishedEvents(const std::string& id);

    QTemporaryDir m_data, m_scripts;
    std::unique_ptr<LocalControlPlane> m_plane;
    int m_scriptCount = 0;
};

void TestWarmStart::initTestCase() {
    if (::geteuid() != 0)
        QSKIP("warm containers need root (the host mounts a task's paths into them)");
    if (const QString reason = podmanSkipReason(); !reason.isEmpty())
        QSKIP(qPrintable(reason));
    LocalOptions options;
    options.dataDir = m_data.path().toStdString();
    options.agentBinary = agentBinary().toStdString();
    options.maxConcurrent = 2;
    options.useKeychain = false;
    options.warmContainers = 1;
    auto plane = LocalControlPlane::open(options);
    QVERIFY2(plane, plane ? "" : plane.error().message.c_str());
    m_plane = std::move(*plane);
}

std::string TestWarmStart::submit(const QString& workspace, const QString& note, const QString& command) {
    const QString script = m_scripts.filePath(QStringLiteral("script-%1.json").arg(++m_scriptCount));
    writeScript(script,
                {turn("write_file", {{"path", "note.txt"}, {"content", note.toStdString()}}),
                 turn("shell", {{"command", command.toStdString()}}), turn("finish", {{"summary", "done"}})});
    TaskSpec spec;
    spec.provider = "scripted:" + script.toStdString();
    spec.backend = sandbox::Backend::Podman;
    spec.image = testImage().toStdString();
    auto task = m_plane->submit("write a note", workspace.toStdString(), spec);
    return task ? task->id : std::string();
}

json TestWarmStart::finishedEvents(const std::string& id) {
    const auto finished = [&] {
        auto task = m_plane->task(id);
        return task && *task && isFinal((*task)->status);
    };
    if (!QTest::qWaitFor(finished, 120000))
        return json::array();
    auto task = m_plane->task(id);
    if (!task || !*task || (*task)->status != TaskStatus::Succeeded)
        return json::array();
    auto events = m_plane->events(id);
    return events ? json(*events) : json::array();
}

json TestWarmStart::runTask(const QString& workspace, const QString& note, const QString& command) {
    const std::string id = submit(workspace, note, command);
    return id.empty() ? json::array() : finishedEvents(id);
}

// The shell's output in a task's events.
QString shellOutput(const json& events) {
    QString text;
    for (const auto& event : events)
        if (event.value("type", "") == "tool_output")
            text += QString::fromStdString(event["data"].value("text", ""));
    return text;
}

void TestWarmStart::theNextTaskClaimsAContainerStartedBeforeIt() {
    QTemporaryDir first, second;
    QVERIFY(!runTask(first.path(), QStringLiteral("from the first task")).empty());
    const QStringList warm = containersOfThisProcess(true);
    QCOMPARE(warm.size(), 1);

    // Nothing of a task's: no task label, every bind an empty slot (or the waiter and its socket's
    // directory), the workspace empty, only the waiter running.
    const auto [inspected, labels] =
        podman({QStringLiteral("inspect"), warm.front(), QStringLiteral("--format"),
                QStringLiteral("{{json .Config.Labels}}")});
    QCOMPARE(inspected, 0);
    QVERIFY2(!labels.contains(QStringLiteral("warren.task")), qPrintable(labels));
    const auto [mountsRead, mounts] =
        podman({QStringLiteral("inspect"), warm.front(), QStringLiteral("--format"),
                QStringLiteral("{{range .Mounts}}{{.Source}}\n{{end}}")});
    QCOMPARE(mountsRead, 0);
    for (const QString& source : mounts.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        QVERIFY2(source.contains(QStringLiteral("/slots/")) || source.endsWith(QStringLiteral("/claim")) ||
                     source == QFileInfo(agentBinary()).canonicalFilePath() || source == agentBinary(),
                 qPrintable(source));
    QVERIFY(!mounts.contains(first.path()));
    const auto [listed, workspace] =
        podman({QStringLiteral("exec"), QStringLiteral("--user"), QStringLiteral("0"), warm.front(),
                QStringLiteral("ls"), QStringLiteral("-A"), QStringLiteral("/workspace")});
    QCOMPARE(listed, 0);
    QCOMPARE(workspace.trimmed(), QString());
    const auto [environmentRead, environment] =
        podman({QStringLiteral("inspect"), warm.front(), QStringLiteral("--format"),
                QStringLiteral("{{json .Config.Env}}")});
    QCOMPARE(environmentRead, 0);
    QVERIFY2(!environment.contains(QStringLiteral("LOGNAME=agent")), qPrintable(environment)); // the claim's

    // The next task of the same shape runs in it, with its own workspace; the agent is the container's pid 1.
    const json events =
        runTask(second.path(), QStringLiteral("from the second task"),
                QStringLiteral("tr '\\0' ' ' < /proc/1/cmdline; ls /workspace; echo logname=$LOGNAME"));
    QVERIFY(!events.empty());
    QCOMPARE(podman({QStringLiteral("container"), QStringLiteral("exists"), warm.front()}).first,
             1); // claimed, gone
    const QString output = shellOutput(events);
    QVERIFY2(output.contains(QStringLiteral("warren-agent serve")), qPrintable(output));
    QVERIFY2(output.contains(QStringLiteral("note.txt")), qPrintable(output));
    QVERIFY2(output.contains(QStringLiteral("logname=agent")),
             qPrintable(output)); // the profile's, by the claim
    QCOMPARE(readFile(second.filePath(QStringLiteral("note.txt"))), QStringLiteral("from the second task"));
    QCOMPARE(readFile(first.filePath(QStringLiteral("note.txt"))), QStringLiteral("from the first task"));
    const QStringList next = containersOfThisProcess(true); // and another waits for the task after
    QCOMPARE(next.size(), 1);
    QVERIFY(next.front() != warm.front());
}

void TestWarmStart::aClaimedContainerKeepsTheProtectedPaths() {
    QTemporaryDir workspace;
    QVERIFY(QDir(workspace.path()).mkpath(QStringLiteral(".git/hooks")));
    {
        QFile config(workspace.filePath(QStringLiteral(".git/config")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("[core]\n");
    }
    const QStringList warm = containersOfThisProcess(true);
    QCOMPARE(warm.size(), 1);
    const json events = runTask(workspace.path(), QStringLiteral("note"),
                                QStringLiteral("echo evil > .git/hooks/pre-commit && echo wrote-hook; echo x "
                                               ">> .git/config && echo wrote-config; "
                                               "echo y > .envrc && echo wrote-envrc; echo done"));
    QVERIFY(!events.empty());
    QCOMPARE(podman({QStringLiteral("container"), QStringLiteral("exists"), warm.front()}).first,
             1); // it ran warm
    const QString output = shellOutput(events);
    QVERIFY2(output.contains(QStringLiteral("done")), qPrintable(output));
    for (const char* wrote : {"wrote-hook", "wrote-config", "wrote-envrc"})
        QVERIFY2(!output.contains(QLatin1String(wrote)), qPrintable(output));
    QVERIFY(!QFile::exists(workspace.filePath(QStringLiteral(".git/hooks/pre-commit"))));
    QCOMPARE(readFile(workspace.filePath(QStringLiteral(".git/config"))), QStringLiteral("[core]\n"));
    QVERIFY(
        !QFile::exists(workspace.filePath(QStringLiteral(".envrc")))); // no placeholder left behind either
    QCOMPARE(readFile(workspace.filePath(QStringLiteral("note.txt"))), QStringLiteral("note"));
}

void TestWarmStart::twoTasksRaceForOneWarmContainer() {
    QTemporaryDir first, second;
    QCOMPARE(containersOfThisProcess(true).size(), 1);
    const std::string a = submit(first.path(), QStringLiteral("a"), QStringLiteral("true"));
    const std::string b = submit(second.path(), QStringLiteral("b"), QStringLiteral("true"));
    QVERIFY(!a.empty() && !b.empty());
    QVERIFY(!finishedEvents(a).empty());
    QVERIFY(!finishedEvents(b).empty());
    QCOMPARE(readFile(first.filePath(QStringLiteral("note.txt"))), QStringLiteral("a"));
    QCOMPARE(readFile(second.filePath(QStringLiteral("note.txt"))), QStringLiteral("b"));
}

void TestWarmStart::clearingThePoolLeavesNothing() {
    QTRY_VERIFY_WITH_TIMEOUT(containersOfThisProcess(false).size() == containersOfThisProcess(true).size(),
                             30000);
    QVERIFY(!containersOfThisProcess(true).empty());
    sandbox::WarmPool::instance().clear();
    QCOMPARE(containersOfThisProcess(false), QStringList());
    QCOMPARE(leftovers(), QStringList());
}

void TestWarmStart::aKilledProcessLeavesNothingAfterTheSweep() {
    QTemporaryDir data, workspace;
    QProcess child;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("WARREN_WARM_CHILD"), data.path() + QLatin1Char('\n') + workspace.path());
    child.setProcessEnvironment(environment);
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(QCoreApplication::applicationFilePath(), QStringList());
    QVERIFY(child.waitForStarted());
    QByteArray said; // its task ran, and one container of the shape is warm
    QTRY_VERIFY_WITH_TIMEOUT((said += child.readAllStandardOutput()).contains("kept"), 120000);
    const qint64 pid = child.processId();
    QCOMPARE(containersOf(pid, true).size(), 1);
    QVERIFY(!leftovers(pid).isEmpty());
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    QVERIFY(child.waitForFinished());
    // Its run client got SIGHUP as its launcher died, passed it to the waiter, and --rm removed the container.
    QTRY_COMPARE_WITH_TIMEOUT(containersOf(pid, false), QStringList(), 60000);
    sandbox::sweepOrphanedContainers(sandbox::ContainerEngine::Podman, {}); // what the next launch runs
    QCOMPARE(leftovers(pid), QStringList());
}

void TestWarmStart::cleanupTestCase() {
    m_plane.reset();
    sandbox::WarmPool::instance().clear();
}

// The child of aKilledProcessLeavesNothingAfterTheSweep: a plane keeping one warm container per shape runs one
// podman task in the workspace named, says "kept" once the warm container of its shape is there, and waits
// to be killed.
int runChild(const QStringList& directories) {
    LocalOptions options;
    options.dataDir = directories.value(0).toStdString();
    options.agentBinary = agentBinary().toStdString();
    options.useKeychain = false;
    options.warmContainers = 1;
    auto plane = LocalControlPlane::open(options);
    if (!plane)
        return 2;
    const QString script = directories.value(0) + QStringLiteral("/script.json");
    writeScript(script, {turn("finish", {{"summary", "done"}})});
    TaskSpec spec;
    spec.provider = "scripted:" + script.toStdString();
    spec.backend = sandbox::Backend::Podman;
    spec.image = testImage().toStdString();
    auto task = (*plane)->submit("finish", directories.value(1).toStdString(), spec);
    if (!task)
        return 3;
    const auto done = [&] {
        auto record = (*plane)->task(task->id);
        return record && *record && isFinal((*record)->status);
    };
    if (!QTest::qWaitFor(done, 120000) || containersOf(::getpid(), true).size() != 1)
        return 4;
    std::printf("kept\n");
    std::fflush(stdout);
    QTest::qWait(600000);
    return 0;
}

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (const QString child = qEnvironmentVariable("WARREN_WARM_CHILD"); !child.isEmpty())
        return runChild(child.split(QLatin1Char('\n')));
    TestWarmStart test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_warm_start.moc"
