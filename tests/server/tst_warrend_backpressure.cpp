// Backpressure instead of loss: while PostgreSQL takes no events (another session holds the events table
// locked, as a slow or stuck database does), a flooding agent (tests/support/flood_agent.c, in the real
// sandbox) is made to wait in its write once a bounded number of its events wait for the database; warrend
// says so. When the database takes them again, every event is stored exactly once, in order.
#include "app/store/postgres/PgConnection.h"
#include "app/tasks/TaskRunner.h"
#include "tests/server/WarrendServer.h"

#include <QDir>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::test;
using nlohmann::json;

class TestWarrendBackpressure : public QObject {
    Q_OBJECT

private slots:
    void aFloodWaitsForTheDatabaseAndLosesNothing() {
        const QString floodAgent = QProcessEnvironment::systemEnvironment().value("WARREN_FLOOD_AGENT");
        if (floodAgent.isEmpty())
            QSKIP("WARREN_FLOOD_AGENT is not set: run through ctest");
        QString error;
        auto server = WarrendServer::create(&error);
        QVERIFY2(server, qPrintable(error));
        const QString key = server->addUser("flooder");
        server->setEnvironment("WARREN_AGENT", floodAgent);
        QVERIFY2(server->start(&error), qPrintable(error));

        QTemporaryDir workspace;
        QVERIFY(QDir().mkpath(workspace.path() + "/src"));
        const HttpAnswer uploaded = server->request("POST", "/v1/uploads", key, tarOf(workspace.path()),
                                                    {{"Content-Type", "application/x-tar"}});
        QCOMPARE(uploaded.status, 201);

        auto locker = control::PgConnection::open(server->databaseUrl().toStdString());
        QVERIFY2(locker, locker ? "" : locker.error().message.c_str());
        QVERIFY(locker->exec("lock", "BEGIN"));
        QVERIFY(locker->exec("lock", "LOCK TABLE events IN EXCLUSIVE MODE")); // reads go on; no insert does

        constexpr int kEvents = 3 * static_cast<int>(control::TaskRunner::kPauseAtEvents);
        const json request = {{"prompt", "flood " + std::to_string(kEvents)},
                              {"workspace", uploaded.json().value("id", "")},
                              {"script", {{"turns", {{{"content", "x"}}}}}}};
        const QByteArray body = QByteArray::fromStdString(request.dump());
        const HttpAnswer created = server->request("POST", "/v1/tasks", key, body);
        QVERIFY2(created.status == 201, created.body.constData());
        const QString task = QString::fromStdString(created.json().value("id", ""));

        QVERIFY2(server->waitForOutput("the agent waits until they are stored"),
                 server->serverOutput().constData());
        static const QRegularExpression paused("([0-9]+) events wait for the database; the agent waits");
        const auto match = paused.match(QString::fromUtf8(server->serverOutput()));
        QVERIFY(match.hasMatch());
        QVERIFY2(match.captured(1).toULongLong() <= control::TaskRunner::kPauseAtEvents,
                 qPrintable(match.captured(0)));
        QCOMPARE(server->request("GET", "/v1/tasks/" + task + "/events", key).json()["events"].size(),
                 std::size_t{0});

        QVERIFY(locker->exec("unlock", "COMMIT"));
        const auto events = server->streamEvents(task, key, "task_finished", {}, 300000);
        QVERIFY2(!events.empty(), server->serverOutput().constData());
        QCOMPARE(QString::fromStdString(events.back()["data"].value("reason", "")), QString("finished"));
        std::size_t lines = 0;
        for (std::size_t i = 0; i < events.size(); ++i) {
            QCOMPARE(events[i].value("seq", std::size_t{0}), i + 1); // each once, in order
            if (events[i].value("type", "") == "tool_output")
                QCOMPARE(events[i]["data"].value("text", ""), "line " + std::to_string(++lines));
        }
        QCOMPARE(lines, static_cast<std::size_t>(kEvents));
        QVERIFY(server->waitForOutput("the agent goes on"));
    }
};

QTEST_GUILESS_MAIN(TestWarrendBackpressure)
#include "tst_warrend_backpressure.moc"
