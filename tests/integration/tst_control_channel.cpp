// A tool attacks its agent's protocol channel for real, in a task run by `warren run`: sandbox-probe's
// channel-attack, run by the task's shell tool, writes forged events and forged answers (an approval) to
// every descriptor of every process it can see outside its own process group (/proc/N/fd/*, threads too),
// opens /proc/N/mem and environ, takes descriptors with pidfd_getfd, reads memory with process_vm_readv,
// reads every /proc/N/cmdline, connects as the agent with the token its command line names, and signals the
// agent with the signals a stop is made of (plain, and with a forged sender). The test then asserts that
// every attempt failed, that no command line in the sandbox names a host path of the task, that the task's
// stored events hold nothing forged and no error, and that the task went on and ended as its script says.
//
// The backend comes from WARREN_TEST_BACKEND: bwrap (default), podman, kube (the Pod, played by podman kube
// play, its agent connecting back over a socket). CTest runs each; label "sandbox" runs them again as an
// unprivileged user (tests/run.sh). The cluster backend (warrend's TCP listener) is not attacked here: its
// tests run the agent under the kubelet double, as a plain host process with no pid namespace, where this
// probe must not run; its token's replay is refused in tst_agent_listener.
// Podman and kube skip with the reason where podman or the test image is missing.

#include "tests/support/AgentRun.h"
#include "tests/support/PodmanTest.h"
#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QFile>
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

constexpr const char* kMarker = "FORGED-BY-TOOL"; // in every forged line; never printed by the probe

QString backend() {
    const QString fromEnv = qEnvironmentVariable("WARREN_TEST_BACKEND");
    return fromEnv.isEmpty() ? QStringLiteral("bwrap") : fromEnv;
}

QString image() {
    return testImage();
}

QStringList backendArguments() {
    if (backend() == QLatin1String("bwrap"))
        return {QStringLiteral("--backend"), QStringLiteral("bwrap")};
    return {QStringLiteral("--backend"), backend(), QStringLiteral("--image"), image()};
}

// The probe's lines for one route ("fd-write", "mem", ...): each "ROUTE TARGET VERDICT...".
QStringList linesOf(const QStringList& lines, const QString& route) {
    QStringList found;
    for (const QString& line : lines)
        if (line.startsWith(route + QLatin1Char(' ')))
            found << line;
    return found;
}

} // namespace

class TestControlChannel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void aToolCannotReachTheAgentsChannel();
};

void TestControlChannel::initTestCase() {
    if (backend() == QLatin1String("bwrap"))
        return;
    if (const QString reason = podmanSkipReason(); !reason.isEmpty())
        QSKIP(qPrintable(reason));
}

void TestControlChannel::aToolCannotReachTheAgentsChannel() {
    QTemporaryDir data, workspace;
    QVERIFY(data.isValid() && workspace.isValid());
    // As root, a container runs as uid 1000: the workspace must be open to it (as in tst_control_container).
    if (geteuid() == 0 && backend() != QLatin1String("bwrap")) {
        const QByteArray path = QFile::encodeName(workspace.path());
        QVERIFY(chown(path.constData(), 1000, 1000) == 0 && chmod(path.constData(), 0777) == 0);
    }
    const QString probe = workspace.filePath(QStringLiteral("sandbox-probe"));
    QVERIFY(QFile::copy(qEnvironmentVariable("WARREN_PROBE"), probe));
    QVERIFY(QFile::setPermissions(probe, QFile::permissions(probe) | QFileDevice::ExeOther | QFileDevice::ExeGroup |
                                             QFileDevice::ReadOther | QFileDevice::ReadGroup));

    const QString script = data.filePath(QStringLiteral("script.json"));
    QVERIFY(writeScript(script, {turn("shell", {{"command", "./sandbox-probe channel-attack"}}),
                                 turn("shell", {{"command", "echo still-working"}}),
                                 turn("finish", {{"summary", "attacked the channel"}})}));
    const auto run = runWarren(QStringList{"run", "--no-color", "--provider", "scripted:" + script, "--workspace",
                                           workspace.path()} +
                                   backendArguments() + QStringList{"attack the channel"},
                               data.path());

    // The task ended as its script says: the stop signals did not stop it, nothing forged ended it.
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const auto records = jsonLines(runWarren({"tasks", "--json"}, data.path()).out);
    QVERIFY(!records.empty());
    const json task = records.front();
    QCOMPARE(task.value("status", ""), "succeeded");
    const QString id = QString::fromStdString(task.value("id", ""));

    // The stored events: nothing forged, no error but the control plane's own (a forged line that reached the
    // control plane but did not parse would be one), in the order the agent numbered them.
    const QByteArray shown = runWarren({"show", id, "--json"}, data.path()).out;
    const auto stream = parseEvents(shown);
    QVERIFY2(stream.error.isEmpty(), qPrintable(stream.error));
    QVERIFY2(!shown.contains(kMarker), shown.constData());
    // The one error the control plane writes itself: the refusal of the probe's connection with the agent's
    // token, where the agent has a connection (kube).
    int refusals = 0;
    for (const auto& error : stream.ofType("error")) {
        const std::string message = error.data.value("message", "");
        QVERIFY2(message.rfind("a connection to the agents' listener was refused", 0) == 0,
                 qPrintable("an error event: " + QString::fromStdString(error.data.dump())));
        ++refusals;
    }
    QCOMPARE(stream.toolCalls(), (QStringList{"shell", "shell", "finish"}));
    QCOMPARE(stream.events.back().type, "task_finished");
    QCOMPARE(stream.finished().value("summary", ""), "attacked the channel");

    // What the probe reported, from the first call's output.
    const auto calls = stream.ofType("tool_call");
    QCOMPARE(calls.size(), std::size_t(3));
    const std::string probeCall = calls[0].data.value("id", "");
    const QStringList lines = QString::fromStdString(stream.outputOf(probeCall)).split(QLatin1Char('\n'));
    QVERIFY2(lines.size() > 3, qPrintable(lines.join('\n')));
    qInfo().noquote() << "the probe's report:\n" + lines.join('\n');
    QVERIFY2(stream.outputOf(calls[1].data.value("id", "")).find("still-working") != std::string::npos,
             "the agent stopped running tools after the attack");

    // The agent was in view and attacked: its command line was read and its descriptors tried.
    QString agentPid;
    for (const QString& line : linesOf(lines, QStringLiteral("cmdline")))
        if (line.contains(QStringLiteral("warren-agent serve")))
            agentPid = line.section(QLatin1Char(' '), 1, 1);
    QVERIFY2(!agentPid.isEmpty(), qPrintable(lines.join('\n')));
    QVERIFY2(!linesOf(lines, QStringLiteral("mem")).filter(QRegularExpression("^mem " + agentPid + " ")).isEmpty(),
             qPrintable(lines.join('\n')));

    // Every attempt on a descriptor, on memory or on the environment failed, on every process in view.
    for (const QString route : {"fd-write", "fd-read", "mem", "mem-write", "environ", "pidfd-getfd", "vm-read"})
        for (const QString& line : linesOf(lines, route))
            QVERIFY2(!line.endsWith(QLatin1String(" ok")), qPrintable(line));
    QVERIFY2(lines.contains(QStringLiteral("reached 0")), qPrintable(lines.join('\n')));
    // The agent's connection, where it has one, takes nobody else with its token.
    for (const QString& line : linesOf(lines, QStringLiteral("connect")))
        QVERIFY2(!line.endsWith(QLatin1String(" accepted")), qPrintable(line));
    const QStringList refused = linesOf(lines, QStringLiteral("connect")).filter(QRegularExpression(" refused$"));
    QCOMPARE(refusals, int(refused.size()));
    if (backend() == QLatin1String("kube"))
        QVERIFY2(refused.size() == 1, qPrintable(lines.join('\n')));

    // No command line in the sandbox names where the task lives on the host.
    for (const QString& line : linesOf(lines, QStringLiteral("cmdline"))) {
        QVERIFY2(!line.contains(QDir(data.path()).canonicalPath()), qPrintable(line));
        QVERIFY2(!line.contains(data.path()), qPrintable(line));
        QVERIFY2(!line.contains(QDir(workspace.path()).canonicalPath()), qPrintable(line));
    }
}

QTEST_GUILESS_MAIN(TestControlChannel)
#include "tst_control_channel.moc"
