#include "server/api/EventStreams.h"

#include "app/store/Store.h"

namespace warren::server {

namespace {

constexpr std::size_t kRecentFrames = 4096;   // per task with open streams
constexpr std::size_t kPullBytes = 12 * 1024; // at most this much per pull (the edge's block is 16 KiB)
constexpr std::uint64_t kStoredBatch = 256;   // events read from the store at once
constexpr int kKeepAliveMs = 15000;
constexpr qint64 kLiveAskedMs = 1000; // how long the store's answer to isLive is taken as still true

} // namespace

QByteArray sseFrame(std::uint64_t seq, const std::string& eventJson) {
    QByteArray frame = "id: " + QByteArray::number(static_cast<qulonglong>(seq)) + "\ndata: ";
    frame += QByteArray::fromStdString(eventJson); // one line: stored events are compact JSON
    frame += "\n\n";
    return frame;
}

struct EventStreams::Cursor {
    std::string taskId;
    std::uint64_t sent = 0; // the last seq the client was given
    bool keepAlive = false; // a comment is due
    http::EventStream stream;
};

EventStreams::EventStreams(control::Store& store, std::function<bool(const std::string&)> isLive,
                           QObject* parent)
    : QObject(parent), m_store(store), m_isLive(std::move(isLive)) {
    m_keepAlive.setInterval(kKeepAliveMs);
    connect(&m_keepAlive, &QTimer::timeout, this, [this] {
        for (auto& [task, cursor] : m_cursors) {
            cursor->keepAlive = true;
            cursor->stream.wake();
        }
    });
    m_keepAlive.start();
}

EventStreams::~EventStreams() = default;

std::size_t EventStreams::openCount() const {
    return m_cursors.size();
}

void EventStreams::open(const std::string& taskId, std::uint64_t afterSeq, const http::HttpReply& reply) {
    auto cursor = std::make_shared<Cursor>();
    cursor->taskId = taskId;
    cursor->sent = afterSeq;
    m_recent.try_emplace(taskId);
    m_cursors.emplace(taskId, cursor);
    std::weak_ptr<Cursor> weak = cursor;
    cursor->stream = reply.startEvents(
        [this, weak]() -> std::optional<QByteArray> {
            auto held = weak.lock();
            return held ? pull(*held) : std::nullopt;
        },
        [this, weak] {
            if (auto held = weak.lock())
                closed(held);
        });
}

void EventStreams::closed(const std::shared_ptr<Cursor>& cursor) {
    const auto [first, last] = m_cursors.equal_range(cursor->taskId);
    for (auto it = first; it != last; ++it) {
        if (it->second == cursor) {
            m_cursors.erase(it);
            break;
        }
    }
    if (!m_cursors.contains(cursor->taskId))
        m_recent.erase(cursor->taskId);
}

void EventStreams::eventStored(const std::string& taskId, const nlohmann::json& event) {
    const auto recent = m_recent.find(taskId);
    if (recent == m_recent.end())
        return; // nobody is watching: the store has it
    const std::uint64_t seq = event.value("seq", std::uint64_t{0});
    auto& frames = recent->second.frames;
    if (!frames.empty() && seq <= frames.back().first)
        return;
    frames.emplace_back(seq,
                        sseFrame(seq, event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    if (frames.size() > kRecentFrames)
        frames.pop_front();
    wakeCursors(taskId);
}

// Its next run may be another warrend's, whose events this one's memory would never hold: its cursors go to
// the store once past what they have (this run's events are all stored before it ends).
void EventStreams::taskFinished(const std::string& taskId) {
    if (const auto recent = m_recent.find(taskId); recent != m_recent.end())
        recent->second.frames.clear();
    wake(taskId);
}

void EventStreams::wake(const std::string& taskId) {
    if (const auto recent = m_recent.find(taskId); recent != m_recent.end())
        recent->second.liveAsked.invalidate(); // its status may have changed: the store says
    wakeCursors(taskId);
}

void EventStreams::wakeCursors(const std::string& taskId) {
    const auto [first, last] = m_cursors.equal_range(taskId);
    for (auto it = first; it != last; ++it)
        it->second->stream.wake();
}

void EventStreams::wakeEveryone() {
    for (auto& [task, recent] : m_recent)
        recent.liveAsked.invalidate();
    for (auto& [task, cursor] : m_cursors)
        cursor->stream.wake();
}

// The store's answer once per task and second, not once per client and wake: a caught-up cursor asks on
// every wake, and with hundreds of clients those queries held up the event loop that sends the events.
// A run's end comes through taskFinished here, or wake when another warrend's run ended (the notification
// of the task's row), which make the next cursor ask again.
bool EventStreams::live(const std::string& taskId) {
    const auto recent = m_recent.find(taskId);
    if (recent == m_recent.end())
        return m_isLive(taskId);
    Recent& task = recent->second;
    if (!task.liveAsked.isValid() || task.liveAsked.hasExpired(kLiveAskedMs)) {
        task.live = m_isLive(taskId);
        task.liveAsked.start();
    }
    return task.live;
}

// The cursor's next frames: from memory when the recent events reach back to it, else from the store.
std::optional<QByteArray> EventStreams::pull(Cursor& cursor) {
    QByteArray out;
    if (!takeRecent(cursor, out) && !takeStored(cursor, out))
        return std::nullopt; // the store failed: the client reconnects with its Last-Event-ID
    if (out.isEmpty() && cursor.keepAlive)
        out = ": keep-alive\n\n";
    cursor.keepAlive = false;
    if (out.isEmpty() && !live(cursor.taskId)) {
        // Nothing in memory; the store has the last word on whether anything is left.
        if (!takeStored(cursor, out))
            return std::nullopt;
        if (out.isEmpty())
            return std::nullopt; // the task is over and the client has everything
    }
    return out;
}

// True when memory covered the cursor (out may still be empty: it is up to date).
bool EventStreams::takeRecent(Cursor& cursor, QByteArray& out) {
    const auto recent = m_recent.find(cursor.taskId);
    if (recent == m_recent.end())
        return false;
    const auto& frames = recent->second.frames;
    if (frames.empty() || frames.front().first > cursor.sent + 1)
        return false; // behind what memory holds (or nothing delivered yet): the store
    auto it = std::lower_bound(frames.begin(), frames.end(), cursor.sent + 1,
                               [](const auto& frame, std::uint64_t seq) { return frame.first < seq; });
    for (; it != frames.end() && static_cast<std::size_t>(out.size()) < kPullBytes; ++it) {
        out += it->second;
        cursor.sent = it->first;
    }
    return true;
}

// False when the store could not be read.
bool EventStreams::takeStored(Cursor& cursor, QByteArray& out) {
    auto rows = m_store.events(cursor.taskId, cursor.sent, kStoredBatch);
    if (!rows)
        return false;
    for (const auto& row : *rows) {
        if (static_cast<std::size_t>(out.size()) >= kPullBytes)
            break;
        out += sseFrame(row.seq, row.body);
        cursor.sent = row.seq;
    }
    return true;
}

} // namespace warren::server
