// SnapshotMeta: the description in a snapshot's commit message, written and read back; damaged ones
// refused with a message.

#include "app/snapshots/SnapshotMeta.h"

#include <QTest>

using namespace warren::snapshots;

class SnapshotMetaTest : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data() {
        QTest::addColumn<int>("kind");
        QTest::newRow("step") << int(SnapshotMeta::Kind::Step);
        QTest::newRow("end") << int(SnapshotMeta::Kind::End);
        QTest::newRow("undo") << int(SnapshotMeta::Kind::Undo);
        QTest::newRow("present") << int(SnapshotMeta::Kind::Present);
    }
    void roundTrip() {
        QFETCH(int, kind);
        SnapshotMeta meta{SnapshotMeta::Kind(kind), 7,           1700000000123,
                          {"empty", "a/b"},         {"big.iso"}, {"node_modules"}};
        const std::string message = toCommitMessage(meta);
        QVERIFY(message.rfind("warren: ", 0) == 0);
        auto read = fromCommitMessage(message);
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QCOMPARE(*read, meta);
    }
    void titles() {
        QVERIFY(toCommitMessage({SnapshotMeta::Kind::Step, 3, 0, {}, {}, {}})
                    .rfind("warren: before step 3\n", 0) == 0);
        QVERIFY(toCommitMessage({SnapshotMeta::Kind::End, 5, 0, {}, {}, {}})
                    .rfind("warren: after the last step (4)\n", 0) == 0);
    }
    void damaged_data() {
        QTest::addColumn<QString>("message");
        QTest::newRow("no body") << "warren: before step 1\n";
        QTest::newRow("not json") << "t\n\n{nope";
        QTest::newRow("unknown kind")
            << "t\n\n{\"kind\":\"x\",\"step\":1,\"taken_at_ms\":0,\"empty_dirs\":[],"
               "\"skipped_large\":[],\"skipped_dirs\":[]}";
        QTest::newRow("missing key") << "t\n\n{\"kind\":\"step\",\"step\":1}";
        QTest::newRow("wrong type")
            << "t\n\n{\"kind\":\"step\",\"step\":\"1\",\"taken_at_ms\":0,\"empty_dirs\":[],"
               "\"skipped_large\":[],\"skipped_dirs\":[]}";
    }
    void damaged() {
        QFETCH(QString, message);
        auto read = fromCommitMessage(message.toStdString());
        QVERIFY(!read.ok());
        QVERIFY(read.error().message.find("damaged") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(SnapshotMetaTest)
#include "tst_snapshot_meta.moc"
