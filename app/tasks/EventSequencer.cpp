#include "app/tasks/EventSequencer.h"

#include "agent_core/protocol/Timestamp.h"
#include "app/store/Store.h"
#include "app/tasks/StoredEvents.h"

namespace warren::control {

using nlohmann::json;

EventSequencer::EventSequencer(StoredEvents& events, std::string taskId, QObject* parent)
    : QObject(parent), m_events(events), m_taskId(std::move(taskId)) {
    m_events.add(m_taskId, this);
}

EventSequencer::~EventSequencer() { m_events.remove(m_taskId, this); }

Result<std::uint64_t> EventSequencer::continueAfterStored(Store& store) {
    m_events.writer().flush();
    auto lastSeq = store.lastSeq(m_taskId);
    if (!lastSeq)
        return lastSeq.error();
    m_nextSeq = *lastSeq + 1;
    return *lastSeq;
}

void EventSequencer::store(const protocol::Event& event, json body) {
    const std::uint64_t seq = m_nextSeq++;
    body["seq"] = seq;
    EventRow row{m_taskId,
                 seq,
                 protocol::formatTimestamp(event.ts),
                 event.type,
                 event.step,
                 event.tool.value_or(""),
                 body.dump(-1, ' ', false, json::error_handler_t::replace)};
    const std::size_t bytes = row.body.size();
    m_events.writer().append(std::move(row));
    m_uncommitted.push_back({seq, std::move(body), bytes});
    m_uncommittedBytes += bytes;
    if (!m_readingPaused && (m_uncommitted.size() >= kPauseAtEvents || m_uncommittedBytes >= kPauseAtBytes))
        setReading(false);
}

std::optional<json> EventSequencer::committed(std::uint64_t seq, bool dropped) {
    std::optional<json> stored;
    while (!m_uncommitted.empty() && m_uncommitted.front().seq <= seq) {
        Uncommitted done = std::move(m_uncommitted.front());
        m_uncommitted.pop_front();
        m_uncommittedBytes -= done.bytes;
        if (done.seq == seq && !dropped)
            stored = std::move(done.event);
    }
    return stored;
}

void EventSequencer::settle() {
    if (m_readingPaused && m_uncommitted.size() <= kPauseAtEvents / 2 && m_uncommittedBytes <= kPauseAtBytes / 2)
        setReading(true);
    while (!m_afterStored.empty() &&
           (m_uncommitted.empty() || m_uncommitted.front().seq > m_afterStored.front().first)) {
        auto then = std::move(m_afterStored.front().second);
        m_afterStored.pop_front(); // before the call: it may store more and wait again
        then();
    }
}

void EventSequencer::setReading(bool reading) {
    m_readingPaused = !reading;
    emit readingChanged(reading, m_uncommitted.size());
}

void EventSequencer::afterStored(std::function<void()> then) {
    if (m_uncommitted.empty())
        return then();
    m_afterStored.emplace_back(m_nextSeq - 1, std::move(then));
}

} // namespace warren::control
