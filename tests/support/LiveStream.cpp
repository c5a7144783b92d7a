#include "tests/support/LiveStream.h"

#include <QNetworkRequest>
#include <QUrl>

namespace warren::test {

namespace {

const QElapsedTimer& clock() {
    static const QElapsedTimer started = [] {
        QElapsedTimer timer;
        timer.start();
        return timer;
    }();
    return started;
}

} // namespace

LiveStream::LiveStream(const QString& url, const QString& taskId, const QString& key, const QByteArray& lastEventId) {
    QNetworkRequest request(QUrl(url + "/v1/tasks/" + taskId + "/events/stream"));
    request.setRawHeader("Authorization", "Bearer " + key.toUtf8());
    if (!lastEventId.isEmpty())
        request.setRawHeader("Last-Event-ID", lastEventId);
    m_reply = m_network.get(request);
    QObject::connect(m_reply, &QNetworkReply::readyRead, [this] { take(); });
    QObject::connect(m_reply, &QNetworkReply::finished, [this] {
        take();
        m_endedAt = clock().elapsed();
    });
}

LiveStream::~LiveStream() {
    m_reply->abort();
    delete m_reply;
}

qint64 LiveStream::arrivedAt(const std::string& type) const {
    for (std::size_t i = 0; i < m_events.size(); ++i)
        if (m_events[i].value("type", "") == type)
            return m_arrivedAt[i];
    return -1;
}

std::vector<std::string> LiveStream::types() const {
    std::vector<std::string> out;
    for (const auto& event : m_events)
        out.push_back(event.value("type", ""));
    return out;
}

void LiveStream::take() {
    m_buffer += m_reply->readAll();
    for (qsizetype end = m_buffer.indexOf("\n\n"); end >= 0; end = m_buffer.indexOf("\n\n")) {
        const QByteArray frame = m_buffer.left(end);
        m_buffer.remove(0, end + 2);
        for (const QByteArray& line : frame.split('\n'))
            if (line.startsWith("data: ")) {
                m_events.push_back(nlohmann::json::parse(line.mid(6).toStdString(), nullptr, false));
                m_arrivedAt.push_back(clock().elapsed());
            }
    }
}

std::string lastType(const LiveStream& stream) {
    return stream.events().empty() ? std::string() : stream.events().back().value("type", "");
}

std::string describe(const LiveStream& stream) {
    std::string out;
    for (const auto& type : stream.types())
        out += type + " ";
    return out + (stream.ended() ? "(ended)" : "(open)");
}

} // namespace warren::test
