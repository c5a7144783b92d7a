#include "app/store/EventWriter.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <iterator>
#include <utility>

namespace warren::control {

Result<std::unique_ptr<EventWriter>> EventWriter::open(StoreOpener openStore,
                                                       std::function<void(std::string)> onError,
                                                       std::function<void()> onCommitted) {
    std::unique_ptr<EventWriter> writer(new EventWriter());
    writer->m_onError = std::move(onError);
    writer->m_onCommitted = std::move(onCommitted);
    std::promise<Status> opened;
    auto ready = opened.get_future();
    // The connection belongs to the thread that uses it: opened there, closed there.
    writer->m_thread = std::thread(
        [self = writer.get(), openStore = std::move(openStore), opened = std::move(opened)]() mutable {
            auto store = openStore();
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
        }
        const std::uint64_t written = writeBatch(batch, committed);
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
    }
}

std::uint64_t EventWriter::writeBatch(const std::vector<EventRow>& batch,
                                      std::vector<CommittedEvent>& committed) {
    const auto keep = [&](const EventRow& row) {
        if (m_onCommitted)
            committed.push_back({row.taskId, row.seq});
    };
    auto written = m_store->appendEvents(batch);
    const bool refusedForContent = !written && written.error().code == ErrorCode::InvalidArgument;
    if (!written) {
        if (!refusedForContent)
            std::this_thread::sleep_for(std::chrono::milliseconds(100)); // give a busy or full disk a moment
        written = m_store->appendEvents(batch);
    }
    if (written) {
        std::for_each(batch.begin(), batch.end(), keep);
        return batch.size();
    }

    const std::string what = std::to_string(batch.size()) + " events (task " + batch.front().taskId +
                             ", seq " + std::to_string(batch.front().seq) + " to " +
                             std::to_string(batch.back().seq) + ")";
    if (!refusedForContent) {
        report("cannot store " + what + ", dropped after a retry: " + written.error().message);
        return 0;
    }
    std::uint64_t stored = 0;
    std::string firstError;
    for (const auto& row : batch) {
        auto one = m_store->appendEvents({row});
        if (one) {
            ++stored;
            keep(row);
        } else if (firstError.empty()) {
            firstError = one.error().message;
        }
    }
    if (stored < batch.size())
        report(std::to_string(batch.size() - stored) + " of " + what +
               " were refused and dropped; the first: " + firstError);
    return stored;
}

void EventWriter::report(const std::string& message) const {
    if (m_onError)
        m_onError(message);
}

} // namespace warren::control
