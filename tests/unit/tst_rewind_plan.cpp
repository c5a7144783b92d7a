// RewindPlan: git's difference from now to the target and both sides' empty directories turned into what a
// rewind does, as rows read the way `warren rewind` lists them.

#include "app/snapshots/RewindPlan.h"
#include "tests/support/StringLists.h"

#include <QTest>

using warren::test::toQt;
using warren::test::toStd;
using namespace warren::snapshots;

namespace {
const std::string kA(40, 'a'), kB(40, 'b'), kZero(40, '0');

// "A path", "D path", "M path", "X path" (mode 644 -> 755), "T path" (file -> link): from now to target.
std::vector<TreeChange> changes(const QStringList& rows) {
    std::vector<TreeChange> out;
    for (const QString& row : rows) {
        const char status = row[0].toLatin1();
        const std::string path = row.mid(2).toStdString();
        switch (status) {
        case 'A':
            out.push_back({0, kModeFile, kZero, kA, 'A', path});
            break;
        case 'D':
            out.push_back({kModeFile, 0, kA, kZero, 'D', path});
            break;
        case 'M':
            out.push_back({kModeFile, kModeFile, kA, kB, 'M', path});
            break;
        case 'X':
            out.push_back({kModeFile, kModeExecutable, kA, kA, 'M', path});
            break;
        case 'T':
            out.push_back({kModeFile, kModeSymlink, kA, kB, 'T', path});
            break;
        }
    }
    return out;
}

} // namespace

class RewindPlanTest : public QObject {
    Q_OBJECT
private slots:
    void plan_data() {
        QTest::addColumn<QStringList>("changes");
        QTest::addColumn<QStringList>("targetPaths");
        QTest::addColumn<QStringList>("nowEmpty");
        QTest::addColumn<QStringList>("targetEmpty");
        QTest::addColumn<QStringList>("only");
        QTest::addColumn<QStringList>("lines");

        QTest::newRow("rm: the file comes back")
            << QStringList{"A src/a.c"} << QStringList{"src/a.c"} << QStringList{} << QStringList{}
            << QStringList{} << QStringList{"restore  src/a.c"};
        QTest::newRow("a new file goes, and its new directory")
            << QStringList{"D out/new.txt"} << QStringList{"a"} << QStringList{} << QStringList{}
            << QStringList{} << QStringList{"delete   out/new.txt", "rmdir    out/ (when empty)"};
        QTest::newRow("a new file in a directory the target has: the directory stays")
            << QStringList{"D src/new.c"} << QStringList{"src/a.c"} << QStringList{} << QStringList{}
            << QStringList{} << QStringList{"delete   src/new.c"};
        QTest::newRow("mv: both names")
            << QStringList{"A old", "D new"} << QStringList{"old"} << QStringList{} << QStringList{}
            << QStringList{} << QStringList{"delete   new", "restore  old"};
        QTest::newRow("rename over: content")
            << QStringList{"M target.txt"} << QStringList{"target.txt"} << QStringList{} << QStringList{}
            << QStringList{} << QStringList{"rewrite  target.txt"};
        QTest::newRow("the executable bit as the target had it")
            << QStringList{"X run.sh"} << QStringList{"run.sh"} << QStringList{} << QStringList{}
            << QStringList{} << QStringList{"chmod    run.sh (+x)"};
        QTest::newRow("a link where a file was")
            << QStringList{"T l"} << QStringList{"l"} << QStringList{} << QStringList{} << QStringList{}
            << QStringList{"replace  l (a symbolic link again)"};
        QTest::newRow("a file replaced by a directory")
            << QStringList{"A x", "D x/f"} << QStringList{"x"} << QStringList{} << QStringList{}
            << QStringList{} << QStringList{"restore  x", "delete   x/f", "rmdir    x/ (when empty)"};
        QTest::newRow("a directory replaced by a file")
            << QStringList{"D x", "A x/f"} << QStringList{"x/f"} << QStringList{} << QStringList{}
            << QStringList{} << QStringList{"delete   x", "restore  x/f"};
        QTest::newRow("empty directories: made since go, removed since come back")
            << QStringList{} << QStringList{"a"} << QStringList{"new/empty"} << QStringList{"old/deep/er"}
            << QStringList{}
            << QStringList{"rmdir    new/empty/ (when empty)", "rmdir    new/ (when empty)",
                           "mkdir    old/deep/er/"};
        QTest::newRow("an empty directory the target keeps stays")
            << QStringList{"D logs/x.log"} << QStringList{} << QStringList{} << QStringList{"logs"}
            << QStringList{} << QStringList{"delete   logs/x.log", "mkdir    logs/"};
        QTest::newRow("narrowed to one file")
            << QStringList{"A a", "D b", "M c"} << QStringList{"a", "c"} << QStringList{} << QStringList{}
            << QStringList{"c"} << QStringList{"rewrite  c"};
        QTest::newRow("narrowed to a directory, not its namesake prefix")
            << QStringList{"M src/a", "M src2/b"} << QStringList{"src/a", "src2/b"} << QStringList{}
            << QStringList{} << QStringList{"src"} << QStringList{"rewrite  src/a"};
        QTest::newRow("narrowed to an empty directory named as the review lists it, dir/")
            << QStringList{"M a"} << QStringList{"a"} << QStringList{"new/empty"} << QStringList{"old/empty"}
            << QStringList{"new/empty/"} << QStringList{"rmdir    new/empty/ (when empty)"};
        QTest::newRow("nothing") << QStringList{} << QStringList{"a"} << QStringList{"e"} << QStringList{"e"}
                                 << QStringList{} << QStringList{};
    }
    void plan() {
        QFETCH(QStringList, changes);
        QFETCH(QStringList, targetPaths);
        QFETCH(QStringList, nowEmpty);
        QFETCH(QStringList, targetEmpty);
        QFETCH(QStringList, only);
        QFETCH(QStringList, lines);
        const RewindPlan plan = planRewind(::changes(changes), toStd(targetPaths), toStd(nowEmpty),
                                           toStd(targetEmpty), toStd(only));
        QStringList got;
        for (const auto& line : describePlan(plan))
            got << QString::fromStdString(line);
        QCOMPARE(got, lines);
        QCOMPARE(plan.empty(), lines.isEmpty());
    }

    void deletionsComeBeforeWrites() {
        const RewindPlan plan =
            planRewind(::changes({"D x", "A x/f", "T l", "M m"}), {"x/f", "l", "m"}, {}, {});
        QCOMPARE(plan.deletions(), (std::vector<std::string>{"l", "x"}));
        QCOMPARE(plan.writes(), (std::vector<std::string>{"l", "m", "x/f"}));
    }
};

QTEST_APPLESS_MAIN(RewindPlanTest)
#include "tst_rewind_plan.moc"
