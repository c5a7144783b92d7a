// The warren-sandbox command line as other tools rely on it (DESIGN §4): the command's exit status
// passes through, 125 means the sandbox could not be set up (and says why, and nothing ran), --explain
// shows the plan without running it.

#include "tests/support/SandboxRun.h"

#include <QProcess>
#include <QtTest>

#include <csignal>

using namespace warren::test;

class TestSandboxCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void exitStatusPassesThrough_data();
    void exitStatusPassesThrough();
    void setupFailureIs125_data();
    void setupFailureIs125();
    void failureInsideBwrapIs125();
    void missingCommandIs127();
    void explainRunsNothing();
    void containerExplainRunsNothing();
    void containerRunFailsPreflightClearly();
    void workspaceDefaultsToCurrentDirectory();
    void envFlagSetsVariable();
    void aKilledLaunchersPlaceholdersGoAtTheNextLaunch();

private:
    std::unique_ptr<Workspace> m_workspace;
    QTemporaryDir m_scratch; // profile files, outside the workspace
};

void TestSandboxCli::initTestCase()
{
    const QString problem = sandboxUnusable();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(m_scratch.isValid());
}

void TestSandboxCli::init()
{
    m_workspace = std::make_unique<Workspace>();
    QVERIFY(m_workspace->isValid());
}

void TestSandboxCli::exitStatusPassesThrough_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<int>("expected");

    QTest::newRow("exit 0") << QStringLiteral("exit 0") << 0;
    QTest::newRow("exit 1") << QStringLiteral("exit 1") << 1;
    QTest::newRow("exit 7") << QStringLiteral("exit 7") << 7;
    QTest::newRow("exit 100") << QStringLiteral("exit 100") << 100;
    QTest::newRow("killed by SIGTERM") << QStringLiteral("kill -TERM $$") << exitForSignal(SIGTERM);
    QTest::newRow("killed by SIGKILL") << QStringLiteral("kill -KILL $$") << exitForSignal(SIGKILL);
    QTest::newRow("killed by SIGSEGV") << QStringLiteral("kill -SEGV $$") << exitForSignal(SIGSEGV);
}

void TestSandboxCli::exitStatusPassesThrough()
{
    QFETCH(QString, script);
    QFETCH(int, expected);

    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"), script});
    QVERIFY2(outcome.exited(), qPrintable(outcome.describe()));
    QCOMPARE(outcome.exitCode, expected);
}

void TestSandboxCli::setupFailureIs125_data()
{
    QTest::addColumn<QStringList>("options");     // %S: the scratch directory
    QTest::addColumn<QByteArray>("profile");      // written to %S/profile.json when not empty
    QTest::addColumn<QString>("mustMention");     // the message names what was wrong

    QTest::newRow("unknown flag") << QStringList{"--no-such-flag"} << QByteArray() << QStringLiteral("--no-such-flag");
    QTest::newRow("missing workspace") << QStringList{"--workspace", "%S/no-such-dir"} << QByteArray() << QStringLiteral("no-such-dir");
    QTest::newRow("workspace is a file") << QStringList{"--workspace", "%S/a-file"} << QByteArray() << QStringLiteral("a-file");
    QTest::newRow("bad network policy") << QStringList{"--network", "everywhere"} << QByteArray() << QStringLiteral("everywhere");
    QTest::newRow("non-numeric memory limit") << QStringList{"--memory-mb", "lots"} << QByteArray() << QStringLiteral("lots");
    QTest::newRow("negative timeout") << QStringList{"--timeout", "-5"} << QByteArray() << QStringLiteral("-5");
    QTest::newRow("malformed --env") << QStringList{"--env", "NOEQUALS"} << QByteArray() << QStringLiteral("NOEQUALS");
    QTest::newRow("missing profile file") << QStringList{"--profile", "%S/no-such-profile.json"} << QByteArray()
                                          << QStringLiteral("no-such-profile.json");
    QTest::newRow("profile is not JSON") << QStringList{"--profile", "%S/profile.json"} << QByteArray("{ limits: ")
                                         << QStringLiteral("profile.json");
    QTest::newRow("unknown profile key") << QStringList{"--profile", "%S/profile.json"}
                                         << QByteArray(R"({ "no_such_key": true })") << QStringLiteral("no_such_key");
    QTest::newRow("unknown limit key") << QStringList{"--profile", "%S/profile.json"}
                                       << QByteArray(R"({ "limits": { "memroy_mb": 100 } })") << QStringLiteral("memroy_mb");
    QTest::newRow("unknown seccomp rule to skip") << QStringList{"--profile", "%S/profile.json"}
                                                  << QByteArray(R"({ "seccomp": { "skip": ["no-such-rule"] } })")
                                                  << QStringLiteral("no-such-rule");
    QTest::newRow("missing --ro path") << QStringList{"--ro", "%S/no-such-path"} << QByteArray() << QStringLiteral("no-such-path");
}

// Fail closed: a sandbox that cannot be set up exactly as asked does not run the command at all, and the
// message says what was wrong.
void TestSandboxCli::setupFailureIs125()
{
    QFETCH(QStringList, options);
    QFETCH(QByteArray, profile);
    QFETCH(QString, mustMention);

    if (!profile.isEmpty()) {
        QFile file(m_scratch.filePath(QStringLiteral("profile.json")));
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QVERIFY(file.write(profile) == profile.size());
    }
    QFile aFile(m_scratch.filePath(QStringLiteral("a-file")));
    QVERIFY(aFile.open(QIODevice::WriteOnly));
    aFile.close();

    QStringList arguments;
    bool workspaceGiven = false;
    for (QString option : options) {
        option.replace(QLatin1String("%S"), m_scratch.path());
        workspaceGiven = workspaceGiven || option == QLatin1String("--workspace");
        arguments << option;
    }
    if (!workspaceGiven)
        arguments << QStringLiteral("--workspace") << m_workspace->path();
    arguments << QStringLiteral("--") << QStringLiteral("sh") << QStringLiteral("-c") << QStringLiteral("touch /workspace/ran");

    const RunOutcome outcome = runSandbox(arguments);
    QVERIFY2(outcome.exited() && outcome.exitCode == 125, qPrintable(outcome.describe()));
    QVERIFY2(QString::fromUtf8(outcome.err).contains(mustMention), qPrintable(outcome.describe()));
    QVERIFY(!m_workspace->exists(QStringLiteral("ran")));
}

// bwrap exits 1 for its own failures as well as passing on a command's 1: a failure after bwrap started
// (here: a mount point it cannot create inside the read-only /usr) must still be 125, never the 1 the
// command would have returned.
void TestSandboxCli::failureInsideBwrapIs125()
{
    QFile file(m_scratch.filePath(QStringLiteral("profile.json")));
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(R"({ "mounts": { "/usr/warren-no-such-dir": { "type": "tmpfs", "size_mb": 1 } } })");
    file.close();
    const RunOutcome outcome = runSandbox({QStringLiteral("--profile"), file.fileName(), QStringLiteral("--workspace"),
                                           m_workspace->path(), QStringLiteral("--"), QStringLiteral("sh"),
                                           QStringLiteral("-c"), QStringLiteral("exit 1")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 125, qPrintable(outcome.describe()));
    QVERIFY2(QString::fromUtf8(outcome.err).contains(QStringLiteral("did not start")), qPrintable(outcome.describe()));
}

// A command that is not in the sandbox is the caller's mistake, not a sandbox failure: 127, as env(1)
// and the shells say it, with the name in the message.
void TestSandboxCli::missingCommandIs127()
{
    for (const QString& command : {QStringLiteral("warren-no-such-command"), QStringLiteral("/usr/bin/warren-no-such-command")}) {
        const RunOutcome outcome = runSandbox({QStringLiteral("--workspace"), m_workspace->path(), QStringLiteral("--"), command});
        QVERIFY2(outcome.exited() && outcome.exitCode == 127, qPrintable(outcome.describe()));
        QVERIFY2(QString::fromUtf8(outcome.err).contains(command + QStringLiteral(": command not found")),
                 qPrintable(outcome.describe()));
    }
}

void TestSandboxCli::explainRunsNothing()
{
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("touch /workspace/ran")},
                                                {QStringLiteral("--explain")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QVERIFY(!m_workspace->exists(QStringLiteral("ran")));
    const QString explained = QString::fromUtf8(outcome.out);
    QVERIFY2(explained.contains(QLatin1String("bwrap")), qPrintable(outcome.describe()));
    QVERIFY2(explained.contains(QLatin1String("--unshare-pid")), qPrintable(outcome.describe()));
    QVERIFY2(explained.contains(m_workspace->path()), qPrintable(outcome.describe()));
    QVERIFY2(explained.contains(QLatin1String("touch /workspace/ran")), qPrintable(outcome.describe()));
}

void TestSandboxCli::containerExplainRunsNothing()
{
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("touch /workspace/ran")},
                                                {QStringLiteral("--backend"), QStringLiteral("podman"), QStringLiteral("--image"),
                                                 QStringLiteral("localhost/warren-test:1"), QStringLiteral("--explain")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QVERIFY(!m_workspace->exists(QStringLiteral("ran")));
    const QString explained = QString::fromUtf8(outcome.out);
    QVERIFY2(explained.contains(QLatin1String("\npodman run --interactive --rm")), qPrintable(outcome.describe()));
    QVERIFY2(explained.contains(QLatin1String("--cap-drop ALL")), qPrintable(outcome.describe()));
    QVERIFY2(explained.contains(QLatin1String("target=/workspace")), qPrintable(outcome.describe()));
    QVERIFY2(explained.contains(QLatin1String("localhost/warren-test:1 -c 'touch /workspace/ran'")),
             qPrintable(outcome.describe()));
    QVERIFY2(explained.contains(QLatin1String("# Not enforced as the profile says")), qPrintable(outcome.describe()));
}

void TestSandboxCli::containerRunFailsPreflightClearly()
{
    // No engine here, or one without this image: either way the preflight refuses with 125 and says why.
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("touch /workspace/ran")},
                                                {QStringLiteral("--backend"), QStringLiteral("docker"), QStringLiteral("--image"),
                                                 QStringLiteral("warren-no-such-image:0")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 125, qPrintable(outcome.describe()));
    QVERIFY(!m_workspace->exists(QStringLiteral("ran")));
    const QString err = QString::fromUtf8(outcome.err);
    QVERIFY2(err.contains(QLatin1String("Preflight:")), qPrintable(outcome.describe()));
    QVERIFY2(err.contains(QLatin1String("FAILED")) && err.contains(QLatin1String("fix:")), qPrintable(outcome.describe()));
}

void TestSandboxCli::workspaceDefaultsToCurrentDirectory()
{
    RunOptions options;
    options.workingDirectory = m_workspace->path();
    const RunOutcome outcome = runSandbox({QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                                           QStringLiteral("pwd && echo here > marker")},
                                          options);
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(outcome.verdict(), QStringLiteral("/workspace"));
    QCOMPARE(m_workspace->readFile(QStringLiteral("marker")), QByteArray("here\n"));
}

void TestSandboxCli::envFlagSetsVariable()
{
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("printf '%s|%s' \"$ONE\" \"$TWO\"")},
                                                {QStringLiteral("--env"), QStringLiteral("ONE=first value"),
                                                 QStringLiteral("--env"), QStringLiteral("TWO=a=b")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(outcome.out, QByteArray("first value|a=b"));
}

// warren-sandbox killed with SIGKILL while its sandbox runs cannot remove the placeholders bwrap made in the
// workspace; its record of them stays unlocked, and the next launch removes them before it plans its own.
void TestSandboxCli::aKilledLaunchersPlaceholdersGoAtTheNextLaunch()
{
    QTemporaryDir scratch; // the records in a directory of this test's own: no other launch sweeps them
    const QString records = scratch.filePath(QStringLiteral("records"));
    const auto recordCount = [&records] {
        return QDir(records).entryList({QStringLiteral("rec-*")}, QDir::Files).size();
    };
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("WARREN_PLACEHOLDER_RECORDS"), records);
    QProcess launcher;
    launcher.setProcessEnvironment(environment);
    launcher.start(sandboxBinary(), {QStringLiteral("--workspace"), m_workspace->path(), QStringLiteral("--"),
                                     QStringLiteral("sh"), QStringLiteral("-c"),
                                     QStringLiteral("echo ready; exec sleep 300")});
    QVERIFY(launcher.waitForStarted());
    while (!launcher.readAllStandardOutput().contains("ready"))
        QVERIFY2(launcher.waitForReadyRead(60000), launcher.readAllStandardError().constData());
    const QStringList placeholders = {QStringLiteral(".envrc"), QStringLiteral(".git/"),
                                      QStringLiteral(".vscode/"), QStringLiteral(".idea/"),
                                      QStringLiteral(".devcontainer/")};
    for (const QString& name : placeholders)
        QVERIFY2(m_workspace->entries().contains(name), qPrintable(m_workspace->entries().join(' ')));
    launcher.kill();
    QVERIFY(launcher.waitForFinished(60000));
    for (const QString& name : placeholders) // left behind, with their record
        QVERIFY2(m_workspace->entries().contains(name), qPrintable(name));
    QCOMPARE(recordCount(), 1);

    RunOptions options;
    options.environment = environment;
    const RunOutcome next = m_workspace->run({QStringLiteral("true")}, {}, options);
    QVERIFY2(next.exited() && next.exitCode == 0, qPrintable(next.describe()));
    QCOMPARE(m_workspace->entries(), QStringList());
    QCOMPARE(recordCount(), 0);
}

QTEST_GUILESS_MAIN(TestSandboxCli)
#include "tst_sandbox_cli.moc"
