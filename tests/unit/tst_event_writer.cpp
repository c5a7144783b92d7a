// EventWriter: events appended from any thread reach the database all and in order, flush() is a barrier,
// readers on their own connections see committed events while the writer works (WAL), a batch the
// database refuses is reported, costing only its offending rows, and its owner hears of events only once
// they are committed.

#include "app/store/EventWriter.h"
#include "app/store/sqlite/SqliteStore.h"

#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <chrono>
#include <mutex>
#include <sqlite3.h>
#include <thread>

using namespace warren;
using namespace warren::control;

namespace {

EventRow eventRow(const std::string& taskId, std::uint64_t seq) {
    EventRow row;
    row.taskId = taskId;
    row.seq = seq;
    row.ts = "2026-01-02T03:04:05.006Z";
    row.type = "tool_output";
    row.step = seq / 100;
    row.tool = "shell";
    row.body = "{\"seq\":" + std::to_string(seq) + ",\"data\":{\"text\":\"line of output\"}}";
    return row;
}

TaskRecord task(const std::string& id) {
    TaskRecord record;
    record.id = id;
    record.prompt = "flood";
    record.workspace = "/tmp";
    record.spec = "{}";
    record.createdAt = "2026-01-01T00:00:00.000Z";
    return record;
}

// Collects onError's messages, which arrive on the writer thread.
struct Errors {
    std::mutex mutex;
    std::vector<std::string> messages;
    std::function<void(std::string)> callback() {
        return [this](std::string message) {
            const std::lock_guard lock(mutex);
            messages.push_back(std::move(message));
        };
    }
    std::vector<std::string> taken() {
        const std::lock_guard lock(mutex);
        return messages;
    }
};

} // namespace

class TestEventWriter : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_path;
    int m_round = 0;

    std::unique_ptr<Store> openStore() { return openSqlite(); }
    // The implementation itself, for making its writes fail.
    std::unique_ptr<SqliteStore> openSqlite() {
        auto store = SqliteStore::open(m_path);
        if (!store)
            qFatal("cannot open the test database: %s", store.error().message.c_str());
        return std::move(store).value();
    }
    StoreOpener opener() const {
        return [path = m_path] {
            return openSqliteStore(path);
        };
    }

private slots:
    void init() {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath("warren-" + QString::number(++m_round) + ".db").toStdString();
        auto store = openStore();
        QVERIFY(store->insertTask(task("t-flood")));
        QVERIFY(store->insertTask(task("t-other")));
    }

    void manyEventsFromAnotherThreadArriveAllInOrder() {
        constexpr std::uint64_t kCount = 200'000;
        Errors errors;
        auto writer = EventWriter::open(opener(), errors.callback());
        QVERIFY2(writer, writer ? "" : writer.error().message.c_str());
        std::thread producer([&] {
            // Single rows and small runs, interleaved with another task, as a busy agent's stdout gives them.
            std::uint64_t other = 0;
            for (std::uint64_t seq = 1; seq <= kCount;) {
                if (seq % 7 == 0) {
                    std::vector<EventRow> run;
                    for (int i = 0; i < 5 && seq <= kCount; ++i)
                        run.push_back(eventRow("t-flood", seq++));
                    (*writer)->append(std::move(run));
                } else {
                    (*writer)->append(eventRow("t-flood", seq++));
                }
                if (seq % 1000 == 0)
                    (*writer)->append(eventRow("t-other", ++other));
            }
        });
        producer.join();
        (*writer)->flush();
        QVERIFY(errors.taken().empty());

        auto reader = openStore();
        auto events = reader->events("t-flood");
        QVERIFY(events);
        QCOMPARE(events->size(), std::size_t(kCount));
        for (std::uint64_t i = 0; i < kCount; ++i) {
            if (events->at(i).seq != i + 1)
                QFAIL(qPrintable(QString("event %1 has seq %2").arg(i).arg(events->at(i).seq)));
        }
        QCOMPARE(events->back().body, eventRow("t-flood", kCount).body);
        auto others = reader->lastSeq("t-other");
        QVERIFY(others);
        QCOMPARE((*writer)->written(), kCount + *others);
    }

    void flushIsABarrier() {
        auto writer = EventWriter::open(opener());
        QVERIFY(writer);
        auto reader = openStore();
        std::uint64_t seq = 0;
        for (std::uint64_t round = 1; round <= 20; ++round) {
            std::vector<EventRow> rows;
            for (std::uint64_t i = 0; i < round * 397; ++i)
                rows.push_back(eventRow("t-flood", ++seq));
            (*writer)->append(std::move(rows));
            (*writer)->flush();
            // Everything appended before flush() is committed and visible to another connection.
            auto last = reader->lastSeq("t-flood");
            QVERIFY(last);
            QCOMPARE(*last, seq);
            QCOMPARE((*writer)->written(), seq);
        }
        (*writer)->flush(); // nothing pending: returns at once
        QCOMPARE((*writer)->written(), seq);
    }

    void destroyingTheWriterStoresWhatIsQueued() {
        {
            auto writer = EventWriter::open(opener());
            QVERIFY(writer);
            for (std::uint64_t seq = 1; seq <= 10'000; ++seq)
                (*writer)->append(eventRow("t-flood", seq));
        }
        auto reader = openStore();
        auto last = reader->lastSeq("t-flood");
        QVERIFY(last);
        QCOMPARE(*last, std::uint64_t(10'000));
    }

    void readersSeeCommittedEventsWhileTheWriterRuns() {
        constexpr std::uint64_t kCount = 100'000;
        auto writer = EventWriter::open(opener());
        QVERIFY(writer);
        std::atomic<bool> producing = true;
        std::thread producer([&] {
            for (std::uint64_t seq = 1; seq <= kCount; ++seq)
                (*writer)->append(eventRow("t-flood", seq));
            producing = false;
        });
        // The reader never waits for the writer's transactions and never sees a partial or reordered log.
        auto reader = openStore();
        std::uint64_t previous = 0;
        int reads = 0;
        while (producing || previous < kCount) {
            if (!producing)
                (*writer)->flush();
            auto last = reader->lastSeq("t-flood");
            QVERIFY2(last, last ? "" : last.error().message.c_str());
            QVERIFY(*last >= previous);
            auto tail = reader->events("t-flood", previous);
            QVERIFY2(tail, tail ? "" : tail.error().message.c_str());
            for (const auto& row : *tail)
                QCOMPARE(row.seq, ++previous);
            ++reads;
        }
        producer.join();
        QCOMPARE(previous, kCount);
        QVERIFY(reads > 0);
    }

    void aRefusedBatchIsReportedAndLosesOnlyItsBadRows() {
        Errors errors;
        auto writer = EventWriter::open(opener(), errors.callback());
        QVERIFY(writer);
        (*writer)->append(std::vector<EventRow>{eventRow("t-flood", 1), eventRow("t-flood", 2)});
        (*writer)->flush();
        QVERIFY(errors.taken().empty());

        // One batch (appended at once, so written together): a repeated seq and an unknown task among good
        // rows.
        (*writer)->append(std::vector<EventRow>{eventRow("t-flood", 3), eventRow("t-flood", 2),
                                                eventRow("t-ghost", 1), eventRow("t-flood", 4)});
        (*writer)->flush();
        const auto messages = errors.taken();
        QCOMPARE(messages.size(), std::size_t(1));
        QVERIFY2(messages[0].find("2 of 4 events") != std::string::npos, messages[0].c_str());
        QVERIFY2(messages[0].find("seq 2") != std::string::npos, messages[0].c_str());

        auto reader = openStore();
        auto events = reader->events("t-flood");
        QVERIFY(events);
        std::vector<std::uint64_t> seqs;
        for (const auto& row : *events)
            seqs.push_back(row.seq);
        QCOMPARE(seqs, (std::vector<std::uint64_t>{1, 2, 3, 4}));
        QCOMPARE((*writer)->written(), std::uint64_t(4));
    }

    void aBatchThatCannotBeWrittenIsDroppedAfterARetryAndReported() {
        Errors errors;
        auto writer = EventWriter::open(opener(), errors.callback());
        QVERIFY(writer);
        // Stands in for a full disk: a failure that is not about the rows' content.
        auto store = openSqlite();
        QCOMPARE(sqlite3_exec(store->handle(),
                              "CREATE TRIGGER refuse BEFORE INSERT ON events BEGIN "
                              "SELECT RAISE(ABORT, 'database or disk is full (simulated)'); END",
                              nullptr, nullptr, nullptr),
                 SQLITE_OK);
        (*writer)->append(std::vector<EventRow>{eventRow("t-flood", 1), eventRow("t-flood", 2)});
        (*writer)->flush(); // returns: the rows are handled, by being dropped
        const auto messages = errors.taken();
        QCOMPARE(messages.size(), std::size_t(1));
        QVERIFY2(messages[0].find("dropped after a retry") != std::string::npos, messages[0].c_str());
        QVERIFY2(messages[0].find("disk is full (simulated)") != std::string::npos, messages[0].c_str());
        QCOMPARE((*writer)->written(), std::uint64_t(0));

        // The writer carries on once the disk has room again.
        QCOMPARE(sqlite3_exec(store->handle(), "DROP TRIGGER refuse", nullptr, nullptr, nullptr), SQLITE_OK);
        (*writer)->append(eventRow("t-flood", 3));
        (*writer)->flush();
        QCOMPARE((*writer)->written(), std::uint64_t(1));
        auto events = openStore()->events("t-flood");
        QVERIFY(events);
        QCOMPARE(events->size(), std::size_t(1));
        QCOMPARE(events->at(0).seq, std::uint64_t(3));
    }

    // onStored hears of every row stored, each with its seconds from append to commit, and of no row dropped:
    // a repeated seq refuses the batch, which is then written row by row without it (EngineMetrics' count).
    void storedRowsAreToldWithTheirLag() {
        std::mutex mutex;
        std::vector<double> lags;
        auto writer = EventWriter::open(opener(), {}, {}, [&](const std::vector<double>& batch) {
            const std::lock_guard lock(mutex);
            lags.insert(lags.end(), batch.begin(), batch.end());
        });
        QVERIFY(writer);
        std::vector<EventRow> rows;
        for (std::uint64_t seq = 1; seq <= 100; ++seq)
            rows.push_back(eventRow("t-flood", seq));
        rows.push_back(eventRow("t-flood", 50)); // refused: its seq is stored already
        (*writer)->append(std::move(rows));
        (*writer)->flush();
        const std::lock_guard lock(mutex);
        QCOMPARE(lags.size(), std::size_t(100));
        for (const double lag : lags)
            QVERIFY(lag >= 0);
    }

    // The owner hears of events once the database has them, never when they are only queued: while another
    // connection holds the write lock, nothing is told or taken; afterwards every row once, in order, and
    // each is in the database by the time it is taken.
    void committedEventsAreToldOnlyAfterTheirCommit() {
        std::atomic<int> told = 0;
        auto writer = EventWriter::open(opener(), {}, [&] { ++told; });
        QVERIFY(writer);
        sqlite3* blocker = nullptr;
        QCOMPARE(sqlite3_open(m_path.c_str(), &blocker), SQLITE_OK);
        QCOMPARE(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
        for (std::uint64_t seq = 1; seq <= 100; ++seq)
            (*writer)->append(eventRow("t-flood", seq));
        std::this_thread::sleep_for(
            std::chrono::milliseconds(300)); // the writer waits for the lock meanwhile
        QCOMPARE(told.load(), 0);
        QVERIFY((*writer)->takeCommitted().empty());
        QCOMPARE(sqlite3_exec(blocker, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(blocker);

        auto reader = openStore();
        std::vector<std::uint64_t> taken;
        for (std::uint64_t seq = 101; seq <= 20'000; ++seq)
            (*writer)->append(eventRow("t-flood", seq));
        int takes = 1; // the empty one above
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (taken.size() < 20'000 && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            ++takes;
            for (const auto& event : (*writer)->takeCommitted()) {
                QCOMPARE(event.taskId, std::string("t-flood"));
                taken.push_back(event.seq);
            }
            if (taken.empty())
                continue;
            auto last = reader->lastSeq("t-flood");
            QVERIFY(last);
            QVERIFY2(*last >= taken.back(),
                     qPrintable(QString("seq %1 was taken before it was in the database (last "
                                        "stored %2)")
                                    .arg(taken.back())
                                    .arg(*last)));
        }
        QCOMPARE(taken.size(), std::size_t(20'000));
        for (std::size_t i = 0; i < taken.size(); ++i)
            QCOMPARE(taken[i], std::uint64_t(i + 1));
        QVERIFY(told.load() >= 1);
        QVERIFY(told.load() <= takes); // told once until the owner takes, not once per batch
    }

    // flush() is also a barrier for takeCommitted(); rows the database refused are never taken as stored,
    // and are taken as dropped, each once.
    void refusedRowsAreNeverTakenAsCommitted() {
        auto writer = EventWriter::open(
            opener(), [](std::string) {}, [] {});
        QVERIFY(writer);
        (*writer)->append(std::vector<EventRow>{eventRow("t-flood", 1), eventRow("t-flood", 2)});
        (*writer)->append(std::vector<EventRow>{eventRow("t-flood", 3), eventRow("t-flood", 2),
                                                eventRow("t-ghost", 1), eventRow("t-other", 1)});
        (*writer)->flush();
        std::vector<std::pair<std::string, std::uint64_t>> taken, dropped;
        for (const auto& event : (*writer)->takeCommitted())
            (event.dropped ? dropped : taken).emplace_back(event.taskId, event.seq);
        const std::vector<std::pair<std::string, std::uint64_t>> expected = {
            {"t-flood", 1}, {"t-flood", 2}, {"t-flood", 3}, {"t-other", 1}};
        QCOMPARE(taken, expected);
        const std::vector<std::pair<std::string, std::uint64_t>> lost = {{"t-flood", 2}, {"t-ghost", 1}};
        QCOMPARE(dropped, lost);
        QVERIFY((*writer)->takeCommitted().empty());
    }

    void openReportsAMissingDirectory() {
        auto writer = EventWriter::open(
            [path = m_dir.filePath("nowhere/warren.db").toStdString()] { return openSqliteStore(path); });
        QVERIFY(!writer);
        QVERIFY2(writer.error().message.find("does not exist") != std::string::npos,
                 writer.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestEventWriter)
#include "tst_event_writer.moc"
