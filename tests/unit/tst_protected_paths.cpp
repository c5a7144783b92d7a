// ProtectedPaths on real directories: what the plan makes read-only, pinned or held by a placeholder, the
// workspaces it refuses because a protected file could still be changed through another name (a symlink or
// a hard link), and the cleanup of placeholder mount points after a run.
//
// Layouts are written one entry per line:
//   "dir P"          a directory (and its parents)
//   "file P"         a file with content;  "empty P" an empty file
//   "link P TARGET"  a symlink to TARGET
//   "hardlink P Q"   a second name P for the existing file Q
// P and Q are relative to the workspace unless they start with {outside} (a directory next to it, which
// the sandbox cannot see); {ws} and {outside} in a link TARGET are replaced by the absolute paths.

#include "sandbox/policy/ProtectedPaths.h"

#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace warren;
using namespace warren::sandbox;

namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

QString canonical(const QString& path) {
    char resolved[PATH_MAX];
    return realpath(path.toLocal8Bit().constData(), resolved) ? QString::fromLocal8Bit(resolved) : QString();
}

const std::map<QString, ProtectionEntry::Kind>& kindsByName() {
    static const std::map<QString, ProtectionEntry::Kind> kinds = {
        {"pin", ProtectionEntry::Kind::Pin},
        {"read-only", ProtectionEntry::Kind::ReadOnly},
        {"placeholder-file", ProtectionEntry::Kind::PlaceholderFile},
        {"placeholder-dir", ProtectionEntry::Kind::PlaceholderDir}};
    return kinds;
}

QString kindName(ProtectionEntry::Kind kind) {
    for (const auto& [name, value] : kindsByName())
        if (value == kind)
            return name;
    return "?";
}

QStringList describe(const ProtectionPlan& plan) {
    QStringList lines;
    for (const auto& entry : plan.entries)
        lines << kindName(entry.kind) + " " + qs(entry.relative);
    return lines;
}

ProtectionPlan planFrom(const QStringList& lines) {
    ProtectionPlan plan;
    for (const QString& line : lines) {
        const QStringList words = line.split(' ');
        plan.entries.push_back({words[1].toStdString(), kindsByName().at(words[0])});
    }
    return plan;
}

// Profile keys: a trailing '/' marks a directory, as in "protected_paths"; " if-exists" the "if-exists" mode.
std::vector<ProtectedPath> protectedPaths(const QStringList& keys) {
    const QString ifExists = " if-exists";
    std::vector<ProtectedPath> paths;
    for (QString key : keys) {
        ProtectedPath path;
        path.onlyIfExists = key.endsWith(ifExists);
        if (path.onlyIfExists)
            key.chop(ifExists.size());
        path.directory = key.endsWith('/');
        path.path = (path.directory ? key.chopped(1) : key).toStdString();
        paths.push_back(path);
    }
    return paths;
}

// A workspace and a directory outside it, both canonical, so symlink targets compare as the planner sees
// them.
class Sandbox {
public:
    bool isValid() const {
        return m_workspaceDir.isValid() && m_outsideDir.isValid() && !m_workspace.isEmpty();
    }
    std::string workspace() const { return m_workspace.toStdString(); }
    QString workspacePath() const { return m_workspace; }

    QString path(const QString& relative) const {
        if (relative.startsWith("{outside}"))
            return QString(relative).replace("{outside}", m_outside);
        return m_workspace + "/" + relative;
    }

    QString expand(const QString& target) const {
        return QString(target).replace("{ws}", m_workspace).replace("{outside}", m_outside);
    }

    // Returns an empty string, or what could not be built.
    QString build(const QStringList& layout) const {
        for (const QString& line : layout) {
            const QStringList words = line.split(' ');
            const QString& what = words[0];
            const QString target = path(words.value(1));
            if (!QDir().mkpath(QFileInfo(target).path()))
                return "mkpath for " + line;
            bool ok = false;
            if (what == "dir") {
                ok = QDir().mkpath(target);
            } else if (what == "file" || what == "empty") {
                QFile file(target);
                ok = file.open(QIODevice::WriteOnly) && (what == "empty" || file.write("content\n") > 0);
            } else if (what == "link") {
                ok = symlink(expand(words.value(2)).toLocal8Bit().constData(),
                             target.toLocal8Bit().constData()) == 0;
            } else if (what == "hardlink") {
                ok = link(path(words.value(2)).toLocal8Bit().constData(), target.toLocal8Bit().constData()) ==
                     0;
            }
            if (!ok)
                return "cannot build: " + line;
        }
        return {};
    }

    // Everything in the workspace: "d dir", "f file", "l link", sorted.
    QStringList listing() const {
        QStringList lines;
        QDirIterator it(m_workspace, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            const QFileInfo info = it.fileInfo();
            const QString kind = info.isSymLink() ? "l" : info.isDir() ? "d" : "f";
            lines << kind + " " + QDir(m_workspace).relativeFilePath(info.filePath());
        }
        lines.sort();
        return lines;
    }

private:
    QTemporaryDir m_workspaceDir;
    QTemporaryDir m_outsideDir;
    QString m_workspace = canonical(m_workspaceDir.path());
    QString m_outside = canonical(m_outsideDir.path());
};

} // namespace

class TestProtectedPaths : public QObject {
    Q_OBJECT

private slots:
    void plan_data();
    void plan();
    void defaultProfileOnAFreshClone();
    void refused_data();
    void refused();
    void removePlaceholders_data();
    void removePlaceholders();
    void planThenCleanupLeavesTheWorkspaceAsFound();
};

// clang-format off
void TestProtectedPaths::plan_data() {
    QTest::addColumn<QStringList>("layout");
    QTest::addColumn<QStringList>("protect"); // profile keys
    QTest::addColumn<QStringList>("expected");

    QTest::newRow("existing file is read-only")
        << QStringList{"file .envrc"} << QStringList{".envrc"} << QStringList{"read-only .envrc"};
    QTest::newRow("existing directory is read-only")
        << QStringList{"file .vscode/settings.json"} << QStringList{".vscode/"}
        << QStringList{"read-only .vscode"};
    QTest::newRow("missing file gets a placeholder file")
        << QStringList{} << QStringList{".envrc"} << QStringList{"placeholder-file .envrc"};
    QTest::newRow("missing directory gets a placeholder directory")
        << QStringList{} << QStringList{".vscode/"} << QStringList{"placeholder-dir .vscode"};
    QTest::newRow("missing parent is a placeholder directory")
        << QStringList{} << QStringList{".git/hooks/"} << QStringList{"placeholder-dir .git"};
    QTest::newRow("missing parent of a file is a placeholder directory")
        << QStringList{} << QStringList{".git/config"} << QStringList{"placeholder-dir .git"};
    QTest::newRow("existing parent is pinned")
        << QStringList{"dir .git"} << QStringList{".git/hooks/"}
        << QStringList{"pin .git", "placeholder-dir .git/hooks"};
    QTest::newRow("existing parent and child")
        << QStringList{"file .git/hooks/pre-commit.sample"} << QStringList{".git/hooks/"}
        << QStringList{"pin .git", "read-only .git/hooks"};
    QTest::newRow("every existing directory on the way is pinned")
        << QStringList{"file .github/workflows/ci.yml"} << QStringList{".github/workflows/ci.yml"}
        << QStringList{"pin .github", "pin .github/workflows", "read-only .github/workflows/ci.yml"};
    QTest::newRow("deep missing path stops at the first missing directory")
        << QStringList{"dir a"} << QStringList{"a/b/c"} << QStringList{"pin a", "placeholder-dir a/b"};
    QTest::newRow("worktree .git file is read-only")
        << QStringList{"file .git"} << QStringList{".git/hooks/", ".git/config"}
        << QStringList{"read-only .git"};
    QTest::newRow(".git pinned once for two paths in it")
        << QStringList{"file .git/config", "file .git/HEAD"} << QStringList{".git/hooks/", ".git/config"}
        << QStringList{"pin .git", "read-only .git/config", "placeholder-dir .git/hooks"};
    QTest::newRow("path under a read-only directory is covered")
        << QStringList{"file .vscode/settings.json"} << QStringList{".vscode/", ".vscode/settings.json"}
        << QStringList{"read-only .vscode"};
    QTest::newRow("read-only directory covers a pin of itself")
        << QStringList{"dir .git/hooks"} << QStringList{".git/hooks/", ".git/"}
        << QStringList{"read-only .git"};
    QTest::newRow("path under a placeholder directory is covered")
        << QStringList{} << QStringList{".git/", ".git/hooks/", ".git/config"}
        << QStringList{"placeholder-dir .git"};
    QTest::newRow("missing file and directory of one name: the directory holds it")
        << QStringList{} << QStringList{"x", "x/"} << QStringList{"placeholder-dir x"};
    QTest::newRow("file key on an existing directory")
        << QStringList{"dir .envrc"} << QStringList{".envrc"} << QStringList{"read-only .envrc"};
    QTest::newRow("directory key on an existing file")
        << QStringList{"file .vscode"} << QStringList{".vscode/"} << QStringList{"read-only .vscode"};
    QTest::newRow("sorted parents first whatever the key order")
        << QStringList{"dir .git"} << QStringList{".zshrc", ".git/hooks/", ".envrc", ".git/config"}
        << QStringList{"placeholder-file .envrc", "pin .git", "placeholder-file .git/config",
                       "placeholder-dir .git/hooks", "placeholder-file .zshrc"};
    QTest::newRow("symlink inside pointing outside the workspace")
        << QStringList{"file {outside}/hook", "dir .git/hooks", "link .git/hooks/pre-commit {outside}/hook"}
        << QStringList{".git/hooks/"} << QStringList{"pin .git", "read-only .git/hooks"};
    QTest::newRow("dangling symlink inside pointing outside the workspace")
        << QStringList{"dir .git/hooks", "link .git/hooks/pre-commit {outside}/missing"}
        << QStringList{".git/hooks/"} << QStringList{"pin .git", "read-only .git/hooks"};
    QTest::newRow("directory symlink inside pointing outside the workspace")
        << QStringList{"dir {outside}/shared", "dir .vscode", "link .vscode/shared {outside}/shared"}
        << QStringList{".vscode/"} << QStringList{"read-only .vscode"};
    QTest::newRow("symlink inside pointing to a system file")
        << QStringList{"dir .git/hooks", "link .git/hooks/pre-commit /bin/true"} << QStringList{".git/hooks/"}
        << QStringList{"pin .git", "read-only .git/hooks"};
    QTest::newRow("hard links elsewhere in the workspace do not matter")
        << QStringList{"file notes.txt", "hardlink notes2.txt notes.txt"} << QStringList{".envrc"}
        << QStringList{"placeholder-file .envrc"};
    QTest::newRow("symlinks elsewhere in the workspace do not matter")
        << QStringList{"file real", "link alias real"} << QStringList{".envrc"}
        << QStringList{"placeholder-file .envrc"};
    QTest::newRow("missing if-exists file is left alone")
        << QStringList{} << QStringList{".envrc if-exists"} << QStringList{};
    QTest::newRow("existing if-exists file is read-only")
        << QStringList{"file .envrc"} << QStringList{".envrc if-exists"} << QStringList{"read-only .envrc"};
    QTest::newRow("missing if-exists directory is left alone")
        << QStringList{} << QStringList{".idea/ if-exists"} << QStringList{};
    QTest::newRow("existing if-exists directory is read-only")
        << QStringList{"file .idea/workspace.xml"} << QStringList{".idea/ if-exists"}
        << QStringList{"read-only .idea"};
    QTest::newRow("if-exists beside strict paths")
        << QStringList{"file .bashrc"} << QStringList{".bashrc if-exists", ".zshrc if-exists", ".envrc"}
        << QStringList{"read-only .bashrc", "placeholder-file .envrc"};
    QTest::newRow("nothing protected") << QStringList{"file .envrc"} << QStringList{} << QStringList{};
}
// clang-format on

void TestProtectedPaths::plan() {
    QFETCH(QStringList, layout);
    QFETCH(QStringList, protect);
    QFETCH(QStringList, expected);

    Sandbox sandbox;
    QVERIFY(sandbox.isValid());
    const QString problem = sandbox.build(layout);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    const QStringList before = sandbox.listing();

    auto plan = planProtection(sandbox.workspace(), protectedPaths(protect));
    QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
    QCOMPARE(describe(*plan), expected);
    QCOMPARE(sandbox.listing(), before); // planning only looks
}

void TestProtectedPaths::defaultProfileOnAFreshClone() {
    Sandbox sandbox;
    QVERIFY(sandbox.isValid());
    const QString problem =
        sandbox.build({"file .git/config", "file .git/HEAD", "file .git/hooks/pre-commit.sample",
                       "file .vscode/settings.json", "file .envrc", "file README.md", "file src/main.c"});
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    auto profile = resolveProfile({defaultProfileJson(), {{"workspace", {{"source", sandbox.workspace()}}}}});
    QVERIFY2(profile.ok(), profile.ok() ? "" : profile.error().message.c_str());

    auto plan = planProtection(sandbox.workspace(), profile->protectedPaths);
    QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
    const QStringList expected = {
        "placeholder-dir .devcontainer", "read-only .envrc",      "pin .git",         "read-only .git/config",
        "read-only .git/hooks",          "placeholder-dir .idea", "read-only .vscode"};
    QCOMPARE(describe(*plan), expected);
}

// clang-format off
void TestProtectedPaths::refused_data() {
    QTest::addColumn<QStringList>("layout");
    QTest::addColumn<QStringList>("protect");
    QTest::addColumn<QString>("message"); // names the path and the reason
    QTest::addColumn<QString>("fix");     // what the user is told to do

    const QString dropLink = "Replace the link with what it points to.";
    const QString copyLink = "Replace the link with a copy of what it points to.";
    const QString oneName = "Give it a single name";

    QTest::newRow("symlinked protected file")
        << QStringList{"file real-envrc", "link .envrc real-envrc"} << QStringList{".envrc"}
        << "protected path .envrc is a symbolic link" << dropLink;
    QTest::newRow("symlinked protected file pointing outside")
        << QStringList{"file {outside}/envrc", "link .envrc {outside}/envrc"} << QStringList{".envrc"}
        << "protected path .envrc is a symbolic link" << dropLink;
    QTest::newRow("dangling symlink as a protected file")
        << QStringList{"link .envrc nowhere"} << QStringList{".envrc"}
        << "protected path .envrc is a symbolic link" << R"("protected_paths": {".envrc": false})";
    QTest::newRow("symlinked protected directory")
        << QStringList{"dir real-vscode", "link .vscode real-vscode"} << QStringList{".vscode/"}
        << "protected path .vscode is a symbolic link" << R"("protected_paths": {".vscode/": false})";
    QTest::newRow("symlinked ancestor")
        << QStringList{"dir real-git/hooks", "link .git real-git"} << QStringList{".git/hooks/"}
        << "protected path .git is a symbolic link" << R"("protected_paths": {".git/hooks/": false})";
    QTest::newRow("symlinked ancestor of a file")
        << QStringList{"file real-git/config", "link .git real-git"} << QStringList{".git/config"}
        << "protected path .git is a symbolic link" << R"("protected_paths": {".git/config": false})";
    QTest::newRow("symlinked if-exists file")
        << QStringList{"file real", "link .bashrc real"} << QStringList{".bashrc if-exists"}
        << "protected path .bashrc is a symbolic link" << dropLink;
    QTest::newRow("hard-linked if-exists file")
        << QStringList{"file .bashrc", "hardlink bashrc-copy .bashrc"} << QStringList{".bashrc if-exists"}
        << "protected path .bashrc has 2 hard links" << oneName;
    QTest::newRow("protected file with 2 hard links")
        << QStringList{"file .envrc", "hardlink envrc-copy .envrc"} << QStringList{".envrc"}
        << "protected path .envrc has 2 hard links" << oneName;
    QTest::newRow("protected file with 3 hard links")
        << QStringList{"file .envrc", "hardlink a .envrc", "hardlink b .envrc"} << QStringList{".envrc"}
        << "protected path .envrc has 3 hard links" << oneName;
    QTest::newRow("protected file hard-linked from outside the workspace")
        << QStringList{"file {outside}/envrc", "hardlink .envrc {outside}/envrc"} << QStringList{".envrc"}
        << "protected path .envrc has 2 hard links" << oneName;
    QTest::newRow("hard-linked file inside a protected directory")
        << QStringList{"file .git/hooks/pre-commit", "hardlink notes.txt .git/hooks/pre-commit"}
        << QStringList{".git/hooks/"} << "protected path .git/hooks/pre-commit has 2 hard links" << oneName;
    QTest::newRow("hard-linked file deep inside a protected directory")
        << QStringList{"file .vscode/a/b/tasks.json", "hardlink tasks.json .vscode/a/b/tasks.json"}
        << QStringList{".vscode/"} << "protected path .vscode/a/b/tasks.json has 2 hard links" << oneName;
    QTest::newRow("relative symlink inside into the workspace")
        << QStringList{"file evil.sh", "dir .git/hooks", "link .git/hooks/pre-commit ../../evil.sh"}
        << QStringList{".git/hooks/"}
        << "protected path .git/hooks/pre-commit is a symbolic link into the workspace" << copyLink;
    QTest::newRow("absolute symlink inside into the workspace")
        << QStringList{"file evil.sh", "dir .git/hooks", "link .git/hooks/pre-commit {ws}/evil.sh"}
        << QStringList{".git/hooks/"}
        << "protected path .git/hooks/pre-commit is a symbolic link into the workspace" << copyLink;
    QTest::newRow("symlink inside to the workspace root")
        << QStringList{"dir .vscode", "link .vscode/root {ws}"} << QStringList{".vscode/"}
        << "protected path .vscode/root is a symbolic link into the workspace" << copyLink;
    QTest::newRow("symlink inside to a workspace directory")
        << QStringList{"dir src", "dir .vscode", "link .vscode/src ../src"} << QStringList{".vscode/"}
        << "protected path .vscode/src is a symbolic link into the workspace" << copyLink;
    QTest::newRow("symlink inside leaving and re-entering the workspace")
        << QStringList{"file evil.sh", "link {outside}/hop {ws}/evil.sh", "dir .git/hooks",
                       "link .git/hooks/pre-commit {outside}/hop"}
        << QStringList{".git/hooks/"}
        << "protected path .git/hooks/pre-commit is a symbolic link into the workspace"
        << copyLink;
    QTest::newRow("dangling symlink inside into the workspace")
        << QStringList{"dir .git/hooks", "link .git/hooks/pre-commit ../../evil.sh"}
        << QStringList{".git/hooks/"}
        << "protected path .git/hooks/pre-commit is a symbolic link into the workspace" << copyLink;
}
// clang-format on

void TestProtectedPaths::refused() {
    QFETCH(QStringList, layout);
    QFETCH(QStringList, protect);
    QFETCH(QString, message);
    QFETCH(QString, fix);

    Sandbox sandbox;
    QVERIFY(sandbox.isValid());
    const QString problem = sandbox.build(layout);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    auto plan = planProtection(sandbox.workspace(), protectedPaths(protect));
    QVERIFY2(!plan.ok(),
             qPrintable("accepted, plan: " + (plan.ok() ? describe(*plan).join(", ") : QString())));
    QCOMPARE(plan.error().code, ErrorCode::InvalidArgument);
    const QString actual = qs(plan.error().message);
    QVERIFY2(actual.contains(message), qPrintable("\"" + message + "\" not in: " + actual));
    QVERIFY2(actual.contains(fix), qPrintable("\"" + fix + "\" not in: " + actual));
}

// clang-format off
void TestProtectedPaths::removePlaceholders_data() {
    QTest::addColumn<QStringList>("layout"); // the workspace after the sandbox exited
    QTest::addColumn<QStringList>("plan");
    QTest::addColumn<QStringList>("expected"); // the workspace after removePlaceholders

    QTest::newRow("empty placeholder file removed")
        << QStringList{"empty .envrc"} << QStringList{"placeholder-file .envrc"} << QStringList{};
    QTest::newRow("placeholder file with content kept")
        << QStringList{"file .envrc"} << QStringList{"placeholder-file .envrc"} << QStringList{"f .envrc"};
    QTest::newRow("empty placeholder directory removed")
        << QStringList{"dir .vscode"} << QStringList{"placeholder-dir .vscode"} << QStringList{};
    QTest::newRow("placeholder directory with content kept")
        << QStringList{"file .vscode/settings.json"} << QStringList{"placeholder-dir .vscode"}
        << QStringList{"d .vscode", "f .vscode/settings.json"};
    QTest::newRow("placeholder in a pinned directory removed, the directory kept")
        << QStringList{"dir .git/hooks", "file .git/config"}
        << QStringList{"pin .git", "read-only .git/config", "placeholder-dir .git/hooks"}
        << QStringList{"d .git", "f .git/config"};
    QTest::newRow("empty pinned directory kept")
        << QStringList{"dir .git"} << QStringList{"pin .git"} << QStringList{"d .git"};
    QTest::newRow("empty real file kept")
        << QStringList{"empty .envrc"} << QStringList{"read-only .envrc"} << QStringList{"f .envrc"};
    QTest::newRow("empty real directory kept")
        << QStringList{"dir .vscode"} << QStringList{"read-only .vscode"} << QStringList{"d .vscode"};
    QTest::newRow("file where a placeholder directory was planned kept")
        << QStringList{"empty .vscode"} << QStringList{"placeholder-dir .vscode"} << QStringList{"f .vscode"};
    QTest::newRow("directory where a placeholder file was planned kept")
        << QStringList{"dir .envrc"} << QStringList{"placeholder-file .envrc"} << QStringList{"d .envrc"};
    QTest::newRow("symlink where a placeholder was planned kept")
        << QStringList{"link .envrc nowhere"} << QStringList{"placeholder-file .envrc"}
        << QStringList{"l .envrc"};
    QTest::newRow("placeholders already gone")
        << QStringList{} << QStringList{"placeholder-file .envrc", "placeholder-dir .vscode"}
        << QStringList{};
    QTest::newRow("other files untouched")
        << QStringList{"empty .envrc", "empty notes.txt", "dir build"}
        << QStringList{"placeholder-file .envrc"} << QStringList{"d build", "f notes.txt"};
}
// clang-format on

void TestProtectedPaths::removePlaceholders() {
    QFETCH(QStringList, layout);
    QFETCH(QStringList, plan);
    QFETCH(QStringList, expected);

    Sandbox sandbox;
    QVERIFY(sandbox.isValid());
    const QString problem = sandbox.build(layout);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    warren::sandbox::removePlaceholders(sandbox.workspace(), planFrom(plan));
    QCOMPARE(sandbox.listing(), expected);
}

// What a run does to the host workspace: bwrap creates each placeholder's mount point, cleanup removes it.
void TestProtectedPaths::planThenCleanupLeavesTheWorkspaceAsFound() {
    Sandbox sandbox;
    QVERIFY(sandbox.isValid());
    const QString problem =
        sandbox.build({"file .git/config", "dir .git/objects", "file .vscode/settings.json", "file README.md",
                       "empty src/empty.c"});
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    const QStringList before = sandbox.listing();

    auto profile = resolveProfile({defaultProfileJson(), {{"workspace", {{"source", sandbox.workspace()}}}}});
    QVERIFY(profile.ok());
    auto plan = planProtection(sandbox.workspace(), profile->protectedPaths);
    QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());

    int placeholders = 0;
    for (const auto& entry : plan->entries) {
        const QString mountPoint = sandbox.path(qs(entry.relative));
        if (entry.kind == ProtectionEntry::Kind::PlaceholderDir) {
            QVERIFY(QDir().mkdir(mountPoint));
            ++placeholders;
        } else if (entry.kind == ProtectionEntry::Kind::PlaceholderFile) {
            QFile file(mountPoint);
            QVERIFY(file.open(QIODevice::WriteOnly));
            ++placeholders;
        }
    }
    QVERIFY(placeholders > 0);
    QVERIFY(sandbox.listing() != before);

    warren::sandbox::removePlaceholders(sandbox.workspace(), *plan);
    QCOMPARE(sandbox.listing(), before);
}

QTEST_GUILESS_MAIN(TestProtectedPaths)
#include "tst_protected_paths.moc"
