// Review and rewind end to end: `warren run` with the real agent on a scripted model, in the real sandbox,
// changes a user's repository through the shell (rm, mv, rename over, chmod +x, links, binary files, empty
// directories, a file replaced by a directory) and an edit tool; `warren diff` shows the whole change and one
// step's; `warren rewind --to-step N` makes the workspace exactly what it was before step N (the expected
// state is the same commands run on a copy), `--undo` takes that back; the user's .git is byte-identical
// throughout; without --yes and a terminal, nothing changes; with --conversation the task resumes from the
// step and ends as it did. --fork keeps both (the original byte-identical, the fork resumed from the step);
// --undo takes back a rewind of the conversation, alone or with the files.

#include "tests/support/AgentRun.h"
#include "tests/support/WarrenRun.h"
#include "tests/unit/UserRepository.h"

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

QByteArray readBytes(const fs::path& path) {
    return QByteArray::fromStdString(readFile(path));
}

// What a task is to its user: its record's status and its events, as `warren export` writes them.
struct TaskState {
    QByteArray events;
    std::string status;
};
TaskState taskState(const QString& id, const QString& dataDir, const fs::path& exportDir) {
    fs::remove_all(exportDir);
    const auto exported = runWarren({"export", id, QString::fromStdString(exportDir.string())}, dataDir);
    if (exported.exitCode != 0)
        qWarning() << exported.err;
    const json task = json::parse(readFile(exportDir / "task.json"), nullptr, false);
    return {readBytes(exportDir / "events.jsonl"),
            task.is_object() ? task.value("status", std::string()) : std::string()};
}

} // namespace

class TestControlRewind : public QObject {
    Q_OBJECT
private slots:
    void shellChangesReviewedAndRewound();
    void forkedAndConversationUndone();
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
    // The empty directories step 1 made and removed, which git's diff cannot show.
    QVERIFY2(whole.err.contains("empty directories made (+) or removed (-): -empty/deeper/ +made/empty/"),
             whole.err.constData());
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

// Keep both: a fork from before step 3 is a new task whose workspace holds what step 2 left and whose agent
// continues from step 3 (the script is asked for its third turn) and ends as the original did, while the
// original's workspace, .git, events and status stay byte-identical. Then an undo takes back a rewind of the
// conversation, alone and with the files: the agent's checkpoint and the task's status come back too.
void TestControlRewind::forkedAndConversationUndone() {
    QTemporaryDir data, scratch, dir;
    const fs::path root = dir.path().toStdString();
    const fs::path ws = root / "ws";
    fs::create_directories(ws);
    makeUserRepository(ws);
    const fs::path scratchRoot = scratch.path().toStdString();
    afterCommand(ws, scratchRoot / "one", kStep1);
    const QStringList expectedAfter2 = afterCommand(scratchRoot / "one", scratchRoot / "two", kStep2);

    const QString script = data.filePath("script.json");
    QVERIFY(writeScript(script, {turn("shell", {{"command", kStep1}}), turn("shell", {{"command", kStep2}}),
                                 turn("write_file", {{"path", "src/added.c"}, {"content", "int added;\n"}}),
                                 turn("finish", {{"summary", "changed things"}})}));
    const auto run = runWarren({"run", "--provider", "scripted:" + script, "--workspace",
                                QString::fromStdString(ws.string()), "work"},
                               data.path());
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QString id = taskId(data.path());
    QVERIFY(!id.isEmpty());
    const QStringList finalTree = snapshot(ws);
    const QByteArray gitBefore = treeHash(ws / ".git");
    const TaskState before = taskState(id, data.path(), scratchRoot / "export");
    QCOMPARE(before.status, std::string("succeeded"));
    QVERIFY(!before.events.isEmpty());

    // A fork's workspace must be new or empty: a full one is refused and left as it was.
    writeFile(root / "full/keep", "mine\n");
    const auto refused = runWarren({"rewind", id, "--to-step", "3", "--fork", "--workspace",
                                    QString::fromStdString((root / "full").string())},
                                   data.path());
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("is not empty"), refused.err.constData());
    QCOMPARE(snapshot(root / "full"), QStringList{"keep - " + sha256Of("mine\n")});

    // Nor inside the original's workspace, which it would change.
    const auto inside = runWarren({"rewind", id, "--to-step", "3", "--fork", "--workspace",
                                   QString::fromStdString((ws / "forked").string())},
                                  data.path());
    QCOMPARE(inside.exitCode, 1);
    QVERIFY2(inside.err.contains("overlaps the workspace of task"), inside.err.constData());
    QCOMPARE(snapshot(ws), finalTree);

    const fs::path forkWs = root / "fork";
    const auto forked = runWarren(
        {"rewind", id, "--to-step", "3", "--fork", "--workspace", QString::fromStdString(forkWs.string())},
        data.path());
    QVERIFY2(forked.exitCode == 0, forked.err.constData());
    const QString forkId = QString::fromUtf8(forked.out).trimmed();
    QVERIFY2(forkId.startsWith("t-") && forkId != id, forked.out.constData());
    QVERIFY2(forked.err.contains("continues from before step 3"), forked.err.constData());
    // What step 2 left, its empty directories too; no .git (snapshots never hold one).
    QCOMPARE(snapshot(forkWs), expectedAfter2);
    QVERIFY(!fs::exists(forkWs / ".git"));
    const TaskState forkBefore = taskState(forkId, data.path(), scratchRoot / "fork-export");
    QCOMPARE(forkBefore.status, std::string("paused"));
    // Its timeline: the original's up to step 3, then the fork.
    const auto forkEvents = jsonLines(forkBefore.events);
    QVERIFY(forkEvents.size() >= 2);
    QVERIFY(before.events.startsWith(forkBefore.events.left(forkBefore.events.lastIndexOf('\n', -2) + 1)));
    QVERIFY(forkEvents.back().dump().find("forked from task " + id.toStdString()) != std::string::npos);
    for (const auto& event : forkEvents)
        QVERIFY(event.value("step", 0) < 3);
    // Its past is the original's: step 2's change is the same, and it can go back further.
    const auto originalStep2 = runWarren({"diff", id, "--step", "2"}, data.path());
    const auto forkStep2 = runWarren({"diff", forkId, "--step", "2"}, data.path());
    QVERIFY2(forkStep2.exitCode == 0, forkStep2.err.constData());
    QCOMPARE(forkStep2.out, originalStep2.out);
    QVERIFY(forkStep2.out.contains("b/tools"));

    // The fork runs from step 3 to the same end, in its own workspace.
    const auto resumed = runWarren({"resume", forkId}, data.path());
    QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    QCOMPARE(taskState(forkId, data.path(), scratchRoot / "fork-export").status, std::string("succeeded"));
    QStringList expectedFork = expectedAfter2;
    expectedFork << "src/added.c - " + sha256Of("int added;\n");
    expectedFork.sort();
    QCOMPARE(snapshot(forkWs), expectedFork);
    const auto forkBack = runWarren({"rewind", forkId, "--to-step", "1", "--check"}, data.path());
    QVERIFY2(forkBack.exitCode == 0 && forkBack.out.contains("restore  README.md"), forkBack.out.constData());

    // The original: workspace, .git, events and status as they were.
    QCOMPARE(snapshot(ws), finalTree);
    QCOMPARE(treeHash(ws / ".git"), gitBefore);
    const TaskState after = taskState(id, data.path(), scratchRoot / "export");
    QCOMPARE(after.status, before.status);
    QCOMPARE(after.events, before.events);

    // The conversation alone rewound, then undone: the checkpoint and the status come back, the files
    // were never touched.
    const fs::path checkpoint =
        fs::path(data.path().toStdString()) / "tasks" / id.toStdString() / "state" / "checkpoint.json";
    const QByteArray endCheckpoint = readBytes(checkpoint);
    QVERIFY(!endCheckpoint.isEmpty());
    const auto conversation =
        runWarren({"rewind", id, "--to-step", "3", "--conversation", "--yes"}, data.path());
    QVERIFY2(conversation.exitCode == 0, conversation.err.constData());
    QVERIFY(readBytes(checkpoint) != endCheckpoint);
    QCOMPARE(taskState(id, data.path(), scratchRoot / "export").status, std::string("paused"));
    writeFile(ws / "mine.txt", "made by the user since\n");
    const auto check = runWarren({"rewind", id, "--undo", "--check"}, data.path());
    QVERIFY2(check.out.contains("conversation: the conversation goes back") && !check.out.contains("files:"),
             check.out.constData());
    const auto undone = runWarren({"rewind", id, "--undo", "--yes"}, data.path());
    QVERIFY2(undone.exitCode == 0, undone.err.constData());
    QVERIFY2(undone.out.contains("takes the conversation back"), undone.out.constData());
    QCOMPARE(readBytes(checkpoint), endCheckpoint);
    QCOMPARE(taskState(id, data.path(), scratchRoot / "export").status, std::string("succeeded"));
    QVERIFY(fs::exists(ws / "mine.txt"));
    fs::remove(ws / "mine.txt");

    // Files and conversation, then undone: both back.
    const auto both =
        runWarren({"rewind", id, "--to-step", "2", "--files", "--conversation", "--yes"}, data.path());
    QVERIFY2(both.exitCode == 0, both.err.constData());
    QVERIFY(snapshot(ws) != finalTree);
    const auto bothUndone = runWarren({"rewind", id, "--undo", "--yes"}, data.path());
    QVERIFY2(bothUndone.exitCode == 0, bothUndone.err.constData());
    QVERIFY2(bothUndone.out.contains("takes the files and the conversation back"),
             bothUndone.out.constData());
    QCOMPARE(snapshot(ws), finalTree);
    QCOMPARE(readBytes(checkpoint), endCheckpoint);
    QCOMPARE(taskState(id, data.path(), scratchRoot / "export").status, std::string("succeeded"));
    QCOMPARE(treeHash(ws / ".git"), gitBefore);
}

QTEST_GUILESS_MAIN(TestControlRewind)
#include "tst_control_rewind.moc"
