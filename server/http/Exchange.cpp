#include "server/http/Exchange.h"

#include "server/http/RequestHeadCheck.h"
#include "server/http/SentHeaderLines.h"
#include "server/http/UrlDecoding.h"

#include <QDir>
#include <QLoggingCategory>
#include <chrono>
#include <cstring>

Q_DECLARE_LOGGING_CATEGORY(lcHttp)

namespace warren::http {

namespace {

// Content-Length as a number, or nothing when absent; libmicrohttpd itself refuses a malformed one.
std::optional<qint64> declaredLength(MHD_Connection* connection) {
    const char* value =
        MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!value)
        return std::nullopt;
    bool ok = false;
    const qint64 length = QByteArray(value).toLongLong(&ok);
    return ok ? std::optional(length) : std::nullopt;
}

HttpResponse tooLarge(qint64 limit) {
    return HttpResponse::error(
        413, "body_too_large",
        QStringLiteral("The request body is larger than the %1 bytes this endpoint accepts.").arg(limit));
}

HttpResponse storageFailure(const QFile& file) {
    return HttpResponse::error(
        507, "upload_storage",
        QStringLiteral("The server could not store the upload: %1.").arg(file.errorString()));
}

bool isChunked(MHD_Connection* connection) {
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) !=
           nullptr;
}

} // namespace

std::int64_t monotonicMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void StreamState::wake() {
    if (!open || !suspended)
        return;
    suspended = false;
    MHD_resume_connection(connection);
    context->runSoon();
}

void StreamState::close() {
    if (!open)
        return;
    open = false;
    source = nullptr;
    if (auto notify = std::move(onClosed))
        notify();
}

ssize_t StreamState::read(char* buffer, size_t max) {
    if (!open || context->stopping)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (sent == pending.size()) {
        // Pull only now, when libmicrohttpd has room: what the source produces is sent before more is asked.
        std::optional<QByteArray> next = source();
        if (!next)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (next->isEmpty()) {
            suspended = true;
            MHD_suspend_connection(connection);
            return 0;
        }
        pending = std::move(*next);
        sent = 0;
    }
    const size_t count = std::min(max, static_cast<size_t>(pending.size() - sent));
    std::memcpy(buffer, pending.constData() + sent, count);
    sent += static_cast<qsizetype>(count);
    return static_cast<ssize_t>(count);
}

Exchange::Exchange(ServerContext& context, MHD_Connection* connection)
    : m_context(context), m_connection(connection) {
    m_context.live.insert(this);
}

Exchange::~Exchange() {
    m_context.live.erase(this);
}

MHD_Result Exchange::begin(const char* url, const char* method, const char* version) {
    m_request.method = method;
    // Before anything else reads a header: a head two parsers could frame differently is refused whole.
    const std::optional<QList<QByteArray>> lines = sentHeaderLines(m_connection, method);
    const std::optional<HeadRefusal> refusal =
        lines ? checkRequestHead(*lines, version ? QByteArrayView(version) : QByteArrayView())
              : HeadRefusal{"bad_header",
                            QStringLiteral("A header line does not end in CRLF, or is folded onto "
                                           "the next line (RFC 9112 §2.2, §5.2).")};
    if (refusal)
        return refuseAndClose(HttpResponse::error(400, QString::fromLatin1(refusal->code), refusal->message));
    const bool bodyFollows = declaredLength(m_connection).value_or(0) > 0 || isChunked(m_connection);
    m_context.connections.headReceived(m_connection, bodyFollows, monotonicMs());
    m_context.deadlinesChanged();

    const Router::Result match = m_context.router->match(m_request.method, url);
    if (std::holds_alternative<MalformedPath>(match)) {
        return refuse(
            HttpResponse::error(400, "bad_path", "The request path is not an absolute path in UTF-8."));
    }
    if (std::holds_alternative<NoSuchPath>(match)) {
        return refuse(HttpResponse::error(
            404, "not_found", QStringLiteral("There is nothing at %1.").arg(QString::fromUtf8(url))));
    }
    if (const auto* wrong = std::get_if<MethodNotAllowed>(&match)) {
        return refuse(HttpResponse::error(405, "method_not_allowed",
                                          QStringLiteral("%1 does not answer %2; it answers %3.")
                                              .arg(QString::fromUtf8(url), QString::fromLatin1(method),
                                                   QString::fromLatin1(wrong->allow)))
                          .withHeader("Allow", wrong->allow));
    }
    const auto& found = std::get<RouteMatch>(match);
    m_route = found.route;
    m_request.pathParameters = found.parameters;
    m_request.path = QString::fromUtf8(QByteArray::fromPercentEncoding(url));
    readHeadersAndQuery();

    const qint64 limit = m_route->options.maxBodyBytes;
    if (const auto length = declaredLength(m_connection); length && *length > limit)
        return refuse(tooLarge(limit));
    if (m_route->options.bodyToFile) {
        m_bodyFile =
            std::make_unique<QTemporaryFile>(QDir(m_context.uploadDirectory).filePath("upload-XXXXXX"));
        if (!m_bodyFile->open()) {
            return refuse(HttpResponse::error(
                500, "upload_storage",
                QStringLiteral("The server cannot store the upload: %1.").arg(m_bodyFile->errorString())));
        }
    }
    return MHD_YES;
}

void Exchange::readHeadersAndQuery() {
    MHD_get_connection_values(
        m_connection, MHD_HEADER_KIND,
        [](void* cls, MHD_ValueKind, const char* key, const char* value) {
            // libmicrohttpd 0.9.75 drops the whitespace before a value but keeps what follows it, which is
            // not part of the value either (RFC 9110 §5.5).
            QByteArray text(value ? value : "");
            while (text.endsWith(' ') || text.endsWith('\t'))
                text.chop(1);
            static_cast<HttpRequest*>(cls)->headers.append({QByteArray(key), std::move(text)});
            return MHD_YES;
        },
        &m_request);
    // The server turns libmicrohttpd's unescaping off (for the path), so the query is decoded here.
    MHD_get_connection_values(
        m_connection, MHD_GET_ARGUMENT_KIND,
        [](void* cls, MHD_ValueKind, const char* key, const char* value) {
            static_cast<HttpRequest*>(cls)->query.insert(decodeQueryComponent(key),
                                                         decodeQueryComponent(value ? value : ""));
            return MHD_YES;
        },
        &m_request);
    if (const auto* info = MHD_get_connection_info(m_connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) {
        m_request.peer = QHostAddress(info->client_addr);
    }
}

MHD_Result Exchange::receive(const char* data, size_t* size) {
    const qint64 piece = static_cast<qint64>(*size);
    *size = 0;
    m_bodyBytesSeen += static_cast<std::uint64_t>(piece);
    m_context.connections.bodyReceived(m_connection, m_bodyBytesSeen);
    if (m_queued || m_storageFailure)
        return MHD_YES; // refused already, or the rest is discarded (bounded)
    const qint64 limit = m_route->options.maxBodyBytes;
    if (m_request.bodySize + piece > limit) {
        // Chunked, or more than it declared. libmicrohttpd 0.9.75 takes a response only before the body
        // or after all of it, and the rest may never end: the connection is closed here, unanswered.
        qCDebug(lcHttp) << "closing a connection whose body passed" << limit << "bytes";
        return MHD_NO;
    }
    m_request.bodySize += piece;
    if (!m_bodyFile) {
        m_request.body.append(data, piece);
    } else if (m_bodyFile->write(data, piece) != piece) {
        m_storageFailure = storageFailure(*m_bodyFile);
    }
    return MHD_YES;
}

MHD_Result Exchange::finish() {
    if (m_queued)
        return MHD_YES;
    m_context.connections.answering(m_connection);
    if (!m_handlerCalled) {
        m_handlerCalled = true;
        if (m_bodyFile) {
            if (!m_bodyFile->flush()) {
                return refuse(HttpResponse::error(507, "upload_storage",
                                                  QStringLiteral("The server could not store the upload: %1.")
                                                      .arg(m_bodyFile->errorString())));
            }
            m_request.bodyFile = m_bodyFile->fileName();
        }
        m_route->handler(m_request, makeReply());
    }
    return answerOrSleep();
}

MHD_Result Exchange::answerOrSleep() {
    if (m_answer)
        return queue(*m_answer);
    if (m_stream)
        return queueStream();
    if (m_context.stopping)
        return queue(HttpResponse::error(503, "stopping", "The server is stopping."));
    // A deferred answer: the connection sleeps until deliver() or openStream() resumes it.
    m_suspended = true;
    MHD_suspend_connection(m_connection);
    return MHD_YES;
}

void Exchange::deliver(HttpResponse response) {
    if (answered())
        return;
    m_answer = std::move(response);
    resume();
}

EventStream Exchange::openStream(QByteArray contentType, EventSource source, std::function<void()> onClosed) {
    if (answered()) {
        if (onClosed)
            onClosed();
        return {};
    }
    m_stream = std::make_shared<StreamState>();
    m_stream->context = &m_context;
    m_stream->connection = m_connection;
    m_stream->contentType = std::move(contentType);
    m_stream->source = std::move(source);
    m_stream->onClosed = std::move(onClosed);
    resume();
    return EventStream(m_stream);
}

void Exchange::resume() {
    if (!m_suspended)
        return; // still inside the handler: finish() answers when it returns
    m_suspended = false;
    MHD_resume_connection(m_connection);
    m_context.runSoon();
}

void Exchange::resumeForStop() {
    resume();
    if (m_stream)
        m_stream->wake();
}

void Exchange::completed() {
    m_context.connections.answered(m_connection, monotonicMs());
    m_context.deadlinesChanged();
    if (m_stream)
        m_stream->close();
}

MHD_Result Exchange::refuse(HttpResponse response) {
    const bool bodyFollows = declaredLength(m_connection).value_or(0) > 0 || isChunked(m_connection);
    if (!bodyFollows) {
        // Answered from finish(): libmicrohttpd closes a connection whose answer came before the request
        // was complete, and there is no reason to lose this one.
        m_handlerCalled = true;
        m_answer = std::move(response);
        return MHD_YES;
    }
    // Refused before its body was read: the body is never read, so the connection ends after the answer.
    return refuseAndClose(std::move(response));
}

MHD_Result Exchange::refuseAndClose(HttpResponse response) {
    m_context.connections.answering(m_connection);
    response.withHeader("Connection", "close");
    return queue(response);
}

MHD_Result Exchange::queue(const HttpResponse& response) {
    MHD_Response* reply =
        MHD_create_response_from_buffer(static_cast<size_t>(response.body.size()),
                                        const_cast<char*>(response.body.constData()), MHD_RESPMEM_MUST_COPY);
    if (!reply)
        return MHD_NO;
    for (const auto& [name, value] : response.headers)
        MHD_add_response_header(reply, name.constData(), value.constData());
    const MHD_Result result = MHD_queue_response(m_connection, response.status, reply);
    MHD_destroy_response(reply);
    m_queued = result == MHD_YES;
    return result;
}

MHD_Result Exchange::queueStream() {
    auto* keep = new std::shared_ptr<StreamState>(m_stream); // the response's, freed with it
    MHD_Response* reply = MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, m_context.limits.streamBlockBytes,
        [](void* cls, uint64_t, char* buffer, size_t max) {
            return (*static_cast<std::shared_ptr<StreamState>*>(cls))->read(buffer, max);
        },
        keep, [](void* cls) { delete static_cast<std::shared_ptr<StreamState>*>(cls); });
    if (!reply) {
        delete keep;
        return MHD_NO;
    }
    MHD_add_response_header(reply, "Content-Type", m_stream->contentType.constData());
    MHD_add_response_header(reply, "Cache-Control", "no-cache");
    const MHD_Result result = MHD_queue_response(m_connection, 200, reply);
    MHD_destroy_response(reply);
    m_queued = result == MHD_YES;
    return result;
}

} // namespace warren::http
