#pragma once
// The live event streams (GET /v1/tasks/{id}/events/stream): one cursor per client, each a seq. A cursor
// is served from the task's recent events kept in memory (what eventStored delivered, after its commit)
// and, when it is further behind than those, from the store; so a reconnect with its Last-Event-ID gets
// every later event exactly once, also after warrend or PostgreSQL restarted, and a client that reads
// slowly costs one cursor, never a growing buffer (the HTTP edge pulls only as its socket drains).
// A stream ends once its task is no longer queued or running and the client has every event.
//
// Another warrend over the same database may run the task: its events reach this one's streams through the
// store, not eventStored. wake(taskId), on the database's notification that the task's row or events
// changed, sends its cursors to look (memory holds only what this warrend's own runs stored, so they read
// the store), and has its status asked again, which is how such a stream ends.

#include "app/store/StoreTypes.h"
#include "server/http/HttpReply.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace warren::control {
class Store;
}

namespace warren::server {

// One event as a Server-Sent Events frame: "id: SEQ\ndata: EVENT\n\n". Pure.
QByteArray sseFrame(std::uint64_t seq, const std::string& eventJson);

class EventStreams : public QObject {
    Q_OBJECT
public:
    // isLive: the task may still get events (queued or running).
    EventStreams(control::Store& store, std::function<bool(const std::string&)> isLive,
                 QObject* parent = nullptr);
    ~EventStreams() override;

    void open(const std::string& taskId, std::uint64_t afterSeq, const http::HttpReply& reply);
    // From the control plane, after the commit.
    void eventStored(const std::string& taskId, const nlohmann::json& event);
    void taskFinished(const std::string& taskId);
    // Something of the task may have changed, here or in another warrend: its cursors look at the store, and
    // its status is asked again. Harmless when nothing did.
    void wake(const std::string& taskId);
    // Anything may have changed (the notifications were not heard for a while): wake() for every task.
    void wakeEveryone();
    std::size_t openCount() const;

private:
    struct Cursor;
    struct Recent {
        std::deque<std::pair<std::uint64_t, QByteArray>> frames; // seq order
        bool live = false;                                       // isLive's last answer for the task,
        QElapsedTimer liveAsked;                                 // given this long ago (invalid: ask again)
    };
    bool live(const std::string& taskId); // isLive, asked once per task and second, not per cursor
    std::optional<QByteArray> pull(Cursor& cursor);
    bool takeRecent(Cursor& cursor, QByteArray& out);
    bool takeStored(Cursor& cursor, QByteArray& out);
    void wakeCursors(const std::string& taskId); // their status unchanged
    void closed(const std::shared_ptr<Cursor>& cursor);

    control::Store& m_store;
    std::function<bool(const std::string&)> m_isLive;
    std::map<std::string, Recent> m_recent; // tasks with open streams only
    std::multimap<std::string, std::shared_ptr<Cursor>> m_cursors;
    QTimer m_keepAlive; // a comment now and then: proxies keep the stream, gone clients are noticed
};

} // namespace warren::server
