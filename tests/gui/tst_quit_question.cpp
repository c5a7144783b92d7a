// What quitting says happens to this computer's tasks (ui/windows/QuitQuestion), row by row: what is
// counted, and the words for one task, several, and queued ones.
#include "ui/windows/QuitQuestion.h"

#include <QtTest>

using warren::control::TaskStatus;
using namespace warren::ui;

class TestQuitQuestion : public QObject {
    Q_OBJECT
private slots:
    void countsRunningAndQueuedOnly() {
        const TasksAtQuit tasks = tasksAtQuit({TaskStatus::Running, TaskStatus::Queued, TaskStatus::Running,
                                               TaskStatus::Waiting, TaskStatus::Sleeping, TaskStatus::Paused,
                                               TaskStatus::Succeeded, TaskStatus::Interrupted});
        QCOMPARE(tasks.running, 2);
        QCOMPARE(tasks.queued, 1);
        QVERIFY(!tasksAtQuit({TaskStatus::Waiting, TaskStatus::Failed}).any()); // nothing of theirs runs
    }

    void text_data() {
        QTest::addColumn<int>("running");
        QTest::addColumn<int>("queued");
        QTest::addColumn<QString>("text");
        QTest::newRow("one running")
            << 1 << 0
            << "A task is running on this computer. Quitting stops it now, with its sandbox. When Warren "
               "opens "
               "again it is shown as interrupted, and Resume continues it from its last checkpoint.";
        QTest::newRow("three running")
            << 3 << 0
            << "3 tasks are running on this computer. Quitting stops them now, with their sandboxes. When "
               "Warren "
               "opens again each is shown as interrupted, and Resume continues it from its last checkpoint.";
        QTest::newRow("one queued") << 0 << 1
                                    << "A task waiting for a free slot stays queued and starts when Warren "
                                       "opens again.";
        QTest::newRow("running and queued")
            << 1 << 2
            << "A task is running on this computer. Quitting stops it now, with its sandbox. When Warren "
               "opens "
               "again it is shown as interrupted, and Resume continues it from its last checkpoint. 2 tasks "
               "waiting for a free slot stay queued and start when Warren opens again.";
    }
    void text() {
        QFETCH(int, running);
        QFETCH(int, queued);
        QFETCH(QString, text);
        QCOMPARE(quitQuestionText(TasksAtQuit{running, queued}), text);
    }
};

QTEST_MAIN(TestQuitQuestion)
#include "tst_quit_question.moc"
