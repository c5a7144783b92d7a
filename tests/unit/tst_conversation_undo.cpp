// What a rewind of the conversation keeps for its undo (app/snapshots/ConversationUndo), on real files: the
// checkpoint as it was, byte for byte, or that there was none; the task's state; whether the files were
// rewound too. A rewind of the files alone keeps nothing; a record that is not one is an error that says
// what to do.

#include "app/snapshots/ConversationUndo.h"
#include "tests/unit/WorkspaceTree.h"

#include <QTemporaryDir>
#include <QTest>

using namespace warren::snapshots;
using namespace warren::test;

class ConversationUndoTest : public QObject {
    Q_OBJECT
private slots:
    void keptAndPutBack() {
        QTemporaryDir dir;
        const fs::path snapshots = fs::path(dir.path().toStdString()) / "snapshots";
        const fs::path checkpoint = fs::path(dir.path().toStdString()) / "state/checkpoint.json";
        writeFile(checkpoint, "{\"step\":4}\n");
        const std::string ref = "refs/warren/undo/0000000002";
        QVERIFY(
            keepForUndo(snapshots, ref, {false, true, false, {{"status", "succeeded"}}}, checkpoint).ok());

        writeFile(checkpoint, "{\"step\":2}\n"); // what the rewind put in its place
        auto kept = keptForUndo(snapshots, ref);
        QVERIFY(kept.ok() && kept->has_value());
        QVERIFY(!(*kept)->files && (*kept)->conversation && (*kept)->hadCheckpoint);
        QCOMPARE((*kept)->taskState.value("status", ""), std::string("succeeded"));
        QVERIFY(restoreKeptCheckpoint(snapshots, ref, **kept, checkpoint).ok());
        QCOMPARE(readFile(checkpoint), std::string("{\"step\":4}\n"));
    }

    void noCheckpointThenNoneAgain() {
        QTemporaryDir dir;
        const fs::path snapshots = fs::path(dir.path().toStdString()) / "snapshots";
        const fs::path checkpoint = fs::path(dir.path().toStdString()) / "state/checkpoint.json";
        fs::create_directories(checkpoint.parent_path());
        const std::string ref = "refs/warren/undo/0000000001";
        QVERIFY(keepForUndo(snapshots, ref, {true, true, false, {}}, checkpoint).ok());
        writeFile(checkpoint, "{\"step\":3}\n");
        auto kept = keptForUndo(snapshots, ref);
        QVERIFY(kept.ok() && kept->has_value() && !(*kept)->hadCheckpoint && (*kept)->files);
        QVERIFY(restoreKeptCheckpoint(snapshots, ref, **kept, checkpoint).ok());
        QVERIFY(!fs::exists(checkpoint));
    }

    void filesAloneKeepNothing() {
        QTemporaryDir dir;
        auto kept = keptForUndo(fs::path(dir.path().toStdString()), "refs/warren/undo/0000000001");
        QVERIFY(kept.ok() && !kept->has_value());
    }

    void aBrokenRecordIsSaid() {
        QTemporaryDir dir;
        const fs::path snapshots = dir.path().toStdString();
        writeFile(snapshots / "undo/0000000001.json", "not json");
        auto kept = keptForUndo(snapshots, "refs/warren/undo/0000000001");
        QVERIFY(!kept.ok());
        QVERIFY2(kept.error().message.find("remove it to undo the files alone") != std::string::npos,
                 kept.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(ConversationUndoTest)
#include "tst_conversation_undo.moc"
