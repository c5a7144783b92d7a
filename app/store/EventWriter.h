#pragma once
// Writes events to the database on its own thread with its own connection, in batched transactions, so
// that a flooding agent never waits on the disk and no event is lost or reordered: the queue is drained
// in arrival order, a batch is everything queued (up to kMaxBatch rows) when the writer wakes.
// Thread-safe: append() from any thread.
//
// Its owner learns what is committed, not what is queued: after each commit the rows' keys wait in
// takeCommitted() and onCommitted() says so, so that nothing is shown as stored before the database has
// it (a crash can lose what is queued, never what was shown).

#include "app/store/Store.h"
#include "app/store/StoreTypes.h"
#include "common/Result.h"

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

// One committed event: which task, which seq.
struct CommittedEvent {
    std::string taskId;
    std::uint64_t seq = 0;
};

class EventWriter {
public:
    static constexpr std::size_t kMaxBatch = 4096;

    // openStore opens the writer's own connection, on the writer's thread; its error is open()'s.
    // onError is called (from the writer thread) when a batch cannot be written: the message says what
    // failed; the rows of that batch are retried once, then dropped with the error reported (a full disk
    // must not grow memory without bound). onCommitted is called (from the writer thread) when committed
    // events start waiting in takeCommitted(), once until the next takeCommitted(): post it to the owner's
    // thread and take them there. Without onCommitted, nothing is kept for takeCommitted().
    static Result<std::unique_ptr<EventWriter>> open(StoreOpener openStore,
                                                     std::function<void(std::string)> onError = {},
                                                     std::function<void()> onCommitted = {});
    ~EventWriter(); // flushes, then stops the thread

    void append(EventRow row);
    void append(std::vector<EventRow> rows);
    // Blocks until every row appended before the call is committed (then in takeCommitted()) or dropped
    // with an error. Not from onError or onCommitted, which run on the writer thread.
    void flush();

    // The events committed since the last call, in commit order (which is append order); a dropped row is
    // never among them.
    std::vector<CommittedEvent> takeCommitted();

    std::uint64_t written() const; // rows committed so far

private:
    EventWriter() = default;
    void run();
    // Writes one batch: retried once when it fails; when the retry fails too, a batch refused for its
    // content (a repeated seq) is written row by row so that only the offending rows are lost, and any
    // other failure (disk full, I/O error) drops the batch. Adds the committed rows to committed when they
    // are kept; returns how many there were; reports the loss.
    std::uint64_t writeBatch(const std::vector<EventRow>& batch, std::vector<CommittedEvent>& committed);
    void report(const std::string& message) const;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::deque<EventRow> m_queue;
    std::vector<CommittedEvent> m_committed; // waiting for takeCommitted()
    std::uint64_t m_appended = 0;
    std::uint64_t m_handled = 0; // appended rows committed or dropped
    std::uint64_t m_written = 0;
    bool m_stop = false;
    std::function<void(std::string)> m_onError;
    std::function<void()> m_onCommitted;
    std::unique_ptr<Store> m_store; // opened, used and closed by the writer thread
    std::thread m_thread;
};

} // namespace warren::control
