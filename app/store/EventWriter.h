#pragma once
// Writes events to the database on its own thread with its own connection, in batched transactions, so
// that a flooding agent never waits on the disk and no event is lost or reordered: the queue is drained
// in arrival order, a batch is everything queued (up to kMaxBatch rows) when the writer wakes.
// Thread-safe: append() from any thread.

#include "Result.h"
#include "Store.h"
#include "StoreTypes.h"

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

class EventWriter {
public:
    static constexpr std::size_t kMaxBatch = 4096;

    // Opens its own connection to the database at path. onError is called (from the writer thread) when
    // a batch cannot be written: the message says what failed; the rows of that batch are retried once,
    // then dropped with the error reported (a full disk must not grow memory without bound).
    static Result<std::unique_ptr<EventWriter>> open(const std::string& path,
                                                     std::function<void(std::string)> onError = {});
    ~EventWriter(); // flushes, then stops the thread

    void append(EventRow row);
    void append(std::vector<EventRow> rows);
    // Blocks until every row appended before the call is committed (or dropped with an error). Not from
    // onError, which runs on the writer thread.
    void flush();

    std::uint64_t written() const; // rows committed so far

private:
    EventWriter() = default;
    void run();
    // Writes one batch: retried once when it fails; when the retry fails too, a batch refused for its
    // content (a repeated seq) is written row by row so that only the offending rows are lost, and any
    // other failure (disk full, I/O error) drops the batch. Returns the rows committed; reports the loss.
    std::uint64_t writeBatch(const std::vector<EventRow>& batch);
    void report(const std::string& message) const;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::deque<EventRow> m_queue;
    std::uint64_t m_appended = 0;
    std::uint64_t m_handled = 0; // appended rows committed or dropped
    std::uint64_t m_written = 0;
    bool m_stop = false;
    std::function<void(std::string)> m_onError;
    std::string m_path;
    std::unique_ptr<Store> m_store; // used by the writer thread only
    std::thread m_thread;
};

} // namespace warren::control
