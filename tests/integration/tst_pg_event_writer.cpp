// EventWriter into PgStore while PostgreSQL goes away: a flood of events with the server restarted in the
// middle, and a server stopped for a while, lose nothing and write nothing twice: afterwards every seq is
// stored exactly once, dense, and the outage was reported while the writer retried.

#include "app/store/EventWriter.h"
#include "app/store/OpenStore.h"
#include "app/store/postgres/PgStore.h"
#include "tests/support/PostgresServer.h"
#include "tests/support/StoreContract.h"

#include <QtTest>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace warren;
using namespace warren::control;

namespace {

// onError's messages, from the writer thread; a test can wait for the first one.
struct Reports {
    std::mutex mutex;
    std::condition_variable arrived;
    std::vector<std::string> messages;
    std::function<void(std::string)> callback() {
        return [this](std::string message) {
            {
                const std::lock_guard lock(mutex);
                messages.push_back(std::move(message));
            }
            arrived.notify_all();
        };
    }
    // A guard against a writer that never reports, not a measure: the report comes within a second.
    bool waitForOne() {
        std::unique_lock lock(mutex);
        return arrived.wait_for(lock, std::chrono::minutes(2), [&] { return !messages.empty(); });
    }
    std::vector<std::string> taken() {
        const std::lock_guard lock(mutex);
        return messages;
    }
};

} // namespace

class TestPgEventWriter : public QObject {
    Q_OBJECT

    std::unique_ptr<test::PostgresServer> m_server;
    int m_round = 0;
    std::string m_task;

    std::string url() const { return m_server->url().toStdString(); }

    // Every seq of the task from 1 to count, once each, in order.
    void checkDense(std::uint64_t count) {
        auto store = openStore(url());
        QVERIFY2(store, store ? "" : store.error().message.c_str());
        auto events = (*store)->events(m_task, 0, UINT64_MAX);
        QVERIFY2(events, events ? "" : events.error().message.c_str());
        QCOMPARE(events->size(), std::size_t(count));
        for (std::uint64_t i = 0; i < count; ++i)
            QCOMPARE(events->at(i).seq, i + 1);
    }

private slots:
    void initTestCase() {
        QString error;
        m_server = test::PostgresServer::start(&error);
        QVERIFY2(m_server, qPrintable(error));
    }

    void init() {
        m_task = "t-writer-" + std::to_string(++m_round);
        auto store = openStore(url());
        QVERIFY2(store, store ? "" : store.error().message.c_str());
        QVERIFY((*store)->insertTask(test::sampleTask(m_task, "2026-01-01T00:00:00.000Z")));
    }

    // The restart lands between two halves (the second half's first write meets the dead connection, every
    // time) and, for the first half, wherever the writer happens to be: mid-batch, mid-commit or idle.
    void aFloodSurvivesARestartInTheMiddle() {
        constexpr std::uint64_t kEvents = 200000;
        Reports reports;
        auto writer = EventWriter::open(storeOpener(url()), reports.callback());
        QVERIFY2(writer, writer ? "" : writer.error().message.c_str());
        std::thread producer([&] {
            for (std::uint64_t seq = 1; seq <= kEvents / 2; ++seq)
                (*writer)->append(test::sampleEvent(m_task, seq));
        });
        QString error;
        QVERIFY2(m_server->restart(&error), qPrintable(error));
        producer.join();
        for (std::uint64_t seq = kEvents / 2 + 1; seq <= kEvents; ++seq)
            (*writer)->append(test::sampleEvent(m_task, seq));
        (*writer)->flush();
        QCOMPARE((*writer)->written(), kEvents);
        checkDense(kEvents);
        const auto messages = reports.taken();
        QVERIFY(!messages.empty());
        QVERIFY2(messages.front().find("keeping them and retrying") != std::string::npos,
                 messages.front().c_str());
        for (const auto& message : messages)
            QVERIFY2(message.find("dropped") == std::string::npos, message.c_str());
    }

    // Down for a while: the writer reports it, keeps what it is given, and stores it all once it is back.
    void eventsWaitForAServerThatIsDown() {
        Reports reports;
        auto writer = EventWriter::open(storeOpener(url()), reports.callback());
        QVERIFY(writer);
        QString error;
        QVERIFY2(m_server->stop(&error), qPrintable(error));
        for (std::uint64_t seq = 1; seq <= 1000; ++seq)
            (*writer)->append(test::sampleEvent(m_task, seq));
        QVERIFY(reports.waitForOne());
        QVERIFY2(reports.taken().front().find("PostgreSQL") != std::string::npos,
                 reports.taken().front().c_str());
        QCOMPARE((*writer)->written(), std::uint64_t(0));
        QVERIFY2(m_server->restart(&error), qPrintable(error)); // starts it again
        for (std::uint64_t seq = 1001; seq <= 2000; ++seq)
            (*writer)->append(test::sampleEvent(m_task, seq));
        (*writer)->flush();
        QCOMPARE((*writer)->written(), std::uint64_t(2000));
        checkDense(2000);
    }

    // Shutting down while the server is down does not hang: a few last attempts, then what is left is
    // reported as dropped.
    void destroyingTheWriterDuringAnOutageEnds() {
        Reports reports;
        {
            auto writer = EventWriter::open(storeOpener(url()), reports.callback());
            QVERIFY(writer);
            QString error;
            QVERIFY2(m_server->stop(&error), qPrintable(error));
            for (std::uint64_t seq = 1; seq <= 10; ++seq)
                (*writer)->append(test::sampleEvent(m_task, seq));
            QVERIFY(reports.waitForOne());
        }
        const auto messages = reports.taken();
        QVERIFY2(messages.back().find("still unreachable when the writer stopped; dropped") !=
                     std::string::npos,
                 messages.back().c_str());
        QString error;
        QVERIFY2(m_server->restart(&error), qPrintable(error));
        checkDense(0);
    }

    // A refused batch is still a refusal, not an outage: its good rows are stored, the repeated one reported.
    void aRepeatedSeqIsNotRetriedForever() {
        Reports reports;
        auto writer = EventWriter::open(storeOpener(url()), reports.callback());
        QVERIFY(writer);
        (*writer)->append(test::sampleEvent(m_task, 1));
        (*writer)->flush();
        (*writer)->append(std::vector<EventRow>{test::sampleEvent(m_task, 2), test::sampleEvent(m_task, 1),
                                                test::sampleEvent(m_task, 3)});
        (*writer)->flush();
        QCOMPARE((*writer)->written(), std::uint64_t(3));
        checkDense(3);
        const auto messages = reports.taken();
        QCOMPARE(messages.size(), std::size_t(1));
        QVERIFY2(messages.front().find("refused and dropped") != std::string::npos, messages.front().c_str());
    }
};

QTEST_GUILESS_MAIN(TestPgEventWriter)
#include "tst_pg_event_writer.moc"
