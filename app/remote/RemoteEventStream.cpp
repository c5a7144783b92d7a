#include "app/remote/RemoteEventStream.h"

#include "app/remote/RemoteClient.h"
#include "app/remote/RemoteTaskJson.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>

namespace warren::remote {

RemoteEventStream::RemoteEventStream(RemoteClient& client, std::string taskId, std::uint64_t afterSeq,
                                     AskIsOver askIsOver, QObject* parent)
    : QObject(parent), m_client(client), m_network(new QNetworkAccessManager(this)),
      m_taskId(std::move(taskId)), m_lastSeq(afterSeq), m_askIsOver(std::move(askIsOver)) {
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &RemoteEventStream::connectNow);
    m_silence.setSingleShot(true);
    m_silence.setInterval(kSilenceMs);
    connect(&m_silence, &QTimer::timeout, this, [this] {
        dropReply();
        retryLater("warrend sent nothing for " + QString::number(kSilenceMs / 1000) + " s");
    });
}

RemoteEventStream::~RemoteEventStream() { dropReply(); }

void RemoteEventStream::start() { connectNow(); }

void RemoteEventStream::stop() {
    m_done = true;
    m_retry.stop();
    dropReply();
}

void RemoteEventStream::dropReply() {
    m_silence.stop();
    QNetworkReply* reply = m_reply.data();
    m_reply = nullptr;
    if (!reply)
        return;
    reply->disconnect(this);
    reply->abort();
    reply->deleteLater();
}

void RemoteEventStream::connectNow() {
    dropReply();
    m_parser = SseParser();
    const QString path = "/v1/tasks/" + QString::fromStdString(m_taskId) + "/events/stream";
    m_reply = m_client.openStream(
        path, {{"Last-Event-ID", QByteArray::number(static_cast<qulonglong>(m_lastSeq))}}, *m_network);
    connect(m_reply, &QNetworkReply::readyRead, this, &RemoteEventStream::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &RemoteEventStream::onFinished);
    m_silence.start();
}

void RemoteEventStream::onReadyRead() {
    if (!m_reply)
        return;
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200)
        return; // an error's body is read when it finishes
    m_silence.start();
    if (m_interrupted) {
        m_interrupted = false;
        emit resumed(m_taskId);
    }
    const QByteArray bytes = m_reply->readAll();
    for (const auto& frame : m_parser.feed(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())))) {
        auto parsed = eventFromStreamData(frame.data);
        if (!parsed)
            continue; // not an event of ours; the seq cursor keeps the stream honest
        const auto seq = (*parsed)["seq"].get<std::uint64_t>();
        if (seq <= m_lastSeq)
            continue;
        m_lastSeq = seq;
        m_backoff.reset();
        emit event(m_taskId, *parsed);
        if (m_done || !m_reply)
            return; // a handler stopped this stream
    }
}

void RemoteEventStream::onFinished() {
    if (!m_reply)
        return;
    QNetworkReply* reply = m_reply;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const auto error = reply->error();
    if (error == QNetworkReply::OperationCanceledError) { // aborted here, not ended by the server
        m_reply = nullptr;
        m_silence.stop();
        reply->deleteLater();
        return;
    }
    HttpOutcome outcome{status, status == 0 ? static_cast<int>(error) : 0, reply->errorString(), reply->readAll()};
    m_silence.stop();
    m_reply = nullptr;
    reply->deleteLater();
    if (m_interrupted && status >= 200 && status < 500) { // the server answers again
        m_interrupted = false;
        emit resumed(m_taskId);
    }
    if (status == 200) {
        // Closed by the server: the end of the task's events, or a server that went away mid-stream.
        m_askIsOver(m_taskId, this, [this](bool over) {
            if (m_done || m_reply)
                return; // stopped, or connected again meanwhile
            if (!over)
                return retryLater("the connection to warrend closed while the task still runs");
            m_done = true;
            emit ended(m_taskId);
        });
        return;
    }
    if (status == 404) { // no longer the caller's, or gone: nothing will come
        m_done = true;
        emit ended(m_taskId);
        return;
    }
    if (isKeyRejected(outcome)) {
        m_done = true;
        emit keyRejected();
        return;
    }
    retryLater(QString::fromStdString(describeFailure(outcome, m_client.server()).message));
}

void RemoteEventStream::retryLater(const QString& why) {
    const auto pause = m_backoff.next();
    m_interrupted = true;
    emit interrupted(m_taskId, why + "; reconnecting in " + QString::number(static_cast<double>(pause.count()) / 1000.0) +
                                   " s");
    m_retry.start(pause);
}

} // namespace warren::remote
