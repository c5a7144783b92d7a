#pragma once
// An event stream of warrend's (GET /v1/tasks/{id}/events/stream) read as it comes while a test goes on
// (WarrendServer::streamEvents blocks until it ends), with when each event and the end arrived on one clock
// shared by every stream.

#include <QByteArray>
#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QString>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::test {

class LiveStream {
public:
    LiveStream(const QString& url, const QString& taskId, const QString& key, const QByteArray& lastEventId = {});
    ~LiveStream();
    LiveStream(const LiveStream&) = delete;
    LiveStream& operator=(const LiveStream&) = delete;

    const std::vector<nlohmann::json>& events() const { return m_events; }
    bool ended() const { return m_endedAt >= 0; }
    qint64 endedAt() const { return m_endedAt; }
    QNetworkReply::NetworkError error() const { return m_reply->error(); }
    // When the first event of that type arrived; -1 before.
    qint64 arrivedAt(const std::string& type) const;
    std::vector<std::string> types() const;

private:
    void take();

    QNetworkAccessManager m_network;
    QNetworkReply* m_reply = nullptr;
    QByteArray m_buffer;
    std::vector<nlohmann::json> m_events;
    std::vector<qint64> m_arrivedAt;
    qint64 m_endedAt = -1;
};

std::string lastType(const LiveStream& stream);  // the last event's type, empty before any
std::string describe(const LiveStream& stream); // its events' types and whether it ended, for a failure

} // namespace warren::test
