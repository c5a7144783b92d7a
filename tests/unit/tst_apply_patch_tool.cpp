// apply_patch against a real workspace: a patch that adds, updates, moves and deletes files does all of
// it and reports each change with its diff; a patch with any bad part (a hunk that does not match, a path
// outside the workspace, a file that exists or is missing) changes nothing; a write that fails part way
// is undone; modes are kept; bad arguments are named.

#include "agent_core/tools/ApplyPatchTool.h"
#include "tests/unit/WorkspaceTree.h"

#include <QtTest>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace warren;
using namespace warren::agent;
using namespace warren::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json patchCall(const std::string& body) {
    return {{"input", "*** Begin Patch\n" + body + "*** End Patch\n"}};
}

} // namespace

class TestApplyPatchTool : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_workspace;
    Cancellation m_cancellation;
    struct Reported {
        std::string path;
        FileChange change;
        std::optional<FileDiff> diff;
    };
    std::vector<Reported> m_changes;

    ToolEnv env() {
        ToolEnv env;
        env.workspace = m_workspace;
        env.cancellation = &m_cancellation;
        env.onFileChanged = [this](const std::string& path, FileChange change, const FileDiff* diff) {
            m_changes.push_back({path, change, diff ? std::optional<FileDiff>(*diff) : std::nullopt});
        };
        return env;
    }

    ToolOutcome run(const json& arguments) {
        ApplyPatchTool tool;
        return tool.run(arguments, env());
    }

private slots:
    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_workspace = fs::path(m_dir->path().toStdString()) / "ws";
        fs::create_directories(m_workspace);
        m_changes.clear();
        writeFile(m_workspace / "src/app.py",
                  "def greet():\n    print(\"Hi\")\n\ndef main():\n    greet()\n");
        writeFile(m_workspace / "old.txt", "obsolete\n");
        writeFile(m_workspace / "notes.md", "# Notes\n");
        writeFile(m_dir->path().toStdString() + "/outside.txt", "outside\n");
    }

    void appliesEveryKindOfChange() {
        ::chmod((m_workspace / "src/app.py").c_str(), 0750);
        ::chmod((m_workspace / "notes.md").c_str(), 0640);
        const auto outcome = run(patchCall("*** Add File: docs/hello.txt\n+Hello\n+world\n"
                                           "*** Update File: src/app.py\n@@ def greet():\n-    print(\"Hi\")\n"
                                           "+    print(\"Hello, world!\")\n"
                                           "*** Update File: notes.md\n*** Move to: doc/notes.md\n@@\n # Notes\n+- one\n"
                                           "*** Delete File: old.txt\n"));
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(QString::fromStdString(outcome.output),
                 QString("applied the patch:\nA docs/hello.txt\nM src/app.py\nM notes.md -> doc/notes.md\nD old.txt"));
        QCOMPARE(readFile(m_workspace / "docs/hello.txt"), std::string("Hello\nworld\n"));
        QCOMPARE(readFile(m_workspace / "src/app.py"),
                 std::string("def greet():\n    print(\"Hello, world!\")\n\ndef main():\n    greet()\n"));
        QCOMPARE(modeOf(m_workspace / "src/app.py"), mode_t(0750));
        QCOMPARE(readFile(m_workspace / "doc/notes.md"), std::string("# Notes\n- one\n"));
        QCOMPARE(modeOf(m_workspace / "doc/notes.md"), mode_t(0640));
        QVERIFY(!fs::exists(m_workspace / "notes.md"));
        QVERIFY(!fs::exists(m_workspace / "old.txt"));
        QCOMPARE(outcome.bytesWritten, readFile(m_workspace / "docs/hello.txt").size() +
                                           readFile(m_workspace / "src/app.py").size() +
                                           readFile(m_workspace / "doc/notes.md").size());

        QCOMPARE(m_changes.size(), std::size_t(5));
        QCOMPARE(m_changes[0].path, std::string("docs/hello.txt"));
        QVERIFY(m_changes[0].change == FileChange::Created);
        QCOMPARE(m_changes[0].diff->text, std::string("--- /dev/null\n+++ b/docs/hello.txt\n@@ -0,0 +1,2 @@\n"
                                                      "+Hello\n+world\n"));
        QCOMPARE(m_changes[1].path, std::string("src/app.py"));
        QVERIFY(m_changes[1].change == FileChange::Modified);
        QCOMPARE(m_changes[1].diff->added, std::size_t(1));
        QCOMPARE(m_changes[1].diff->removed, std::size_t(1));
        QVERIFY(m_changes[1].diff->text.find("-    print(\"Hi\")\n+    print(\"Hello, world!\")\n") !=
                std::string::npos);
        QCOMPARE(m_changes[2].path, std::string("notes.md"));
        QVERIFY(m_changes[2].change == FileChange::Deleted);
        QCOMPARE(m_changes[3].path, std::string("doc/notes.md"));
        QVERIFY(m_changes[3].change == FileChange::Created);
        QCOMPARE(m_changes[4].path, std::string("old.txt"));
        QVERIFY(m_changes[4].change == FileChange::Deleted);
        QCOMPARE(m_changes[4].diff->text, std::string("--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-obsolete\n"));
    }

    void refusesWholePatchWhenAPartIsBad_data() {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("message");
        const QString unchanged = "; no file was changed";

        QTest::newRow("second hunk does not match")
            << "*** Add File: new.txt\n+x\n*** Update File: src/app.py\n@@\n-    print(\"Bye\")\n+    pass\n"
            << "apply_patch: the hunk at patch line 5 does not match src/app.py: its 1 context and removed lines, "
               "starting \"    print(\"Bye\")\", was not found. Read the file again and copy its lines exactly "
               "into the hunk's \" \" and \"-\" lines; no file was changed";
        QTest::newRow("parent directory") << "*** Delete File: old.txt\n*** Add File: ../escape.txt\n+x\n"
                                          << "";
        QTest::newRow("absolute path elsewhere") << "*** Delete File: old.txt\n*** Delete File: /etc/hostname\n"
                                                 << "";
        QTest::newRow("move out of the workspace")
            << "*** Update File: notes.md\n*** Move to: ../notes.md\n@@\n-# Notes\n+# N\n" << "";
        QTest::newRow("symlink out of the workspace") << "*** Delete File: old.txt\n*** Update File: link.txt\n@@\n-outside\n+inside\n"
                                                      << "";
        QTest::newRow("add over an existing file")
            << "*** Delete File: old.txt\n*** Add File: notes.md\n+x\n"
            << "apply_patch: notes.md already exists; change it with *** Update File, or replace it whole with "
               "write_file" + unchanged;
        QTest::newRow("move onto an existing file")
            << "*** Update File: notes.md\n*** Move to: old.txt\n@@\n-# Notes\n+# N\n"
            << "apply_patch: old.txt already exists; *** Move to does not replace a file; delete it first" +
                   unchanged;
        QTest::newRow("update a missing file")
            << "*** Delete File: old.txt\n*** Update File: missing.txt\n@@\n-a\n+b\n"
            << "apply_patch: no such file: missing.txt (*** Add File creates a file)" + unchanged;
        QTest::newRow("delete a missing file") << "*** Delete File: old.txt\n*** Delete File: gone.txt\n"
                                               << "apply_patch: gone.txt does not exist; nothing to delete" + unchanged;
        QTest::newRow("delete a directory") << "*** Delete File: old.txt\n*** Delete File: src\n"
                                            << "apply_patch: src is a directory; *** Delete File deletes a file" +
                                                   unchanged;
        QTest::newRow("malformed") << "*** Add File: new.txt\n+x\n*** Frobnicate: x\n"
                                   << "apply_patch: patch line 4: every line of a file added by \"*** Add File: "
                                      "new.txt\" starts with \"+\" (a blank line too), got \"*** Frobnicate: x\""
                                      + unchanged;
        QTest::newRow("malformed after a delete") << "*** Delete File: old.txt\n*** Frobnicate: x\n"
                                   << "apply_patch: patch line 3: \"*** Delete File: old.txt\" takes no lines after it; expected a file operation (\"*** Add File: PATH\", "
                                      "\"*** Delete File: PATH\" or \"*** Update File: PATH\") or \"*** End Patch\", "
                                      "got \"*** Frobnicate: x\"" + unchanged;
    }

    void refusesWholePatchWhenAPartIsBad() {
        QFETCH(QString, body);
        QFETCH(QString, message);
        fs::create_symlink(fs::path(m_dir->path().toStdString()) / "outside.txt", m_workspace / "link.txt");
        const QStringList before = snapshot(fs::path(m_dir->path().toStdString()));
        const auto outcome = run(patchCall(body.toStdString()));
        QVERIFY(!outcome.ok);
        if (message.isEmpty()) // a path leading out: refused as the other file tools refuse it
            QVERIFY2(outcome.output.find("outside the workspace") != std::string::npos &&
                         outcome.output.ends_with("; no file was changed"),
                     outcome.output.c_str());
        else
            QCOMPARE(QString::fromStdString(outcome.output), message);
        QCOMPARE(snapshot(fs::path(m_dir->path().toStdString())), before);
        QVERIFY(m_changes.empty());
    }

    void undoesWritesWhenALaterWriteFails() {
        // "old.txt/new.txt" cannot be created (old.txt is a file): the failure comes after src/app.py was
        // rewritten and notes.md deleted, so both must come back.
        ::chmod((m_workspace / "notes.md").c_str(), 0600);
        const QStringList before = snapshot(m_workspace);
        const auto outcome = run(patchCall("*** Update File: src/app.py\n@@\n-    greet()\n+    pass\n"
                                           "*** Delete File: notes.md\n"
                                           "*** Add File: fresh/dir/a.txt\n+a\n"
                                           "*** Add File: old.txt/new.txt\n+x\n"));
        QVERIFY(!outcome.ok);
        QVERIFY2(outcome.output.starts_with("apply_patch: cannot create a temporary file beside old.txt/new.txt"),
                 outcome.output.c_str());
        QVERIFY2(outcome.output.ends_with("; the files written before it were restored; no file was changed"),
                 outcome.output.c_str());
        QCOMPARE(snapshot(m_workspace), before);
        QCOMPARE(modeOf(m_workspace / "notes.md"), mode_t(0600));
        QVERIFY(m_changes.empty());
    }

    void saysWhenAHunkMatchedOnlyLoosely() {
        writeFile(m_workspace / "cfg.txt", "key = 1   \nother\n");
        const auto outcome = run(patchCall("*** Update File: cfg.txt\n@@\n-key = 1\n+key = 2\n"));
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(QString::fromStdString(outcome.output),
                 QString("applied the patch:\nM cfg.txt\n  (its hunk 1 matched only ignoring trailing whitespace; "
                         "check the result)"));
        QCOMPARE(readFile(m_workspace / "cfg.txt"), std::string("key = 2\nother\n"));
    }

    void namesBadArguments_data() {
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing input") << "{}" << "apply_patch: missing required argument \"input\"";
        QTest::newRow("input not a string") << "{\"input\": 3}" << "apply_patch: argument \"input\" must be a string, got the integer 3";
        QTest::newRow("unknown argument") << "{\"input\": \"x\", \"patch\": \"y\"}"
                                          << "apply_patch: unknown argument \"patch\" (allowed: input)";
    }

    void namesBadArguments() {
        QFETCH(QString, arguments);
        QFETCH(QString, message);
        const auto outcome = run(json::parse(arguments.toStdString()));
        QVERIFY(!outcome.ok);
        QCOMPARE(QString::fromStdString(outcome.output), message);
    }
};

QTEST_GUILESS_MAIN(TestApplyPatchTool)
#include "tst_apply_patch_tool.moc"
