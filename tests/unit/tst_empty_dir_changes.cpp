// Which empty directories a change made or removed (app/snapshots/EmptyDirChanges): git's diff shows none,
// so the review and `warren diff` say them from the two snapshots' lists; a directory that only stopped or
// started being empty is the diff's files, not a change of its own.

#include "app/snapshots/EmptyDirChanges.h"
#include "tests/support/StringLists.h"

#include <QTest>

using warren::test::toQt;
using warren::test::toStd;
using namespace warren::snapshots;

namespace {


} // namespace

class EmptyDirChangesTest : public QObject {
    Q_OBJECT
private slots:
    void changes_data() {
        QTest::addColumn<QStringList>("fromEmpty");
        QTest::addColumn<QStringList>("toEmpty");
        QTest::addColumn<QStringList>("changed");
        QTest::addColumn<QStringList>("expected"); // "+dir" made, "-dir" removed
        QTest::newRow("mkdir -p made/empty")
            << QStringList{} << QStringList{"made/empty"} << QStringList{} << QStringList{"+made/empty"};
        QTest::newRow("rmdir empty/deeper: its parent is empty now, not new")
            << QStringList{"empty/deeper"} << QStringList{"empty"} << QStringList{}
            << QStringList{"-empty/deeper"};
        QTest::newRow("a file written into an empty directory: the diff says it")
            << QStringList{"logs"} << QStringList{} << QStringList{"logs/x.log"} << QStringList{};
        QTest::newRow("the last file removed from a directory: the diff says it")
            << QStringList{} << QStringList{"logs"} << QStringList{"logs/x.log"} << QStringList{};
        QTest::newRow("a file replaced by an empty directory")
            << QStringList{} << QStringList{"cache"} << QStringList{"cache"} << QStringList{"+cache"};
        QTest::newRow("an empty directory replaced by a file")
            << QStringList{"cache"} << QStringList{} << QStringList{"cache"} << QStringList{"-cache"};
        QTest::newRow("one inside another made: the inner one only")
            << QStringList{"a"} << QStringList{"a/b"} << QStringList{} << QStringList{"+a/b"};
        QTest::newRow("a namesake prefix is not inside")
            << QStringList{"src"} << QStringList{"src2"} << QStringList{"src2x/f"}
            << QStringList{"-src", "+src2"};
        QTest::newRow("unchanged") << QStringList{"e"} << QStringList{"e"} << QStringList{"f"}
                                   << QStringList{};
    }
    void changes() {
        QFETCH(QStringList, fromEmpty);
        QFETCH(QStringList, toEmpty);
        QFETCH(QStringList, changed);
        QFETCH(QStringList, expected);
        QStringList got;
        for (const auto& change : emptyDirChanges(toStd(fromEmpty), toStd(toEmpty), toStd(changed)))
            got << (change.added ? "+" : "-") + QString::fromStdString(change.dir);
        QCOMPARE(got, expected);
    }
};

QTEST_GUILESS_MAIN(EmptyDirChangesTest)
#include "tst_empty_dir_changes.moc"
