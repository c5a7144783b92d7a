#pragma once
// One run's events on their way to the store. Each gets the task's own sequence (one per task, across
// runs), so that what the control plane itself records (streamed model text, refused requests, how the run
// ended) sits in order with what the agent sent; it is queued to the writer and held until the writer has
// committed it, when StoredEvents emits it. What waits for every event so far to be stored (a question for
// the user, the run's end) waits here, by callback, never blocking the event loop on the writer.
//
// Backpressure: with kPauseAtEvents events, or kPauseAtBytes bytes of them, queued but not yet committed (a
// slow or restarting database), the run stops reading its agent until half of them are, so that a flooding
// agent waits in its write instead of growing the server's memory.

#include "agent_core/protocol/Event.h"
#include "common/Result.h"

#include <QObject>
#include <cstdint>
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

namespace warren::control {

class Store;
class StoredEvents;

class EventSequencer : public QObject {
    Q_OBJECT
public:
    static constexpr std::size_t kPauseAtEvents = 16 * 1024;
    static constexpr std::size_t kPauseAtBytes = 16u << 20;

    EventSequencer(StoredEvents& events, std::string taskId, QObject* parent = nullptr);
    ~EventSequencer() override;

    // Continues after the task's last stored event (the writer flushed first); returns that event's seq,
    // 0 for a task that has none.
    Result<std::uint64_t> continueAfterStored(Store& store);
    // event under the next seq; body is the event's JSON as it is stored (its seq set here).
    void store(const protocol::Event& event, nlohmann::json body);
    // Calls then once every event stored so far is committed (or dropped) and emitted: at once when none
    // waits.
    void afterStored(std::function<void()> then);

signals:
    // Backpressure began (reading false) or ended; uncommitted: the events waiting for the database.
    void readingChanged(bool reading, std::size_t uncommitted);

private:
    friend class StoredEvents;
    // The writer is done with seq: the event to emit when it was stored; those before it that the writer
    // never gave back are forgotten.
    std::optional<nlohmann::json> committed(std::uint64_t seq, bool dropped);
    // After the emit: reads again below half the limits, and runs what waited for the events so far.
    void settle();
    void setReading(bool reading);

    struct Uncommitted {
        std::uint64_t seq = 0;
        nlohmann::json event;
        std::size_t bytes = 0; // its row's body
    };
    StoredEvents& m_events;
    std::string m_taskId;
    std::uint64_t m_nextSeq = 1;
    std::deque<Uncommitted> m_uncommitted; // queued, not yet committed
    std::size_t m_uncommittedBytes = 0;
    std::deque<std::pair<std::uint64_t, std::function<void()>>> m_afterStored; // the last seq each waits for
    bool m_readingPaused = false;
};

} // namespace warren::control
