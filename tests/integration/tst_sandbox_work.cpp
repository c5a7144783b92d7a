// A sandbox that blocks everything is useless: the ordinary work of a coding agent (shell pipelines,
// Python, compiling and running C, committing with git) must still work inside, with its results on the
// host afterwards.

#include "tests/support/SandboxRun.h"

#include <QtTest>

using namespace warren::test;

namespace {

// A program the host runs (git, to check what the sandbox did); skips the test when it is missing.
QString hostTool(const char* name)
{
    return QStandardPaths::findExecutable(QLatin1String(name), {QStringLiteral("/usr/bin"), QStringLiteral("/bin")});
}

// Every file under DIRECTORY with its content and permissions.
QMap<QString, QByteArray> contentsOf(const QString& directory)
{
    QMap<QString, QByteArray> state;
    QDirIterator it(directory, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        QByteArray content = QByteArray::number(int(file.permissions())) + ':';
        if (it.fileInfo().isFile() && file.open(QIODevice::ReadOnly))
            content += file.readAll();
        state.insert(QDir(directory).relativeFilePath(path), content);
    }
    return state;
}

} // namespace

class TestSandboxWork : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void shellPipeline();
    void python();
    void compileAndRunC();
    void gitCommitInExistingRepository();
    void standardInputReachesCommand();

private:
    std::unique_ptr<Workspace> m_workspace;
};

void TestSandboxWork::initTestCase()
{
    const QString problem = sandboxUnusable();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestSandboxWork::init()
{
    m_workspace = std::make_unique<Workspace>();
    QVERIFY(m_workspace->isValid());
}

void TestSandboxWork::shellPipeline()
{
    QVERIFY(m_workspace->writeFile(QStringLiteral("words.txt"), "pear\napple\nfig\napple\n"));
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("sort words.txt | uniq -c | sort -rn | head -n 1 | tr -s ' ' > top.txt && cat top.txt")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(outcome.verdict(), QStringLiteral("2 apple"));
    QCOMPARE(m_workspace->readFile(QStringLiteral("top.txt")).trimmed(), QByteArray("2 apple"));
}

void TestSandboxWork::python()
{
    if (!QFileInfo(QStringLiteral("/usr/bin/python3")).isExecutable())
        QSKIP("no /usr/bin/python3 on this host");
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("python3"), QStringLiteral("-c"),
         QStringLiteral("import json, pathlib, tempfile\n"
                        "tempfile.TemporaryFile().write(b'x')\n"
                        "pathlib.Path('out.json').write_text(json.dumps({'sum': sum(range(10))}))\n"
                        "print(pathlib.Path('out.json').read_text())")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(outcome.verdict(), QStringLiteral("{\"sum\": 45}"));
    QCOMPARE(m_workspace->readFile(QStringLiteral("out.json")), QByteArray("{\"sum\": 45}"));
}

void TestSandboxWork::compileAndRunC()
{
    if (!QFileInfo(QStringLiteral("/usr/bin/cc")).isExecutable())
        QSKIP("no C compiler (/usr/bin/cc) on this host");
    QVERIFY(m_workspace->writeFile(QStringLiteral("hello.c"),
                                   "#include <stdio.h>\n"
                                   "int main(void) { printf(\"built and ran in %s\\n\", \"the sandbox\"); return 0; }\n"));
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("cc -O2 -Wall -o hello hello.c && ./hello")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(outcome.verdict(), QStringLiteral("built and ran in the sandbox"));
    QVERIFY(QFileInfo(m_workspace->hostPath(QStringLiteral("hello"))).isExecutable());
}

// The user's repository with its hooks and config. The agent commits; the host sees the commit, and the
// hooks and config are exactly as they were. (A repository cannot be created inside the sandbox: a new
// .git/config is as dangerous as a changed one, see tst_sandbox_protected_paths.)
void TestSandboxWork::gitCommitInExistingRepository()
{
    const QString git = hostTool("git");
    if (git.isEmpty())
        QSKIP("no git on this host");
    RunOptions inWorkspace;
    inWorkspace.workingDirectory = m_workspace->path();
    const RunOutcome init = runProgram(git, {QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main")}, inWorkspace);
    QVERIFY2(init.exitCode == 0, qPrintable(init.describe()));
    QVERIFY(m_workspace->writeFile(QStringLiteral(".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n", true));
    const auto hooksBefore = contentsOf(m_workspace->hostPath(QStringLiteral(".git/hooks")));
    const QByteArray configBefore = m_workspace->readFile(QStringLiteral(".git/config"));

    QVERIFY(m_workspace->writeFile(QStringLiteral("README"), "written on the host\n"));
    const QString script = QStringLiteral(
        "echo 'written in the sandbox' > NOTES && git add README NOTES && "
        "git -c user.name=Agent -c user.email=agent@warren.invalid commit -q -m 'Commit from the sandbox' && "
        "git log --format=%s");
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"), script});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));

    const RunOutcome log = runProgram(git, {QStringLiteral("log"), QStringLiteral("--format=%s %an"), QStringLiteral("--name-only")}, inWorkspace);
    QVERIFY2(log.exitCode == 0, qPrintable(log.describe()));
    QCOMPARE(log.verdict(), QStringLiteral("Commit from the sandbox Agent"));
    QVERIFY2(log.out.contains("NOTES") && log.out.contains("README"), qPrintable(log.describe()));
    QCOMPARE(contentsOf(m_workspace->hostPath(QStringLiteral(".git/hooks"))), hooksBefore);
    QCOMPARE(m_workspace->readFile(QStringLiteral(".git/config")), configBefore);
}

// The agent speaks JSON lines over stdio: what the control plane writes must reach the command intact.
void TestSandboxWork::standardInputReachesCommand()
{
    RunOptions options;
    options.input = "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\nsecond line\n";
    const RunOutcome outcome = m_workspace->run({QStringLiteral("cat")}, {}, options);
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(outcome.out, options.input);
}

QTEST_GUILESS_MAIN(TestSandboxWork)
#include "tst_sandbox_work.moc"
