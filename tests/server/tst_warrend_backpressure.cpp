// Backpressure instead of loss: while PostgreSQL takes no events (another session holds the events table
// locked, as a slow or stuck database does), a flooding agent (tests/support/flood_agent.c, in the real
// sandbox) is made to wait in its write once a bounded number of its events wait for the database; warrend
// says so. When the database takes them again, every event is stored exactly once, in order.
#include "app/store/postgres/PgConnection.h"
#include "app/tasks/EventSequencer.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::test;
using nlohmann::json;

namespace {

// Whether the task's sandbox runs: a process of warren-agent whose command line names the task's directories.
// Only the agent's: warrend's own short-lived helpers name the task too (a git of its workspace once the
// agent has ended), and a check that sees them come and go would see the sandbox come back.
bool sandboxOf(const QString& task) {
    for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
        QFile cmdline("/proc/" + pid + "/cmdline");
        if (pid.toInt() <= 0 || !cmdline.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = cmdline.readAll();
        if (line.contains(task.toUtf8()) && line.contains("warren-agent"))
            return true;
    }
    return false;
}

} // namespace

class TestWarrendBackpressure : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        const QString floodAgent = QProcessEnvironment::systemEnvironment().value("WARREN_FLOOD_AGENT");
        if (floodAgent.isEmpty())
            QSKIP("WARREN_FLOOD_AGENT is not set: run through ctest");
        QString error;
        m_server = WarrendServer::create(&error);
        QVERIFY2(m_server, qPrintable(error));
        m_key = m_server->addUser("flooder");
        m_server->setEnvironment("WARREN_AGENT", floodAgent);
        QVERIFY2(m_server->start(&error), qPrintable(error));
        QTemporaryDir workspace;
        QVERIFY(QDir().mkpath(workspace.path() + "/src"));
        const HttpAnswer uploaded = m_server->request("POST", "/v1/uploads", m_key, tarOf(workspace.path()),
                                                      {{"Content-Type", "application/x-tar"}});
        QCOMPARE(uploaded.status, 201);
        m_upload = uploaded.json().value("id", "");
    }

    void aFloodWaitsForTheDatabaseAndLosesNothing() {
        auto& server = m_server;
        const QString& key = m_key;
        auto locker = lockEvents();
        QVERIFY(locker);
        constexpr int kEvents = 3 * static_cast<int>(control::EventSequencer::kPauseAtEvents);
        const QString task = flood(kEvents);
        QVERIFY(!task.isEmpty());

        QVERIFY2(server->waitForOutput("the agent waits until they are stored"),
                 server->serverOutput().constData());
        static const QRegularExpression paused("([0-9]+) events wait for the database; the agent waits");
        const auto match = paused.match(QString::fromUtf8(server->serverOutput()));
        QVERIFY(match.hasMatch());
        QVERIFY2(match.captured(1).toULongLong() <= control::EventSequencer::kPauseAtEvents,
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

    // A task whose agent is done while its events still wait for the database: its end waits for them,
    // the server does not (it answers everyone meanwhile).
    void anEndWaitingForTheDatabaseHoldsUpNobody() {
        auto locker = lockEvents();
        QVERIFY(locker);
        const QString task = flood(10);
        QVERIFY(!task.isEmpty());
        const auto status = [&] {
            return QString::fromStdString(
                m_server->request("GET", "/v1/tasks/" + task, m_key).json().value("status", ""));
        };
        QTRY_COMPARE_WITH_TIMEOUT(status(), QString("running"), 60000); // set once its sandbox is launched
        QTRY_VERIFY_WITH_TIMEOUT(!sandboxOf(task), 60000);             // and now the sandbox is gone
        QCOMPARE(m_server->request("GET", "/v1/server", {}).status, 200);
        QCOMPARE(status(), QString("running"));
        QVERIFY(locker->exec("unlock", "COMMIT"));
        const auto events = m_server->streamEvents(task, m_key, "task_finished");
        QVERIFY(!events.empty());
        QCOMPARE(QString::fromStdString(events.back()["data"].value("reason", "")), QString("finished"));
    }

private:
    // Another session's lock on the events table, as a stuck database: reads go on, no insert does.
    std::optional<control::PgConnection> lockEvents() {
        auto locker = control::PgConnection::open(m_server->databaseUrl().toStdString());
        if (!locker || !locker->exec("lock", "BEGIN") ||
            !locker->exec("lock", "LOCK TABLE events IN EXCLUSIVE MODE"))
            return std::nullopt;
        return std::move(*locker);
    }

    // A task of flood-agent's writing lines events; its id, empty when it was refused.
    QString flood(int lines) {
        const json request = {{"prompt", "flood " + std::to_string(lines)},
                              {"workspace", m_upload},
                              {"script", {{"turns", {{{"content", "x"}}}}}}};
        const HttpAnswer created =
            m_server->request("POST", "/v1/tasks", m_key, QByteArray::fromStdString(request.dump()));
        if (created.status != 201)
            qWarning() << created.status << created.body;
        return QString::fromStdString(created.json().value("id", ""));
    }

    std::unique_ptr<WarrendServer> m_server;
    QString m_key;
    std::string m_upload;
};

QTEST_GUILESS_MAIN(TestWarrendBackpressure)
#include "tst_warrend_backpressure.moc"
