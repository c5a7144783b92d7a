#pragma once
// Writes events to the database on its own thread with its own connection, in batched transactions, so
// that a flooding agent never waits on the disk and no event is lost or reordered: the queue is drained
// in arrival order, a batch is everything queued (up to kMaxBatch rows) when the writer wakes.
// Thread-safe: append() from any thread.
//
// A database that cannot be reached (ErrorCode::Unavailable: a PostgreSQL server restarting, a network
// gone) costs nothing: the writer keeps the batch, reports the problem, reconnects through its StoreOpener
// and retries, with a growing pause, until the batch is stored; after a lost connection it first checks
// whether the batch's commit happened, so that no event is written twice. The queue itself is not bounded
// and nothing is dropped for want of room; its producers bound it (EventSequencer's backpressure).
//
// Its owner learns what is committed, not what is queued: after each commit the rows' keys wait in
// takeCommitted() and onCommitted() says so, so that nothing is shown as stored before the database has
// it (a crash can lose what is queued, never what was shown). A row the writer gave up on is taken too,
// marked dropped, so that an owner that waits for its rows (backpressure) is never left waiting.

#include "app/store/Store.h"
#include "app/store/StoreTypes.h"
#include "common/Result.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace warren::control {

// One event the writer is done with: which task, which seq; dropped: not stored (reported).
struct CommittedEvent {
    std::string taskId;
    std::uint64_t seq = 0;
    bool dropped = false;
};

class EventWriter {
public:
    static constexpr std::size_t kMaxBatch = 4096;
    static constexpr int kReportEvery = 20; // reconnection attempts between two reports of one outage
    // Once the writer is being destroyed, an unreachable database gets this many more attempts (for all
    // batches together) before the batches left are dropped and reported, so that shutting down cannot
    // hang for ever.
    static constexpr int kAttemptsWhenStopping = 10;

    // openStore opens the writer's own connection, on the writer's thread; its error is open()'s.
    // onError is called (from the writer thread) when a batch cannot be written: the message says what
    // failed. A database that cannot be reached is retried until it can (reported when it starts and every
    // kReportEvery attempts); any other failure is retried once, then its rows are dropped with the error
    // reported (a full disk must not grow memory without bound). onCommitted is called (from the writer
    // thread) when committed events start waiting in takeCommitted(), once until the next takeCommitted():
    // post it to the owner's thread and take them there. Without onCommitted, nothing is kept for
    // takeCommitted(). onStored is called (from the writer thread) after each commit with, for every row it
    // stored, the seconds from its append() to the commit (EngineMetrics' events stored and their lag).
    using OnStored = std::function<void(const std::vector<double>& lagSeconds)>;
    static Result<std::unique_ptr<EventWriter>> open(StoreOpener openStore,
                                                     std::function<void(std::string)> onError = {},
                                                     std::function<void()> onCommitted = {},
                                                     OnStored onStored = {});
    ~EventWriter(); // flushes, then stops the thread

    void append(EventRow row);
    void append(std::vector<EventRow> rows);
    // Blocks until every row appended before the call is committed (then in takeCommitted()) or dropped
    // with an error. Not from onError or onCommitted, which run on the writer thread.
    void flush();

    // The events committed since the last call, in commit order (which is append order), and those
    // dropped meanwhile (dropped = true), each once.
    std::vector<CommittedEvent> takeCommitted();

    std::uint64_t written() const; // rows committed so far

private:
    EventWriter() = default;
    void run();
    // Writes one batch: through an outage (writeThroughOutage), else retried once when it fails; when the
    // retry fails too, a batch refused for its content (a repeated seq) is written row by row so that only
    // the offending rows are lost, and any other failure (disk full, I/O error) drops the batch. Adds every
    // row to committed, the lost ones marked dropped, when they are kept; returns how many were stored;
    // reports the loss.
    // storedRows[i]: whether batch[i] was.
    std::uint64_t writeBatch(const std::vector<EventRow>& batch, std::vector<CommittedEvent>& committed,
                             std::vector<bool>& storedRows);
    // Retries a batch whose write failed with Unavailable: reconnects, checks whether its commit happened
    // after all, writes it again; until it is stored, or another kind of failure, or the writer is stopping
    // and out of attempts. Returns the last attempt's status.
    Status writeThroughOutage(const std::vector<EventRow>& batch, Error error);
    Result<bool> isStored(const EventRow& row);               // on the current connection
    Status appendToStore(const std::vector<EventRow>& batch); // Unavailable while there is no connection
    // Waits delay before the next attempt (less when the writer starts being destroyed meanwhile); false
    // when it is being destroyed and the kAttemptsWhenStopping shared by all batches are used up.
    bool pauseBeforeRetry(std::chrono::milliseconds delay);
    void report(const std::string& message) const;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::deque<EventRow> m_queue;
    std::deque<std::chrono::steady_clock::time_point> m_appendedAt; // m_queue's rows', in step with it
    std::vector<CommittedEvent> m_committed; // waiting for takeCommitted()
    std::uint64_t m_appended = 0;
    std::uint64_t m_handled = 0; // appended rows committed or dropped
    std::uint64_t m_written = 0;
    bool m_stop = false;
    std::function<void(std::string)> m_onError;
    std::function<void()> m_onCommitted;
    OnStored m_onStored;
    StoreOpener m_openStore;
    std::unique_ptr<Store> m_store; // opened, used and closed by the writer thread; null while reconnecting
    Error m_openError;              // why it is null
    int m_attemptsLeftWhenStopping = kAttemptsWhenStopping;
    std::thread m_thread;
};

} // namespace warren::control
