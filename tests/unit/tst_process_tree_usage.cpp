// What a process tree uses (ProcessTreeUsage): /proc/PID/stat lines read whatever the command's name holds,
// and a tree counts its children.

#include "agent_core/process/ProcessTreeUsage.h"
#include "common/FileText.h"

#include <QProcess>
#include <QtTest>
#include <unistd.h>

using namespace warren;
using namespace warren::agent;

class TestProcessTreeUsage : public QObject {
    Q_OBJECT

private slots:
    void parsesStatLines_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<bool>("parsed");
        QTest::addColumn<int>("pid");
        QTest::addColumn<int>("ppid");
        QTest::addColumn<qulonglong>("ticks");
        QTest::addColumn<qulonglong>("rss");
        const QString tail = " 0 0 0 0 0 0 0 0 0 11 22 33 44 20 0 3 0 100 4096 77 18446744073709551615 1 2";
        QTest::newRow("plain") << "42 (bash) S 7" + tail << true << 42 << 7 << 110ull << 77ull;
        // A name is the process's own to choose: spaces, parentheses, a fake field list.
        QTest::newRow("a name with ') ('")
            << "42 (a) (S 1 2 3) S 7" + tail << true << 42 << 7 << 110ull << 77ull;
        QTest::newRow("a name with spaces")
            << "42 (Web Content) R 1" + tail << true << 42 << 1 << 110ull << 77ull;
        QTest::newRow("cut short") << "42 (bash) S 7 0 0" << false << 0 << 0 << 0ull << 0ull;
        QTest::newRow("no name") << "42 bash S 7" + tail << false << 0 << 0 << 0ull << 0ull;
        QTest::newRow("empty") << "" << false << 0 << 0 << 0ull << 0ull;
    }
    void parsesStatLines() {
        QFETCH(QString, line);
        QFETCH(bool, parsed);
        QFETCH(int, pid);
        QFETCH(int, ppid);
        QFETCH(qulonglong, ticks);
        QFETCH(qulonglong, rss);
        const auto stat = parseProcStat(line.toStdString());
        QCOMPARE(stat.has_value(), parsed);
        if (!stat)
            return;
        QCOMPARE(int(stat->pid), pid);
        QCOMPARE(int(stat->ppid), ppid);
        QCOMPARE(qulonglong(stat->cpuTicks), ticks);
        QCOMPARE(qulonglong(stat->rssPages), rss);
    }

    // The kernel's own line for this process reads, and a tree counts a child beside itself.
    void readsThisProcessAndItsChild() {
        const auto self = readFileText("/proc/self/stat");
        QVERIFY(self);
        const auto stat = parseProcStat(*self);
        QVERIFY(stat);
        QCOMPARE(stat->pid, ::getpid());
        QCOMPARE(stat->ppid, ::getppid());
        QVERIFY(stat->rssPages > 0);

        const auto alone = processTreeUsage(::getpid());
        QVERIFY(alone.rssBytes > 0 && alone.processes >= 1);
        QProcess child;
        child.start("sleep", {"30"});
        QVERIFY(child.waitForStarted());
        const auto childAlone = processTreeUsage(static_cast<pid_t>(child.processId()));
        QCOMPARE(qulonglong(childAlone.processes), 1ull);
        QCOMPARE(qulonglong(processTreeUsage(::getpid()).processes), qulonglong(alone.processes + 1));
        child.kill();
        child.waitForFinished();
        QCOMPARE(qulonglong(processTreeUsage(999999999).processes), 0ull); // no such process: nothing
    }
};

QTEST_GUILESS_MAIN(TestProcessTreeUsage)
#include "tst_process_tree_usage.moc"
