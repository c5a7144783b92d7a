#include "app/store/EventWriter.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <iterator>
#include <utility>

namespace warren::control {

namespace {

// "4096 events (task t-1, seq 1 to 4096)", for messages.
std::string describe(const std::vector<EventRow>& batch) {
    return std::to_string(batch.size()) + " events (task " + batch.front().taskId + ", seq " +
           std::to_string(batch.front().seq) + " to " + std::to_string(batch.back().seq) + ")";
}

} // namespace

Result<std::unique_ptr<EventWriter>> EventWriter::open(StoreOpener openStore,
                                                       std::function<void(std::string)> onError,
                                                       std::function<void()> onCommitted, OnStored onStored) {
    std::unique_ptr<EventWriter> writer(new EventWriter());
    writer->m_onStored = std::move(onStored);
    writer->m_onError = std::move(onError);
    writer->m_onCommitted = std::move(onCommitted);
    writer->m_openStore = std::move(openStore);
    std::promise<Status> opened;
    auto ready = opened.get_future();
    // The connection belongs to the thread that uses it: opened there, closed there.
    writer->m_thread = std::thread([self = writer.get(), opened = std::move(opened)]() mutable {
        auto store = self->m_openStore();
        if (!store) {
            opened.set_value(store.error());
            return;
        }
        self->m_store = std::move(store).value();
        opened.set_value(Ok{});
        self->run();
        self->m_store.reset();
    });
    if (auto status = ready.get(); !status) {
        writer->m_thread.join();
        return status.error();
    }
    return writer;
}

EventWriter::~EventWriter() {
    {
        const std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join(); // the writer drains the queue before it returns
}

void EventWriter::append(EventRow row) {
    {
        const std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(row));
        m_appendedAt.push_back(std::chrono::steady_clock::now());
        ++m_appended;
    }
    m_wake.notify_one();
}

void EventWriter::append(std::vector<EventRow> rows) {
    if (rows.empty())
        return;
    {
        const std::lock_guard lock(m_mutex);
        m_appended += rows.size();
        m_appendedAt.insert(m_appendedAt.end(), rows.size(), std::chrono::steady_clock::now());
        std::move(rows.begin(), rows.end(), std::back_inserter(m_queue));
    }
    m_wake.notify_one();
}

void EventWriter::flush() {
    std::unique_lock lock(m_mutex);
    const std::uint64_t target = m_appended;
    m_done.wait(lock, [&] { return m_handled >= target; });
}

std::vector<CommittedEvent> EventWriter::takeCommitted() {
    const std::lock_guard lock(m_mutex);
    return std::exchange(m_committed, {});
}

std::uint64_t EventWriter::written() const {
    const std::lock_guard lock(m_mutex);
    return m_written;
}

void EventWriter::run() {
    std::vector<EventRow> batch;
    batch.reserve(kMaxBatch);
    std::vector<CommittedEvent> committed;
    std::vector<std::chrono::steady_clock::time_point> appendedAt;
    std::vector<bool> stored;
    std::vector<double> lags;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_queue.empty())
                return; // stopping, and everything appended is handled
            const auto count = static_cast<std::ptrdiff_t>(std::min(m_queue.size(), kMaxBatch));
            batch.assign(std::make_move_iterator(m_queue.begin()),
                         std::make_move_iterator(m_queue.begin() + count));
            m_queue.erase(m_queue.begin(), m_queue.begin() + count);
            appendedAt.assign(m_appendedAt.begin(), m_appendedAt.begin() + count);
            m_appendedAt.erase(m_appendedAt.begin(), m_appendedAt.begin() + count);
        }
        const std::uint64_t written = writeBatch(batch, committed, stored);
        if (m_onStored && written > 0) {
            const auto now = std::chrono::steady_clock::now();
            for (std::size_t i = 0; i < batch.size(); ++i)
                if (stored[i])
                    lags.push_back(std::chrono::duration<double>(now - appendedAt[i]).count());
            m_onStored(lags);
        }
        bool tell = false;
        {
            // One lock for both: when flush() returns, what it waited for is already in takeCommitted().
            const std::lock_guard lock(m_mutex);
            m_handled += batch.size();
            m_written += written;
            if (!committed.empty()) {
                tell = m_committed.empty(); // otherwise the owner was told and has not taken them yet
                m_committed.insert(m_committed.end(), std::make_move_iterator(committed.begin()),
                                   std::make_move_iterator(committed.end()));
            }
        }
        m_done.notify_all();
        if (tell)
            m_onCommitted();
        batch.clear();
        committed.clear();
        stored.clear();
        lags.clear();
    }
}

std::uint64_t EventWriter::writeBatch(const std::vector<EventRow>& batch,
                                      std::vector<CommittedEvent>& committed, std::vector<bool>& storedRows) {
    const auto keep = [&](const EventRow& row, bool dropped) {
        storedRows.push_back(!dropped);
        if (m_onCommitted)
            committed.push_back({row.taskId, row.seq, dropped});
    };
    const auto dropAll = [&] {
        for (const auto& row : batch)
            keep(row, true);
        return std::uint64_t{0};
    };
    auto written = appendToStore(batch);
    if (!written && written.error().code == ErrorCode::Unavailable)
        written = writeThroughOutage(batch, written.error());
    const bool refusedForContent = !written && written.error().code == ErrorCode::InvalidArgument;
    const bool unreachable = !written && written.error().code == ErrorCode::Unavailable; // and stopping
    if (!written && !unreachable) {
        if (!refusedForContent)
            std::this_thread::sleep_for(std::chrono::milliseconds(100)); // give a busy or full disk a moment
        written = appendToStore(batch);
    }
    if (written) {
        for (const auto& row : batch)
            keep(row, false);
        return batch.size();
    }

    const std::string what = describe(batch);
    if (unreachable) {
        report("cannot store " + what +
               ": the database was still unreachable when the writer stopped; dropped: " +
               written.error().message);
        return dropAll();
    }
    if (!refusedForContent) {
        report("cannot store " + what + ", dropped after a retry: " + written.error().message);
        return dropAll();
    }
    std::uint64_t stored = 0;
    std::string firstError;
    for (const auto& row : batch) {
        auto one = appendToStore({row});
        keep(row, !one);
        if (one)
            ++stored;
        else if (firstError.empty())
            firstError = one.error().message;
    }
    if (stored < batch.size())
        report(std::to_string(batch.size() - stored) + " of " + what +
               " were refused and dropped; the first: " + firstError);
    return stored;
}

Status EventWriter::appendToStore(const std::vector<EventRow>& batch) {
    if (!m_store)
        return m_openError; // the reconnection that left it without one
    return m_store->appendEvents(batch);
}

Result<bool> EventWriter::isStored(const EventRow& row) {
    // seq > row.seq - 1, the first one: row itself when it is there. (Seqs start at 1.)
    auto found = m_store->events(row.taskId, row.seq == 0 ? 0 : row.seq - 1, 1);
    if (!found)
        return found.error();
    return !found->empty() && found->front().seq == row.seq;
}

bool EventWriter::pauseBeforeRetry(std::chrono::milliseconds delay) {
    std::unique_lock lock(m_mutex);
    if (!m_stop && !m_wake.wait_for(lock, delay, [&] { return m_stop; }))
        return true;
    lock.unlock();
    if (m_attemptsLeftWhenStopping <= 0)
        return false;
    --m_attemptsLeftWhenStopping;
    std::this_thread::sleep_for(delay); // stopping: the last attempts still give the server a moment
    return true;
}

Status EventWriter::writeThroughOutage(const std::vector<EventRow>& batch, Error error) {
    const std::string what = describe(batch);
    auto delay = std::chrono::milliseconds(50);
    for (int attempt = 0;; ++attempt) {
        if (!pauseBeforeRetry(delay))
            return error;
        if (attempt % kReportEvery == 0)
            report("cannot store " + what + " yet: " + error.message +
                   "; keeping them and retrying (attempt " + std::to_string(attempt + 1) + ")");
        delay = std::min(delay * 2, std::chrono::milliseconds(2000));
        m_store.reset(); // the lost connection goes before a new one comes
        auto reopened = m_openStore();
        if (!reopened) {
            error = m_openError = reopened.error();
            if (error.code != ErrorCode::Unavailable)
                return error;
            continue;
        }
        m_store = std::move(reopened).value();
        // The lost connection may have committed the batch before it went: a batch is all or nothing, so
        // its last row tells.
        auto stored = isStored(batch.back());
        if (stored && *stored)
            return Ok{};
        auto written = stored ? m_store->appendEvents(batch) : Status(stored.error());
        if (written || written.error().code != ErrorCode::Unavailable)
            return written;
        error = written.error();
    }
}

void EventWriter::report(const std::string& message) const {
    if (m_onError)
        m_onError(message);
}

} // namespace warren::control
