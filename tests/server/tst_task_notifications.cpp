// TaskNotifications against a real PostgreSQL: what a PgStore on one connection changes (a task's row, its
// events) is heard on the listener's own connection as the task's id, once per task and statement, and
// nothing for a batch that was refused; after the database restarts it listens again by itself and says
// that anything may have changed meanwhile.

#include "app/store/postgres/PgStore.h"
#include "server/replicas/TaskNotifications.h"
#include "tests/support/PostgresServer.h"
#include "tests/support/StoreContract.h"

#include <QSignalSpy>
#include <QtTest>

using namespace warren;
using namespace warren::control;
using server::TaskNotifications;

namespace {

constexpr int kHeardMs = 30000; // generous: a loaded CI machine

// The task ids heard, in order.
std::vector<std::string> idsHeard(const QSignalSpy& heard) {
    std::vector<std::string> ids;
    for (const auto& arguments : heard)
        ids.push_back(arguments.at(0).value<std::string>());
    return ids;
}

} // namespace

class TestTaskNotifications : public QObject {
    Q_OBJECT

    std::unique_ptr<test::PostgresServer> m_server;
    std::unique_ptr<PgStore> m_store;

    std::string url() const { return m_server->url().toStdString(); }

    // A listener that listens already: what is changed from now on is heard.
    std::unique_ptr<TaskNotifications> listening() {
        auto listener = std::make_unique<TaskNotifications>(url());
        QSignalSpy ready(listener.get(), &TaskNotifications::anythingMayHaveChanged);
        if (!ready.wait(kHeardMs))
            qWarning("the listener did not listen");
        return listener;
    }

private slots:
    void initTestCase() {
        qRegisterMetaType<std::string>();
        QString error;
        m_server = test::PostgresServer::start(&error);
        QVERIFY2(m_server, qPrintable(error));
        auto store = PgStore::open(url());
        QVERIFY2(store, store ? "" : store.error().message.c_str());
        m_store = std::move(store).value();
    }

    // Notifications on one connection come in commit order: once the last change is heard, every one before
    // it has been, so "heard once" and "not heard" need no waiting for silence.
    void eventsAndRowsAreHeardOncePerTaskAndStatement() {
        auto listener = listening();
        QVERIFY(listener->isListening());
        QSignalSpy heard(listener.get(), &TaskNotifications::taskChanged);
        QVERIFY(m_store->insertTask(test::sampleTask("t-events", "2025-01-01T00:00:00.000Z")));
        QVERIFY(m_store->appendEvents({test::sampleEvent("t-events", 1), test::sampleEvent("t-events", 2),
                                       test::sampleEvent("t-events", 3)}));
        // Refused as a whole (seq 3 is stored): nothing written, no one told.
        QVERIFY(!m_store->appendEvents({test::sampleEvent("t-events", 3), test::sampleEvent("t-events", 4)}));
        TaskRecord task = test::sampleTask("t-events", "2025-01-01T00:00:00.000Z");
        task.status = TaskStatus::Succeeded;
        QVERIFY(m_store->updateTask(task));
        // An update of no task changes nothing and tells no one.
        QCOMPARE(m_store->updateTask(test::sampleTask("t-none", "2025-01-01T00:00:00.000Z")).error().code,
                 ErrorCode::NotFound);
        QVERIFY(m_store->insertTask(test::sampleTask("t-last", "2025-01-01T00:00:00.000Z")));
        QTRY_VERIFY_WITH_TIMEOUT(!heard.isEmpty() && idsHeard(heard).back() == "t-last", kHeardMs);
        // The insert, the batch of three, the update; then the last.
        QCOMPARE(idsHeard(heard), (std::vector<std::string>{"t-events", "t-events", "t-events", "t-last"}));
    }

    // A restart cuts the listener's connection: it connects again by itself, and says anything may have
    // changed (what happened while it was away was not heard); what changes after is heard again.
    void listensAgainAfterTheDatabaseRestarts() {
        auto listener = listening();
        QSignalSpy again(listener.get(), &TaskNotifications::anythingMayHaveChanged);
        QSignalSpy logged(listener.get(), &TaskNotifications::logLine);
        QSignalSpy heard(listener.get(), &TaskNotifications::taskChanged);
        QString error;
        QVERIFY2(m_server->restart(&error), qPrintable(error));
        QVERIFY(again.wait(kHeardMs));
        QVERIFY(listener->isListening());
        QCOMPARE(logged.size(), 2); // lost, and listening again
        QVERIFY2(logged.at(1).at(0).toString().contains("again"), qPrintable(logged.at(1).at(0).toString()));
        QVERIFY(m_store->insertTask(test::sampleTask("t-after", "2025-01-01T00:00:00.000Z")));
        QTRY_VERIFY_WITH_TIMEOUT(!heard.isEmpty(), kHeardMs);
        QCOMPARE(idsHeard(heard), std::vector<std::string>{"t-after"});
    }
};

QTEST_GUILESS_MAIN(TestTaskNotifications)
#include "tst_task_notifications.moc"
