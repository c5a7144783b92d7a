// Review and rewind end to end: `warren run` with the real agent on a scripted model, in the real sandbox,
// changes a user's repository through the shell (rm, mv, rename over, chmod +x, links, binary files, empty
// directories, a file replaced by a directory) and an edit tool; `warren diff` shows the whole change and one
// step's; `warren rewind --to-step N` makes the workspace exactly what it was before step N (the expected
// state is the same commands run on a copy), `--undo` takes that back; the user's .git is byte-identical
// throughout; without --yes and a terminal, nothing changes; with --conversation the task resumes from the
// step and ends as it did.

#include "tests/support/AgentRun.h"
#include "tests/support/WarrenRun.h"
#include "tests/unit/WorkspaceTree.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::test;
using nlohmann::json;

namespace {

const char* kStep1 = "rm README.md && mv src/util.c src/helpers.c && printf 'new main\\n' > tmp && "
                     "mv tmp src/main.c && chmod +x notes.txt && ln -s src/helpers.c helper-link && "
                     "head -c 4096 /dev/urandom > data/blob.bin && rmdir empty/deeper && mkdir -p made/empty";
const char* kStep2 = "rm data/blob.bin && mkdir data/blob.bin && echo inside > data/blob.bin/f && "
                     "rm -r tools && echo file > tools && rm main-link && ln -s notes.txt main-link";

void makeUserRepository(const fs::path& ws) {
    writeFile(ws / "README.md", "# project\n");
    writeFile(ws / "src/main.c", "int main(void) { return 0; }\n");
    writeFile(ws / "src/util.c", "int util;\n");
    writeFile(ws / "tools/build.sh", "#!/bin/sh\nmake\n");
    setExecutable(ws / "tools/build.sh", true);
    writeFile(ws / "data/blob.bin", binaryBytes(9000, 5));
    writeFile(ws / "notes.txt", "notes\n");
    fs::create_symlink("src/main.c", ws / "main-link");
    git(ws, {"init", "-q"});
    git(ws, {"add", "-A"});
    git(ws, {"commit", "-qm", "start"});
    fs::create_directories(ws / "empty/deeper");
}

// The tree after running command in a copy of from (the state a step leaves, computed outside the task).
QStringList afterCommand(const fs::path& from, const fs::path& copy, const char* command) {
    fs::copy(from, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    QProcess shell;
    shell.setWorkingDirectory(QString::fromStdString(copy.string()));
    shell.start("/bin/sh", {"-c", command});
    shell.waitForFinished(60000);
    return snapshot(copy);
}

QString taskId(const QString& dataDir) {
    const auto records = jsonLines(runWarren({"tasks", "--json"}, dataDir).out);
    return records.empty() ? QString() : QString::fromStdString(records.front().value("id", ""));
}

// Binary bytes differ per run of the task (urandom): the expected trees compare everything but that file's
// hash, which the rewinds must still put back exactly (checked against the diff's own record).
QStringList withoutBlob(QStringList tree) {
    for (QString& line : tree)
        if (line.startsWith("data/blob.bin "))
            line = "data/blob.bin (binary)";
    return tree;
}

} // namespace

class TestControlRewind : public QObject {
    Q_OBJECT
private slots:
    void shellChangesReviewedAndRewound();
};

void TestControlRewind::shellChangesReviewedAndRewound() {
    QTemporaryDir data, scratch, dir;
    const fs::path ws = fs::path(dir.path().toStdString()) / "ws";
    fs::create_directories(ws);
    makeUserRepository(ws);
    const QByteArray gitBefore = treeHash(ws / ".git");
    const QStringList initial = snapshot(ws);
    const fs::path scratchRoot = scratch.path().toStdString();
    const QStringList expectedAfter1 = withoutBlob(afterCommand(ws, scratchRoot / "one", kStep1));
    const QStringList expectedAfter2 = afterCommand(scratchRoot / "one", scratchRoot / "two", kStep2);

    const QString script = data.filePath("script.json");
    QVERIFY(writeScript(script, {turn("shell", {{"command", kStep1}}), turn("shell", {{"command", kStep2}}),
                                 turn("write_file", {{"path", "src/added.c"}, {"content", "int added;\n"}}),
                                 turn("finish", {{"summary", "changed things"}})}));
    const QString workspace = QString::fromStdString(ws.string());
    const auto run =
        runWarren({"run", "--provider", "scripted:" + script, "--workspace", workspace, "work"}, data.path());
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QString id = taskId(data.path());
    QVERIFY(!id.isEmpty());
    const QStringList finalTree = snapshot(ws);
    QVERIFY(finalTree.contains("src/added.c - " + sha256Of("int added;\n")));
    QCOMPARE(withoutBlob(finalTree).filter("tools"), expectedAfter2.filter("tools"));

    // The whole change, the shell's included; then step 2's alone.
    const auto whole = runWarren({"diff", id}, data.path());
    QVERIFY2(whole.exitCode == 0, whole.err.constData());
    for (const char* path : {"a/README.md", "b/src/helpers.c", "b/helper-link", "b/src/added.c",
                             "b/data/blob.bin/f", "a/tools/build.sh", "b/tools", "b/notes.txt"})
        QVERIFY2(whole.out.contains(path), path);
    QVERIFY(whole.out.contains("new mode 100755") || whole.out.contains("old mode 100644"));
    const auto step2 = runWarren({"diff", id, "--step", "2"}, data.path());
    QVERIFY2(step2.exitCode == 0, step2.err.constData());
    QVERIFY(step2.out.contains("b/tools") && !step2.out.contains("README.md") &&
            !step2.out.contains("added.c"));

    // Listed, not done: --check, and no --yes without a terminal.
    const auto check = runWarren({"rewind", id, "--to-step", "1", "--check"}, data.path());
    QCOMPARE(check.exitCode, 0);
    QVERIFY2(check.out.contains("restore  README.md") && check.out.contains("delete   src/added.c"),
             check.out.constData());
    QVERIFY(check.out.contains("cannot take back"));
    QCOMPARE(runWarren({"rewind", id, "--to-step", "1"}, data.path()).exitCode, 2);
    QCOMPARE(snapshot(ws), finalTree);

    // Before step 2: what step 1 left.
    const auto to2 = runWarren({"rewind", id, "--to-step", "2", "--yes"}, data.path());
    QVERIFY2(to2.exitCode == 0, to2.err.constData());
    QCOMPARE(withoutBlob(snapshot(ws)), expectedAfter1);
    // Before step 1: as the task found it, the binary file's bytes too.
    const auto to1 = runWarren({"rewind", id, "--to-step", "1", "--yes"}, data.path());
    QVERIFY2(to1.exitCode == 0, to1.err.constData());
    QCOMPARE(snapshot(ws), initial);
    // Undone: back to what step 1 left.
    const auto undo = runWarren({"rewind", id, "--undo", "--yes"}, data.path());
    QVERIFY2(undo.exitCode == 0, undo.err.constData());
    QCOMPARE(withoutBlob(snapshot(ws)), expectedAfter1);
    // To the end again (the snapshot after the last step).
    const auto toEnd = runWarren({"rewind", id, "--to-step", "4", "--yes"}, data.path());
    QVERIFY2(toEnd.exitCode == 0, toEnd.err.constData());
    QCOMPARE(snapshot(ws), finalTree);

    QCOMPARE(treeHash(ws / ".git"), gitBefore);
    QVERIFY(runWarren({"rewind", id, "--to-step", "9", "--yes"}, data.path())
                .err.contains("no snapshot before step 9"));

    // Files and conversation before step 3: the task continues from there, the model (the script) is asked
    // for step 3 again, and the task ends as it did.
    const auto both =
        runWarren({"rewind", id, "--to-step", "3", "--files", "--conversation", "--yes"}, data.path());
    QVERIFY2(both.exitCode == 0, both.err.constData());
    QVERIFY(!fs::exists(ws / "src/added.c"));
    const auto resumed = runWarren({"resume", id}, data.path());
    QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    QCOMPARE(snapshot(ws), finalTree);
    QCOMPARE(treeHash(ws / ".git"), gitBefore);
}

QTEST_GUILESS_MAIN(TestControlRewind)
#include "tst_control_rewind.moc"
