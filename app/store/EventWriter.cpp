#include "EventWriter.h"

#include <algorithm>
#include <chrono>
#include <iterator>

namespace warren::control {

Result<std::unique_ptr<EventWriter>> EventWriter::open(const std::string& path,
                                                      std::function<void(std::string)> onError) {
    auto store = Store::open(path);
    if (!store)
        return store.error();
    std::unique_ptr<EventWriter> writer(new EventWriter());
    writer->m_path = path;
    writer->m_onError = std::move(onError);
    writer->m_store = std::make_unique<Store>(std::move(store).value());
    writer->m_thread = std::thread(&EventWriter::run, writer.get());
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

std::uint64_t EventWriter::written() const {
    const std::lock_guard lock(m_mutex);
    return m_written;
}

void EventWriter::run() {
    std::vector<EventRow> batch;
    batch.reserve(kMaxBatch);
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_queue.empty())
                return; // stopping, and everything appended is handled
            const auto count = static_cast<std::ptrdiff_t>(std::min(m_queue.size(), kMaxBatch));
            batch.assign(std::make_move_iterator(m_queue.begin()), std::make_move_iterator(m_queue.begin() + count));
            m_queue.erase(m_queue.begin(), m_queue.begin() + count);
        }
        const std::uint64_t committed = writeBatch(batch);
        {
            const std::lock_guard lock(m_mutex);
            m_handled += batch.size();
            m_written += committed;
        }
        m_done.notify_all();
        batch.clear();
    }
}

std::uint64_t EventWriter::writeBatch(const std::vector<EventRow>& batch) {
    auto written = m_store->appendEvents(batch);
    if (written)
        return batch.size();
    const bool refusedForContent = written.error().code == ErrorCode::InvalidArgument;
    if (!refusedForContent)
        std::this_thread::sleep_for(std::chrono::milliseconds(100)); // give a busy or full disk a moment
    written = m_store->appendEvents(batch);
    if (written)
        return batch.size();

    const std::string what = std::to_string(batch.size()) + " events (task " + batch.front().taskId + ", seq " +
                             std::to_string(batch.front().seq) + " to " + std::to_string(batch.back().seq) + ")";
    if (!refusedForContent) {
        report("cannot store " + what + ", dropped after a retry: " + written.error().message);
        return 0;
    }
    std::uint64_t committed = 0;
    std::string firstError;
    for (const auto& row : batch) {
        auto one = m_store->appendEvents({row});
        if (one)
            ++committed;
        else if (firstError.empty())
            firstError = one.error().message;
    }
    if (committed < batch.size())
        report(std::to_string(batch.size() - committed) + " of " + what + " were refused and dropped; the first: " +
               firstError);
    return committed;
}

void EventWriter::report(const std::string& message) const {
    if (m_onError)
        m_onError(message);
}

} // namespace warren::control
