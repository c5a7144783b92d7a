// A reply to a task (app/tasks/TaskReply): which messages may be sent, which tasks can take one and what the
// user is told when not, and the message kept beside the task until its agent takes it.

#include "app/tasks/TaskReply.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::control;

class TestTaskReply : public QObject {
    Q_OBJECT

private slots:
    void messages_data() {
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<QString>("error"); // empty: accepted
        QTest::newRow("a sentence") << QByteArray("also update the README") << QString();
        QTest::newRow("lines and unicode") << QByteArray("first\nthen \xC3\xA9t\xC3\xA9") << QString();
        QTest::newRow("at the cap") << QByteArray(static_cast<qsizetype>(kMaxReplyBytes), 'a') << QString();
        QTest::newRow("empty") << QByteArray() << "the reply is empty";
        QTest::newRow("white space only") << QByteArray(" \n\t ") << "the reply is empty";
        QTest::newRow("over the cap") << QByteArray(static_cast<qsizetype>(kMaxReplyBytes) + 1, 'a') << "more than the 262144";
    }
    void messages() {
        QFETCH(QByteArray, message);
        QFETCH(QString, error);
        const Status checked = checkReply(message.toStdString());
        QCOMPARE(bool(checked), error.isEmpty());
        if (!checked) {
            QCOMPARE(checked.error().code, ErrorCode::InvalidArgument);
            QVERIFY2(QString::fromStdString(checked.error().message).contains(error),
                     checked.error().message.c_str());
        }
    }

    void tasks_data() {
        QTest::addColumn<QString>("status");
        QTest::addColumn<bool>("checkpoint");
        QTest::addColumn<QString>("error"); // empty: repliable
        QTest::newRow("succeeded") << QString("succeeded") << true << QString();
        QTest::newRow("failed") << QString("failed") << true << QString();
        QTest::newRow("cancelled") << QString("cancelled") << true << QString();
        QTest::newRow("paused") << QString("paused") << true << QString();
        QTest::newRow("interrupted") << QString("interrupted") << true << QString();
        QTest::newRow("running") << QString("running") << true
                                 << "task t-1 is running; wait for it or cancel it (warren cancel t-1)";
        QTest::newRow("queued") << QString("queued") << true << "task t-1 is queued; wait for it or cancel it";
        QTest::newRow("no checkpoint") << QString("failed") << false
                                       << "task t-1 cannot be continued: its agent left no checkpoint";
        QTest::newRow("the demo, ended") << QString("demo:succeeded") << true
                                         << "task t-1 is the scripted demo: it plays a recorded agent";
        QTest::newRow("the demo, stopped")
            << QString("demo:cancelled") << true << "task t-1 is the scripted demo";
    }
    void tasks() {
        QFETCH(QString, status);
        QFETCH(bool, checkpoint);
        QFETCH(QString, error);
        TaskRecord task;
        task.id = "t-1";
        const bool demo = status.startsWith("demo:");
        if (demo)
            status = status.mid(5);
        task.status = taskStatusFromName(status.toStdString()).value();
        const Status checked = checkRepliable(task, demo, checkpoint);
        QCOMPARE(bool(checked), error.isEmpty());
        if (!checked)
            QVERIFY2(QString::fromStdString(checked.error().message).startsWith(error),
                     checked.error().message.c_str());
    }

    void keptUntilForgotten() {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const DataDir data{root.path().toStdString()};
        QVERIFY(!keptReply(data, "t-1"));
        QVERIFY(keepReply(data, "t-1", "first"));
        QVERIFY(keepReply(data, "t-1", std::string("second\n\0byte", 12))); // a later reply replaces it
        QCOMPARE(keptReply(data, "t-1").value_or(""), std::string("second\n\0byte", 12));
        QVERIFY(!keptReply(data, "t-2"));
        forgetReply(data, "t-1");
        QVERIFY(!keptReply(data, "t-1"));
        forgetReply(data, "t-1"); // nothing kept: nothing to do
    }
};

QTEST_GUILESS_MAIN(TestTaskReply)
#include "tst_task_reply.moc"
