// WorkspacePath: where a path the model gives lands, against a real tree of directories and symlinks.
// Paths inside resolve to the file the kernel would reach (symlinks resolved); every way out of the
// workspace — "..", an absolute path elsewhere, a symlink at any component, a dangling one — is refused.

#include "agent_core/tools/WorkspacePath.h"

#include <QtTest>
#include <filesystem>
#include <fstream>

using namespace warren;
using namespace warren::agent;
namespace fs = std::filesystem;

class TestWorkspacePath : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    fs::path m_workspace; // <tmp>/ws
    fs::path m_outside;   // <tmp>/outside

    // "$WS" and "$OUT" in a row stand for the temporary paths.
    std::string expand(QString text) const {
        text.replace("$WS", QString::fromStdString(m_workspace.native()));
        text.replace("$OUT", QString::fromStdString(m_outside.native()));
        return text.toStdString();
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const fs::path root = m_dir.path().toStdString();
        m_workspace = root / "ws";
        m_outside = root / "outside";
        fs::create_directories(m_workspace / "a" / "c");
        fs::create_directories(m_outside);
        std::ofstream(m_workspace / "file.txt") << "file\n";
        std::ofstream(m_workspace / "a" / "b.txt") << "b\n";
        std::ofstream(m_outside / "secret.txt") << "secret\n";
        fs::create_directory_symlink("a", m_workspace / "link_in");
        fs::create_symlink("file.txt", m_workspace / "link_file");
        fs::create_directory_symlink("../outside", m_workspace / "link_out");
        fs::create_symlink(m_outside / "secret.txt", m_workspace / "link_abs_out");
        fs::create_symlink("/etc/passwd", m_workspace / "link_etc");
        fs::create_directory_symlink(m_workspace / "a", m_workspace / "link_abs_in");
        fs::create_directory_symlink("/workspace/a", m_workspace / "link_sandbox");
        fs::create_symlink("nothere.txt", m_workspace / "dangling_in");
        fs::create_symlink("../outside/new.txt", m_workspace / "dangling_out");
        fs::create_symlink("loop2", m_workspace / "loop1");
        fs::create_symlink("loop1", m_workspace / "loop2");
        fs::create_directory_symlink("..", m_workspace / "a" / "up");
        fs::create_directory_symlink("../..", m_workspace / "a" / "upup");
        fs::create_directory_symlink("link_in/c", m_workspace / "chain");
        fs::create_directory_symlink(m_workspace, root / "ws_link");
    }

    void resolvesInside_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expected"); // relative to the workspace

        QTest::newRow("relative file") << "file.txt"
                                       << "file.txt";
        QTest::newRow("nested file") << "a/b.txt"
                                     << "a/b.txt";
        QTest::newRow("dot segments and double slashes") << "./a//./b.txt"
                                                         << "a/b.txt";
        QTest::newRow("dotdot that stays inside") << "a/c/../b.txt"
                                                  << "a/b.txt";
        QTest::newRow("trailing slash") << "a/"
                                        << "a";
        QTest::newRow("the workspace itself") << "."
                                              << ".";
        QTest::newRow("new file in new directories") << "new/dir/x.txt"
                                                     << "new/dir/x.txt";
        QTest::newRow("dotdot within the missing tail") << "new/../file.txt"
                                                        << "file.txt";
        QTest::newRow("under a file (fails later, on open)") << "file.txt/x"
                                                             << "file.txt/x";
        QTest::newRow("absolute under the workspace") << "$WS/a/b.txt"
                                                      << "a/b.txt";
        QTest::newRow("absolute workspace root") << "$WS"
                                                 << ".";
        QTest::newRow("absolute /workspace maps to the root") << "/workspace/a/b.txt"
                                                              << "a/b.txt";
        QTest::newRow("/workspace itself") << "/workspace"
                                           << ".";
        QTest::newRow("absolute dotdot that stays inside") << "/workspace/a/../file.txt"
                                                           << "file.txt";
        QTest::newRow("directory symlink inside") << "link_in/b.txt"
                                                  << "a/b.txt";
        QTest::newRow("file symlink inside (final component)") << "link_file"
                                                               << "file.txt";
        QTest::newRow("absolute symlink inside") << "link_abs_in/b.txt"
                                                 << "a/b.txt";
        QTest::newRow("symlink to /workspace maps to the root") << "link_sandbox/b.txt"
                                                                << "a/b.txt";
        QTest::newRow("dangling symlink inside names its target") << "dangling_in"
                                                                  << "nothere.txt";
        QTest::newRow("symlink to .. from a subdirectory") << "a/up/file.txt"
                                                           << "file.txt";
        QTest::newRow("dotdot after a symlink is taken from its target") << "link_in/../file.txt"
                                                                         << "file.txt";
        QTest::newRow("symlink through a symlink") << "chain"
                                                   << "a/c";
        QTest::newRow("new file under a symlinked directory") << "link_in/new.txt"
                                                              << "a/new.txt";
    }
    void resolvesInside() {
        QFETCH(QString, path);
        QFETCH(QString, expected);
        const auto resolved = resolveInWorkspace(m_workspace, expand(path));
        QVERIFY2(resolved.ok(), resolved.ok() ? "" : resolved.error().message.c_str());
        QCOMPARE(QString::fromStdString(relativeToWorkspace(m_workspace, *resolved)), expected);
        QCOMPARE(QString::fromStdString(resolved->native()),
                 QString::fromStdString((m_workspace / expected.toStdString()).lexically_normal().native())
                     .remove(QRegularExpression("/\\.?$")));
    }

    void refusesPathsLeaving_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message"); // the error message contains it

        const QString out = "is outside the workspace";
        QTest::newRow("dotdot to a sibling") << "../outside/secret.txt" << out;
        QTest::newRow("dotdot alone") << ".." << out;
        QTest::newRow("dotdot below a subdirectory") << "a/../../outside" << out;
        QTest::newRow("absolute elsewhere") << "/etc/passwd" << out;
        QTest::newRow("absolute outside in the same parent") << "$OUT/secret.txt" << out;
        QTest::newRow("prefix lookalike of the workspace") << "$WS-other/x" << out;
        QTest::newRow("prefix lookalike of /workspace") << "/workspacex/a" << out;
        QTest::newRow("absolute dotdot escape from /workspace") << "/workspace/../etc/passwd" << out;
        QTest::newRow("root") << "/" << out;
        QTest::newRow("directory symlink outside") << "link_out/secret.txt" << out;
        QTest::newRow("directory symlink outside (final component)") << "link_out" << out;
        QTest::newRow("new file under a symlink outside") << "link_out/new.txt" << out;
        QTest::newRow("absolute file symlink outside") << "link_abs_out" << out;
        QTest::newRow("symlink to /etc/passwd") << "link_etc" << out;
        QTest::newRow("dangling symlink outside") << "dangling_out" << out;
        QTest::newRow("symlink to ../.. from a subdirectory") << "a/upup/outside/secret.txt" << out;
        QTest::newRow("missing component, dotdot, then a symlink out") << "nothere/../link_out/x" << out;
        QTest::newRow("the symlink is named") << "link_out/secret.txt"
                                              << "(through the symlink \"link_out\" -> \"../outside\")";
        QTest::newRow("symlink loop") << "loop1"
                                      << "too many levels of symbolic links";
        QTest::newRow("empty") << ""
                               << "path is empty";
    }
    void refusesPathsLeaving() {
        QFETCH(QString, path);
        QFETCH(QString, message);
        const auto resolved = resolveInWorkspace(m_workspace, expand(path));
        QVERIFY2(!resolved.ok(), resolved.ok() ? resolved->c_str() : "");
        QVERIFY2(QString::fromStdString(resolved.error().message).contains(message),
                 resolved.error().message.c_str());
        QCOMPARE(resolved.error().code, ErrorCode::InvalidArgument);
    }

    void messageNamesPathAndWorkspace() {
        const auto resolved = resolveInWorkspace(m_workspace, "../etc/passwd");
        QVERIFY(!resolved.ok());
        QCOMPARE(QString::fromStdString(resolved.error().message),
                 QString::fromStdString("path \"../etc/passwd\" is outside the workspace " +
                                        m_workspace.native()));
    }

    void refusesNulByte() {
        const auto resolved = resolveInWorkspace(m_workspace, std::string_view("a\0b", 3));
        QVERIFY(!resolved.ok());
        QCOMPARE(QString::fromStdString(resolved.error().message), "path contains a NUL byte");
    }

    void missingWorkspaceIsAnError() {
        const auto resolved = resolveInWorkspace(m_workspace / "nope", "a");
        QVERIFY(!resolved.ok());
        QCOMPARE(resolved.error().code, ErrorCode::System);
    }

    // The workspace given through a symlink: results keep that spelling, and symlinks whose targets use
    // the real path are still inside.
    void workspaceReachedThroughSymlink() {
        const fs::path viaLink = m_workspace.parent_path() / "ws_link";
        const auto resolved = resolveInWorkspace(viaLink, "link_abs_in/b.txt");
        QVERIFY2(resolved.ok(), resolved.ok() ? "" : resolved.error().message.c_str());
        QCOMPARE(QString::fromStdString(resolved->native()),
                 QString::fromStdString((viaLink / "a/b.txt").native()));
        QVERIFY(!resolveInWorkspace(viaLink, "link_out/secret.txt").ok());
    }

    void relativePaths_data() {
        QTest::addColumn<QString>("workspace");
        QTest::addColumn<QString>("absolute");
        QTest::addColumn<QString>("expected");

        QTest::newRow("file below") << "/w"
                                    << "/w/a/b"
                                    << "a/b";
        QTest::newRow("the workspace") << "/w"
                                       << "/w"
                                       << ".";
        QTest::newRow("trailing slash on the workspace") << "/w/"
                                                         << "/w/a"
                                                         << "a";
        QTest::newRow("lookalike prefix is outside") << "/w"
                                                     << "/wx/a"
                                                     << "/wx/a";
        QTest::newRow("elsewhere") << "/w"
                                   << "/other/x"
                                   << "/other/x";
        QTest::newRow("root workspace") << "/"
                                        << "/a/b"
                                        << "a/b";
        QTest::newRow("relative path is not below") << "/w"
                                                    << "w/a"
                                                    << "w/a";
    }
    void relativePaths() {
        QFETCH(QString, workspace);
        QFETCH(QString, absolute);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(
                     warren::agent::relativeToWorkspace(workspace.toStdString(), absolute.toStdString())),
                 expected);
    }
};

QTEST_GUILESS_MAIN(TestWorkspacePath)
#include "tst_workspace_path.moc"
