// How a run ends (app/tasks/RunEnding): from the agent's task_finished, the control plane's stop, the agent's
// refusal of the task and the sandbox's exit to the task's status, finish reason and error.

#include "app/tasks/RunEnding.h"

#include <QtTest>

using namespace warren;
using namespace warren::control;

using StopCause = RunEnding::StopCause;
Q_DECLARE_METATYPE(StopCause)
Q_DECLARE_METATYPE(TaskStatus)

class TestRunEnding : public QObject {
    Q_OBJECT

private slots:
    void ending_data() {
        QTest::addColumn<QString>("finished"); // the agent's task_finished reason; empty: none sent
        QTest::addColumn<StopCause>("stop");
        QTest::addColumn<QString>("refused"); // the agent's answer to task.start; empty: it took the task
        QTest::addColumn<int>("signal");      // the agent's exit: killed by this signal; 0: exited with 0
        QTest::addColumn<TaskStatus>("status");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QString>("error"); // a part of it; empty: no error
        const auto none = StopCause::None;
        QTest::newRow("finished") << "finished" << none << "" << 0 << TaskStatus::Succeeded << "finished" << "";
        QTest::newRow("failed, its summary the error")
            << "failed" << none << "" << 0 << TaskStatus::Failed << "failed" << "the tests fail";
        QTest::newRow("guard") << "guard" << none << "" << 0 << TaskStatus::Failed << "guard" << "the tests fail";
        QTest::newRow("waiting for the reply") << "waiting" << none << "" << 0 << TaskStatus::Waiting << "waiting" << "";
        QTest::newRow("paused as asked") << "paused" << StopCause::Pause << "" << 0 << TaskStatus::Paused << "paused" << "";
        QTest::newRow("asleep as asked") << "paused" << StopCause::Sleep << "" << 0 << TaskStatus::Sleeping << "sleeping" << "";
        QTest::newRow("finished as it was put to sleep")
            << "finished" << StopCause::Sleep << "" << 0 << TaskStatus::Succeeded << "finished" << "";
        QTest::newRow("put to sleep, killed without a word")
            << "" << StopCause::Sleep << "" << 9 << TaskStatus::Interrupted << "interrupted" << "killed by signal 9";
        QTest::newRow("cancelled as asked")
            << "cancelled" << StopCause::User << "" << 0 << TaskStatus::Cancelled << "cancelled" << "";
        QTest::newRow("finished past the timeout")
            << "finished" << StopCause::Timeout << "" << 0 << TaskStatus::Failed << "timeout" << "raise it";
        QTest::newRow("finished past the budget")
            << "finished" << StopCause::Budget << "" << 0 << TaskStatus::Failed << "budget" << "raise it";
        QTest::newRow("stopped by the user, no word")
            << "" << StopCause::User << "" << 15 << TaskStatus::Cancelled << "cancelled" << "";
        QTest::newRow("paused, no word") << "" << StopCause::Pause << "" << 15 << TaskStatus::Paused << "paused" << "";
        QTest::newRow("timeout, no word")
            << "" << StopCause::Timeout << "" << 9 << TaskStatus::Failed << "timeout" << "raise it";
        QTest::newRow("budget, no word") << "" << StopCause::Budget << "" << 9 << TaskStatus::Failed << "budget" << "raise it";
        QTest::newRow("refused the task") << "" << none << "no such preset" << 0 << TaskStatus::Failed << "refused"
                                          << "the agent refused the task: no such preset";
        QTest::newRow("exited without a word") << "" << none << "" << 0 << TaskStatus::Interrupted << "interrupted"
                                               << "the agent exited with status 0 without finishing the task";
        QTest::newRow("killed") << "" << none << "" << 9 << TaskStatus::Interrupted << "interrupted"
                                << "the agent was killed by signal 9 without finishing the task";
    }
    void ending() {
        QFETCH(QString, finished);
        QFETCH(StopCause, stop);
        QFETCH(QString, refused);
        QFETCH(int, signal);
        QFETCH(TaskStatus, status);
        QFETCH(QString, reason);
        QFETCH(QString, error);
        RunEnding ending;
        if (stop != StopCause::None)
            ending.stopped(stop, "the limit was reached; raise it");
        if (!refused.isEmpty())
            ending.agentRefused(refused.toStdString());
        if (!finished.isEmpty())
            ending.agentFinished(finished.toStdString(), "the tests fail");
        sandbox::SandboxExit exit;
        if (signal != 0) {
            exit.reason = sandbox::SandboxExit::Reason::Signaled;
            exit.exitCode = 128 + signal;
        }
        const RunEnding::Ending got = ending.after(exit, "", "t-000000000001");
        QCOMPARE(got.status, status);
        QCOMPARE(QString::fromStdString(got.reason), reason);
        if (error.isEmpty())
            QVERIFY2(got.error.empty(), got.error.c_str());
        else
            QVERIFY2(QString::fromStdString(got.error).contains(error), got.error.c_str());
    }

    // The first stop stands: a pause asked after the timeout does not turn a failure into a pause.
    void firstStopStands() {
        RunEnding ending;
        ending.stopped(StopCause::Timeout, "the task ran longer than its timeout");
        ending.stopped(StopCause::Pause, "paused by the user");
        QCOMPARE(ending.stopCause(), StopCause::Timeout);
        QCOMPARE(ending.after({}, "", "t-000000000001").reason, std::string("timeout"));
    }

    // An interrupted run says how to continue it, after what the agent said on stderr.
    void interruptedSaysHowToResume() {
        const auto got = RunEnding().after({}, "\nThe agent said:\nout of memory", "t-000000000001");
        QVERIFY2(got.error.find("\nThe agent said:\nout of memory\n`warren resume t-000000000001`") != std::string::npos,
                 got.error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestRunEnding)
#include "tst_run_ending.moc"
