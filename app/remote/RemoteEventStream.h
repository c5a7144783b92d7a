#pragma once
// One task's live events from warrend (GET /v1/tasks/{id}/events/stream, Server-Sent Events), kept alive
// across a network that fails: when the connection drops, the server restarts or goes silent, the stream
// reconnects with a growing pause (Backoff) and asks for what follows the last seq it delivered
// (Last-Event-ID), so no event is lost or delivered twice. Events at or below that seq are dropped, whatever
// the server sends.
//
// The server ends a stream when its task is no longer queued or running and every event was sent; a close
// that is not such an end (a killed server closes the connection too) is told apart by asking for the task:
// only a task that is over ends the stream (`ended`). The question is asked without waiting for its answer:
// a nested wait inside a reply's handler would let the plane be deleted under it.
//
// Each stream has a network of its own: streams never take a connection the plane's calls wait for.

#include "common/http/SseParser.h"
#include "app/remote/Backoff.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

class QNetworkAccessManager;
class QNetworkReply;

namespace warren::remote {

class RemoteClient;

class RemoteEventStream : public QObject {
    Q_OBJECT
public:
    // Asked when the server closes the stream: whether the task is over, answered later through the
    // callback unless the context (the stream) is gone by then (an error counts as not over).
    using AskIsOver =
        std::function<void(const std::string& taskId, QObject* context, std::function<void(bool over)> answer)>;
    RemoteEventStream(RemoteClient& client, std::string taskId, std::uint64_t afterSeq, AskIsOver askIsOver,
                      QObject* parent = nullptr);
    ~RemoteEventStream() override;

    void start();
    // Ends the stream for good, now: its connection is dropped and no signal follows (a stream being
    // replaced or deleted later must not act on a reply that finishes meanwhile).
    void stop();
    std::uint64_t lastSeq() const { return m_lastSeq; }
    const std::string& taskId() const { return m_taskId; }

    // No byte for this long (the server's keep-alive comment comes every 15 s): the connection is taken
    // for dead and opened again.
    static constexpr int kSilenceMs = 45'000;

signals:
    void event(const std::string& taskId, const nlohmann::json& event);
    void ended(const std::string& taskId);
    // The connection failed; message says why and when the next try is.
    void interrupted(const std::string& taskId, const QString& message);
    void resumed(const std::string& taskId); // the server answers again after an interruption
    void keyRejected();                      // 401: retrying would not help until the key changes

private:
    void connectNow();
    void onReadyRead();
    void onFinished();
    void retryLater(const QString& why);
    void dropReply();

    RemoteClient& m_client;
    QNetworkAccessManager* m_network;
    std::string m_taskId;
    std::uint64_t m_lastSeq;
    AskIsOver m_askIsOver;
    QPointer<QNetworkReply> m_reply;
    SseParser m_parser;
    Backoff m_backoff;
    QTimer m_retry;
    QTimer m_silence;
    bool m_interrupted = false;
    bool m_done = false;
};

} // namespace warren::remote
