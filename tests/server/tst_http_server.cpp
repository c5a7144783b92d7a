// HttpServer over real loopback sockets: routes, JSON errors, body limits, uploads to a file, deferred
// answers, Server-Sent Events (order, sleep and wake, resume, a client that stops reading), hostile raw
// requests, and TLS with a certificate made here by openssl.

#include "server/http/HttpServer.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <memory>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

using namespace warren::http;

namespace {

// Runs the event loop, woken by each event, until condition holds; false once the deadline passes.
bool waitUntil(const std::function<bool()>& condition, int timeoutMs = 30000) {
    QDeadlineTimer deadline(timeoutMs);
    while (!condition()) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents,
                                        static_cast<int>(deadline.remainingTime()));
    }
    return true;
}

// The same, checked at each emission of signal: for a flood, where the event loop never runs dry and
// processEvents would not return.
template <typename Signal>
bool waitUntilOn(const typename QtPrivate::FunctionPointer<Signal>::Object* sender, Signal signal,
                 const std::function<bool()>& condition) {
    if (condition())
        return true;
    QEventLoop loop;
    QObject::connect(sender, signal, &loop, [&] {
        if (condition())
            loop.quit();
    });
    QTimer::singleShot(60000, &loop, &QEventLoop::quit); // a guard, not a synchronisation
    loop.exec();
    return condition();
}

struct Answer {
    int status = 0;
    QByteArray body;
    QByteArray allow;
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

QByteArray eventFrame(int id) {
    return QByteArray("id: ") + QByteArray::number(id) + "\ndata: event " + QByteArray::number(id) + "\n\n";
}

QList<int> eventIds(const QByteArray& stream) {
    QList<int> ids;
    static const QRegularExpression id(QStringLiteral("^id: (\\d+)$"), QRegularExpression::MultilineOption);
    for (auto it = id.globalMatch(QString::fromUtf8(stream)); it.hasNext();)
        ids.append(it.next().captured(1).toInt());
    return ids;
}

// A raw exchange: bytes in, then whatever comes back until the server closes or a whole head arrived.
struct RawOutcome {
    QByteArray received;
    bool closed = false;
    int status() const {
        if (!received.startsWith("HTTP/1."))
            return 0;
        return received.mid(9, 3).toInt();
    }
};

RawOutcome rawExchange(quint16 port, const QByteArray& bytes) {
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    RawOutcome outcome;
    waitUntil([&] {
        return socket.state() == QAbstractSocket::ConnectedState ||
               socket.state() == QAbstractSocket::UnconnectedState;
    });
    if (socket.state() != QAbstractSocket::ConnectedState) { // closed as soon as accepted
        outcome.closed = true;
        return outcome;
    }
    socket.write(bytes);
    waitUntil([&] {
        outcome.received += socket.readAll();
        return socket.state() == QAbstractSocket::UnconnectedState || outcome.received.contains("\r\n\r\n");
    });
    outcome.received += socket.readAll();
    outcome.closed = socket.state() == QAbstractSocket::UnconnectedState;
    return outcome;
}

// A string literal's bytes, NULs included.
template <size_t N> QByteArray literal(const char (&text)[N]) {
    return QByteArray(text, N - 1);
}

// Everything the server sends until it closes the connection (the test's guard: 30 s).
RawOutcome rawUntilClosed(quint16 port, const QByteArray& bytes) {
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    RawOutcome outcome;
    if (!waitUntil([&] { return socket.state() == QAbstractSocket::ConnectedState; }))
        return outcome;
    socket.write(bytes);
    waitUntil([&] {
        outcome.received += socket.readAll();
        return socket.state() == QAbstractSocket::UnconnectedState;
    });
    outcome.received += socket.readAll();
    outcome.closed = socket.state() == QAbstractSocket::UnconnectedState;
    return outcome;
}

// A non-blocking TCP connection from a chosen loopback address, outside Qt (a thousand QTcpSockets would
// be a thousand notifiers).
int connectFrom(const char* source, quint16 port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &from.sin_addr);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
        (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS)) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// Whether the server has closed this socket (a read sees the end, or a reset).
bool closedByPeer(int fd) {
    char byte;
    const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

// The source of an endless stream, counting what the server pulled from it.
struct FloodCursor {
    qint64 pulled = 0;
    bool closed = false;
};

} // namespace

class TestHttpServer : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_uploads;
    QNetworkAccessManager m_network;
    std::unique_ptr<HttpServer> m_server;
    quint16 m_port = 0;
    QString m_scheme = QStringLiteral("http");

    std::optional<HttpReply> m_pending; // a deferred answer the test gives later
    int m_pendingArrived = 0;
    QList<QByteArray> m_feed; // the events /events serves, id i+1 at index i
    std::vector<EventStream> m_streams;
    int m_streamsClosed = 0;
    std::vector<std::shared_ptr<FloodCursor>> m_floods;
    int m_counted = 0; // requests that reached /count: a smuggled request would be one

    Router routes() {
        Router router;
        router.add("GET", "/hello/{name}", [](const HttpRequest& request, HttpReply reply) {
            reply.send(HttpResponse::json(
                200, QJsonDocument(QJsonObject{
                         {"hello", request.pathParameters.value("name")},
                         {"q", request.query.value("q")},
                         {"agent", QString::fromUtf8(request.header("USER-agent").value_or("none"))},
                         {"peer", request.peer.toString()}})));
        });
        router.add(
            "POST", "/echo",
            [](const HttpRequest& request, HttpReply reply) {
                reply.send(HttpResponse{200, {}, request.body});
            },
            RouteOptions{1024, false});
        router.add(
            "POST", "/upload",
            [this](const HttpRequest& request, HttpReply reply) {
                QFile file(request.bodyFile);
                QCryptographicHash hash(QCryptographicHash::Sha256);
                if (!file.open(QIODevice::ReadOnly) || !hash.addData(&file)) {
                    reply.send(HttpResponse::error(500, "test", "cannot read the upload"));
                    return;
                }
                reply.send(HttpResponse::json(
                    200, QJsonDocument(QJsonObject{{"sha256", QString::fromLatin1(hash.result().toHex())},
                                                   {"size", request.bodySize},
                                                   {"inUploads", QFileInfo(request.bodyFile).absolutePath() ==
                                                                     QDir(m_uploads.path()).absolutePath()},
                                                   {"bodyInMemory", request.body.size()}})));
            },
            RouteOptions{64 << 20, true});
        router.add("GET", "/later", [this](const HttpRequest&, HttpReply reply) {
            m_pending = reply;
            ++m_pendingArrived;
        });
        router.add("GET", "/forgotten", [](const HttpRequest&, HttpReply) {});
        router.add("GET", "/count", [this](const HttpRequest&, HttpReply reply) {
            ++m_counted;
            reply.send(HttpResponse{200, {}, "counted"});
        });
        router.add("GET", "/events", [this](const HttpRequest& request, HttpReply reply) {
            auto next = std::make_shared<qsizetype>(request.header("Last-Event-ID").value_or("0").toInt());
            m_streams.push_back(reply.startEvents(
                [this, next]() -> std::optional<QByteArray> {
                    if (*next >= m_feed.size())
                        return QByteArray();
                    return m_feed.at((*next)++);
                },
                [this] { ++m_streamsClosed; }));
        });
        router.add("GET", "/flood", [this](const HttpRequest&, HttpReply reply) {
            auto cursor = std::make_shared<FloodCursor>();
            m_floods.push_back(cursor);
            reply.startEvents(
                [cursor]() -> std::optional<QByteArray> {
                    const QByteArray frame = "data: " + QByteArray(4090, 'x') + "\n\n";
                    cursor->pulled += frame.size();
                    return frame;
                },
                [cursor] { cursor->closed = true; });
        });
        return router;
    }

    void start(HttpServerLimits limits = {}, const std::optional<TlsFiles>& tls = std::nullopt) {
        m_server = std::make_unique<HttpServer>(routes(), m_uploads.path(), limits);
        auto port = m_server->listen(QHostAddress::LocalHost, 0, tls);
        QVERIFY2(port.ok(), port.ok() ? "" : port.error().message.c_str());
        QVERIFY(*port != 0);
        m_port = *port;
    }

    QUrl url(const QString& path) const {
        return QUrl(QStringLiteral("%1://127.0.0.1:%2%3").arg(m_scheme).arg(m_port).arg(path));
    }

    Answer request(const QByteArray& method, const QString& path, const QByteArray& body = {}) {
        QNetworkRequest request(url(path));
        request.setHeader(QNetworkRequest::UserAgentHeader, "tst_http_server");
        if (!body.isEmpty())
            request.setHeader(QNetworkRequest::ContentTypeHeader, "application/octet-stream");
        std::unique_ptr<QNetworkReply> reply(m_network.sendCustomRequest(request, method, body));
        waitUntil([&] { return reply->isFinished(); });
        return Answer{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll(),
                      reply->rawHeader("Allow")};
    }

    void servesAnother() {
        const Answer answer = request("GET", "/hello/again");
        QCOMPARE(answer.status, 200);
        QCOMPARE(answer.json().value("hello").toString(), QStringLiteral("again"));
    }

private slots:
    void init() {
        QVERIFY(m_uploads.isValid());
        m_feed.clear();
        m_streams.clear();
        m_streamsClosed = 0;
        m_floods.clear();
        m_pending.reset();
        m_pendingArrived = 0;
        m_counted = 0;
        m_scheme = QStringLiteral("http");
    }
    void cleanup() { m_server.reset(); }

    void routesWithParametersAndQuery() {
        start();
        const Answer answer = request("GET", "/hello/w%C3%B6rld?q=a+b%26c");
        QCOMPARE(answer.status, 200);
        QCOMPARE(answer.json().value("hello").toString(), QStringLiteral("wörld"));
        QCOMPARE(answer.json().value("q").toString(), QStringLiteral("a b&c"));
        QCOMPARE(answer.json().value("agent").toString(), QStringLiteral("tst_http_server"));
        QCOMPARE(answer.json().value("peer").toString(), QStringLiteral("127.0.0.1"));
    }

    void unknownPathAndWrongMethodAnswerJson() {
        start();
        const Answer missing = request("GET", "/nothing/here");
        QCOMPARE(missing.status, 404);
        QCOMPARE(missing.json().value("error").toObject().value("code").toString(),
                 QStringLiteral("not_found"));
        QVERIFY(!missing.json().value("error").toObject().value("message").toString().isEmpty());
        const Answer wrong = request("DELETE", "/hello/x");
        QCOMPARE(wrong.status, 405);
        QCOMPARE(wrong.allow, QByteArray("GET, HEAD"));
        QCOMPARE(wrong.json().value("error").toObject().value("code").toString(),
                 QStringLiteral("method_not_allowed"));
    }

    // An error answered before any body keeps the connection: the next request on it is served.
    void connectionSurvivesAnError() {
        start();
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, m_port);
        socket.write("GET /nothing HTTP/1.1\r\nHost: x\r\n\r\nGET /hello/next HTTP/1.1\r\nHost: x\r\n\r\n");
        QByteArray received;
        QVERIFY(waitUntil([&] {
            received += socket.readAll();
            return received.contains("\"hello\":\"next\"") ||
                   socket.state() == QAbstractSocket::UnconnectedState;
        }));
        QVERIFY(received.startsWith("HTTP/1.1 404"));
        QVERIFY2(received.contains("\"hello\":\"next\""), received.constData());
    }

    void bodyWithinTheLimitArrives() {
        start();
        const Answer answer = request("POST", "/echo", QByteArray(1024, 'a'));
        QCOMPARE(answer.status, 200);
        QCOMPARE(answer.body, QByteArray(1024, 'a'));
    }

    void bodyOverTheLimitIs413() {
        start();
        const Answer answer = request("POST", "/echo", QByteArray(1025, 'a'));
        QCOMPARE(answer.status, 413);
        QCOMPARE(answer.json().value("error").toObject().value("code").toString(),
                 QStringLiteral("body_too_large"));
        servesAnother();
    }

    // Refused on its Content-Length: the answer comes though not one byte of the body was sent.
    void declaredOversizeIsRefusedUnread() {
        start();
        const RawOutcome outcome =
            rawExchange(m_port, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n");
        QCOMPARE(outcome.status(), 413);
        servesAnother();
    }

    // A chunked body has no length to check first: as soon as it passes the limit the connection is closed
    // (libmicrohttpd 0.9.75 cannot answer in the middle of a body), and the server goes on serving.
    void chunkedOversizeIsCut() {
        start();
        QByteArray chunked = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
        for (int i = 0; i < 8; ++i)
            chunked += "200\r\n" + QByteArray(0x200, 'b') + "\r\n";
        const RawOutcome outcome = rawExchange(m_port, chunked); // 4 KiB, never terminated
        QVERIFY2(outcome.status() == 413 || (outcome.closed && outcome.received.isEmpty()),
                 outcome.received.constData());
        servesAnother();
    }

    void uploadStreamsToAFileByteExact() {
        start();
        QByteArray payload(5 * 1024 * 1024 + 17, Qt::Uninitialized);
        QRandomGenerator generator(14);
        for (char& byte : payload)
            byte = static_cast<char>(generator.bounded(256));
        const Answer answer = request("POST", "/upload", payload);
        QCOMPARE(answer.status, 200);
        QCOMPARE(answer.json().value("sha256").toString(),
                 QString::fromLatin1(QCryptographicHash::hash(payload, QCryptographicHash::Sha256).toHex()));
        QCOMPARE(answer.json().value("size").toInteger(), payload.size());
        QVERIFY(answer.json().value("inUploads").toBool());
        QCOMPARE(answer.json().value("bodyInMemory").toInt(), 0);
        m_server->close(); // every exchange ends: the handler did not keep the file, so it is gone
        QCOMPARE(QDir(m_uploads.path()).entryList({"upload-*"}, QDir::Files), QStringList{});
    }

    void deferredAnswer() {
        start();
        std::unique_ptr<QNetworkReply> reply(m_network.get(QNetworkRequest(url("/later"))));
        QVERIFY(waitUntil([&] { return m_pendingArrived == 1; }));
        servesAnother(); // the server is not blocked by the waiting request
        QVERIFY(!reply->isFinished());
        m_pending->send(HttpResponse::json(202, QJsonDocument(QJsonObject{{"later", true}})));
        QVERIFY(waitUntil([&] { return reply->isFinished(); }));
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 202);
        QCOMPARE(QJsonDocument::fromJson(reply->readAll()).object().value("later").toBool(), true);
    }

    void droppedReplyAnswers500() {
        start();
        const Answer answer = request("GET", "/forgotten");
        QCOMPARE(answer.status, 500);
        QCOMPARE(answer.json().value("error").toObject().value("code").toString(),
                 QStringLiteral("no_answer"));
    }

    void eventsArriveInOrderAndAfterSleep() {
        start();
        for (int id = 1; id <= 3; ++id)
            m_feed.append(eventFrame(id));
        std::unique_ptr<QNetworkReply> reply(m_network.get(QNetworkRequest(url("/events"))));
        QByteArray received;
        const auto receivedIds = [&] {
            received += reply->readAll();
            return eventIds(received);
        };
        QVERIFY(waitUntil([&] { return receivedIds().size() == 3; }));
        QCOMPARE(receivedIds(), (QList<int>{1, 2, 3}));
        QCOMPARE(reply->header(QNetworkRequest::ContentTypeHeader).toString(),
                 QStringLiteral("text/event-stream"));

        // The source is caught up, so the connection sleeps; new events and a wake bring it back.
        m_feed.append(eventFrame(4));
        m_feed.append(eventFrame(5));
        for (const EventStream& stream : m_streams)
            stream.wake();
        QVERIFY(waitUntil([&] { return receivedIds().size() == 5; }));
        QCOMPARE(receivedIds(), (QList<int>{1, 2, 3, 4, 5}));

        // The client goes; the owner hears of it at the next wake, and the stream is closed.
        reply->abort();
        QCOMPARE(m_streamsClosed, 0);
        QVERIFY(waitUntil([&] {
            m_feed.append(eventFrame(static_cast<int>(m_feed.size()) + 1));
            for (const EventStream& stream : m_streams)
                stream.wake();
            return m_streamsClosed == 1;
        }));
        QVERIFY(!m_streams.front().isOpen());
    }

    void eventsResumeAfterLastEventId() {
        start();
        for (int id = 1; id <= 5; ++id)
            m_feed.append(eventFrame(id));
        QNetworkRequest resumed(url("/events"));
        resumed.setRawHeader("Last-Event-ID", "3");
        std::unique_ptr<QNetworkReply> reply(m_network.get(resumed));
        QByteArray received;
        QVERIFY(waitUntil([&] {
            received += reply->readAll();
            return eventIds(received).size() >= 2;
        }));
        QCOMPARE(eventIds(received), (QList<int>{4, 5}));
    }

    // A client that stops reading: the server pulls for it only what the socket takes (bounded), keeps
    // serving a reading client on the same server, and cuts the stuck one once it has not moved for the
    // idle timeout, telling the owner.
    void stuckClientIsBoundedAndCut() {
        HttpServerLimits limits;
        limits.idleTimeoutSeconds = 5;
        start(limits);

        const int stuck = ::socket(AF_INET, SOCK_STREAM, 0);
        QVERIFY(stuck >= 0);
        const int small = 4096;
        QCOMPARE(::setsockopt(stuck, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(m_port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QCOMPARE(::connect(stuck, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        const QByteArray get = "GET /flood HTTP/1.1\r\nHost: x\r\n\r\n";
        QCOMPARE(::send(stuck, get.constData(), static_cast<size_t>(get.size()), 0), get.size());
        QVERIFY(waitUntil([&] { return m_floods.size() == 1; }));

        QTcpSocket reader;
        reader.connectToHost(QHostAddress::LocalHost, m_port);
        reader.write(get);
        qint64 read = 0;
        const qint64 bound = 8 << 20; // the kernel's socket buffers (4 MiB send at most here) and one block
        const auto drain = [&] {
            read += reader.readAll().size();
        };
        QVERIFY(waitUntilOn(&reader, &QTcpSocket::readyRead, [&] {
            drain();
            return read >= 4 * bound;
        }));
        QVERIFY(m_floods.size() == 2);
        QVERIFY2(!m_floods[0]->closed, "the stuck client was cut before the reader had read 32 MiB");
        QVERIFY2(m_floods[0]->pulled < bound, QByteArray::number(m_floods[0]->pulled).constData());

        QVERIFY(waitUntilOn(&reader, &QTcpSocket::readyRead, [&] {
            drain();
            return m_floods[0]->closed;
        }));
        QVERIFY(m_floods[0]->pulled < bound);
        const qint64 readAtCut = read;
        QVERIFY(waitUntilOn(&reader, &QTcpSocket::readyRead, [&] {
            drain();
            return read >= readAtCut + bound;
        }));
        QVERIFY(!m_floods[1]->closed);
        ::close(stuck);
    }

    void malformedRequestsAreRefused_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("not a request line") << QByteArray("HELLO THERE\r\n\r\n");
        QTest::newRow("unknown version (505)") << QByteArray("GET /hello/x HTTP/9.9\r\nHost: x\r\n\r\n");
        QTest::newRow("no Host in HTTP/1.1") << QByteArray("GET /hello/x HTTP/1.1\r\n\r\n");
        QTest::newRow("header without colon")
            << QByteArray("GET /hello/x HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n");
        QTest::newRow("huge header") << "GET /hello/x HTTP/1.1\r\nHost: x\r\nX-Big: " +
                                            QByteArray(200 * 1024, 'h') + "\r\n\r\n";
        QTest::newRow("huge request line")
            << "GET /hello/" + QByteArray(200 * 1024, 'p') + " HTTP/1.1\r\nHost: x\r\n\r\n";
        QTest::newRow("many headers")
            << "GET /hello/x HTTP/1.1\r\nHost: x\r\n" + QByteArray("X-A: b\r\n").repeated(20000) + "\r\n";
        QTest::newRow("bad chunk size") << QByteArray(
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n");
        QTest::newRow("bad Content-Length")
            << QByteArray("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\nabc");
        QTest::newRow("negative Content-Length")
            << QByteArray("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\nabc");
        QTest::newRow("path not absolute") << QByteArray("GET hello HTTP/1.1\r\nHost: x\r\n\r\n");
        QTest::newRow("binary garbage")
            << QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15);
    }
    void malformedRequestsAreRefused() {
        QFETCH(QByteArray, bytes);
        start();
        const RawOutcome outcome = rawExchange(m_port, bytes);
        const int status = outcome.status();
        QVERIFY2((status >= 400 && status < 500) || status == 505 ||
                     (outcome.received.isEmpty() && outcome.closed),
                 outcome.received.left(200).constData());
        servesAnother();
    }

    // A client that sends half a head and waits: closed after the idle timeout, others served meanwhile.
    void slowlorisIsClosed() {
        HttpServerLimits limits;
        limits.idleTimeoutSeconds = 2;
        start(limits);
        QTcpSocket slow;
        slow.connectToHost(QHostAddress::LocalHost, m_port);
        QVERIFY(waitUntil([&] { return slow.state() == QAbstractSocket::ConnectedState; }));
        slow.write("GET /hello/slow HTTP/1.1\r\nHost: x\r\n");
        servesAnother();
        QVERIFY(waitUntil([&] { return slow.state() == QAbstractSocket::UnconnectedState; }));
        QVERIFY(!slow.readAll().startsWith("HTTP/1.1 200"));
        servesAnother();
    }

    // At the cap a newcomer is still served: an idle connection of the client holding the most gives way
    // (here all are 127.0.0.1's). The count passes the cap by the newcomer at most, for as long as it takes
    // the one giving way to close.
    void fullServerLetsANewcomerIn() {
        HttpServerLimits limits;
        limits.maxConnections = 2;
        start(limits);
        QTcpSocket first, second, third;
        for (QTcpSocket* socket : {&first, &second}) {
            socket->connectToHost(QHostAddress::LocalHost, m_port);
            QVERIFY(waitUntil([&] { return socket->state() == QAbstractSocket::ConnectedState; }));
        }
        QVERIFY(waitUntil([&] { return m_server->connectionCount() == 2; }));
        third.connectToHost(QHostAddress::LocalHost, m_port);
        QVERIFY(waitUntil([&] { return third.state() == QAbstractSocket::ConnectedState; }));
        third.write("GET /hello/third HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        unsigned most = 0;
        QByteArray answer;
        QVERIFY(waitUntil([&] {
            most = std::max(most, m_server->connectionCount());
            answer += third.readAll();
            return answer.contains("\"hello\":\"third\"");
        }));
        QVERIFY(most <= 3);
        QVERIFY(answer.startsWith("HTTP/1.1 200"));
        QVERIFY(waitUntil([&] {
            return first.state() == QAbstractSocket::UnconnectedState ||
                   second.state() == QAbstractSocket::UnconnectedState;
        }));
    }

    // libmicrohttpd accepts a connection over its address's limit and closes it at once.
    void perAddressLimitClosesTheExtraClient() {
        HttpServerLimits limits;
        limits.maxConnectionsPerIp = 1;
        start(limits);
        QTcpSocket first;
        first.connectToHost(QHostAddress::LocalHost, m_port);
        QVERIFY(waitUntil([&] { return m_server->connectionCount() == 1; }));
        const RawOutcome second = rawExchange(m_port, "GET /hello/second HTTP/1.1\r\nHost: x\r\n\r\n");
        QVERIFY(second.closed);
        QVERIFY(second.received.isEmpty());
        first.abort();
        QVERIFY(waitUntil([&] { return m_server->connectionCount() == 0; }));
        servesAnother();
    }

    // A well-formed request and a second one behind it on the same connection both run: the side effect the
    // smuggling cases below look for is there to be seen.
    void pipelinedRequestsRun() {
        start();
        const RawOutcome outcome =
            rawUntilClosed(m_port, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                                   "GET /count HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        QVERIFY(outcome.closed);
        QCOMPARE(outcome.received.count("HTTP/1.1 200"), 2);
        QCOMPARE(m_counted, 1);
    }

    // Heads two parsers could frame or read differently: 400 with a JSON error and Connection: close, the
    // connection closed, and the request behind it (GET /count) never run.
    void ambiguousHeadsAre400AndNothingAfterThemRuns_data() {
        QTest::addColumn<QByteArray>("head");
        const QByteArray smuggled = "GET /count HTTP/1.1\r\nHost: x\r\n\r\n";
        QTest::newRow("Content-Length and Transfer-Encoding")
            << "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: "
               "chunked\r\n\r\n0\r\n\r\n" +
                   smuggled;
        QTest::newRow("Transfer-Encoding and Content-Length")
            << "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: "
               "38\r\n\r\n0\r\n\r\n" +
                   smuggled;
        QTest::newRow("two equal Content-Lengths")
            << "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc" +
                   smuggled;
        QTest::newRow("two Content-Lengths")
            << "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 33\r\n\r\n" + smuggled;
        QTest::newRow("Transfer-Encoding with a space before the colon")
            << "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + smuggled;
        QTest::newRow("Content-Length with a tab before the colon")
            << "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length\t: 0\r\n\r\n" + smuggled;
        QTest::newRow("Transfer-Encoding gzip, chunked")
            << "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" +
                   smuggled;
        QTest::newRow("Transfer-Encoding in HTTP/1.0")
            << "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled;
        QTest::newRow("NUL in Authorization, the last header")
            << literal("GET /hello/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer abc\0def\r\n\r\n") +
                   smuggled;
        QTest::newRow("NUL in Authorization, a middle header")
            << literal("GET /hello/x HTTP/1.1\r\nAuthorization: Bearer abc\0def\r\nHost: x\r\n\r\n") +
                   smuggled;
        QTest::newRow("two NULs in Authorization")
            << literal("GET /hello/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer abc\0\0def\r\n\r\n") +
                   smuggled;
        QTest::newRow("four NULs in Authorization, the last header")
            << literal("GET /hello/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer abc\0\0\0\0def\r\n\r\n") +
                   smuggled;
        QTest::newRow("NULs and a CRLF's look in the last header")
            << literal("GET /hello/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer abc\0\0\0\0\r\n\r\n") +
                   smuggled;
        QTest::newRow("NUL in Content-Length")
            << literal("POST /echo HTTP/1.1\r\nContent-Length: 0\0 33\r\nHost: x\r\n\r\n") + smuggled;
        QTest::newRow("two Authorizations") << "GET /hello/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                                               "a\r\nAuthorization: Bearer b\r\n\r\n" +
                                                   smuggled;
        QTest::newRow("two Hosts") << "GET /hello/x HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n" + smuggled;
        QTest::newRow("two Idempotency-Keys")
            << "GET /hello/x HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\r\nIdempotency-Key: b\r\n\r\n" +
                   smuggled;
        QTest::newRow("two Last-Event-IDs")
            << "GET /hello/x HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 1\r\nLast-Event-ID: 2\r\n\r\n" + smuggled;
        QTest::newRow("CR inside a value")
            << "GET /hello/x HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n" + smuggled;
        QTest::newRow("control byte in a value")
            << "GET /hello/x HTTP/1.1\r\nHost: x\r\nX-A: a\x01\x7f\r\n\r\n" + smuggled;
        QTest::newRow("name not a token") << "GET /hello/x HTTP/1.1\r\nHost: x\r\nX(A): b\r\n\r\n" + smuggled;
        QTest::newRow("folded line") << "GET /hello/x HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\nX-B: c\r\n\r\n" +
                                            smuggled;
        QTest::newRow("folded last line")
            << "GET /hello/x HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n" + smuggled;
        QTest::newRow("bare LF line ends") << "GET /hello/x HTTP/1.1\nHost: x\nX-A: b\n\n" + smuggled;
    }
    void ambiguousHeadsAre400AndNothingAfterThemRuns() {
        QFETCH(QByteArray, head);
        start();
        const RawOutcome outcome = rawUntilClosed(m_port, head);
        QVERIFY2(outcome.closed, outcome.received.constData());
        QVERIFY2(outcome.status() == 400, outcome.received.left(300).constData());
        static const QRegularExpression statusLine(QStringLiteral("(^|\r\n)HTTP/1\\.[01] \\d{3} "));
        QVERIFY2(QString::fromLatin1(outcome.received).count(statusLine) == 1, outcome.received.constData());
        QVERIFY(outcome.received.contains("Connection: close"));
        const QByteArray body = outcome.received.mid(outcome.received.indexOf("\r\n\r\n") + 4);
        const QJsonObject error = QJsonDocument::fromJson(body).object().value("error").toObject();
        QVERIFY2(!error.value("code").toString().isEmpty(), body.constData());
        QVERIFY(!error.value("message").toString().isEmpty());
        QCOMPARE(m_counted, 0);
        servesAnother();
    }

    // The checks read the head as libmicrohttpd left it in its buffer: a head that arrives in pieces, one
    // that makes the buffer grow, and whitespace around values are all still read right and answered.
    void headsInPiecesAndLargeHeadsAreAnswered() {
        start();
        QByteArray head = "GET /hello/pieces HTTP/1.1\r\nHost: x\r\nUser-Agent:   spaced   \r\nX-Empty:\r\n";
        for (int i = 0; head.size() < 24 * 1024; ++i)
            head += "X-Header-" + QByteArray::number(i) + ":\t" + QByteArray(60, 'v') + " \r\n";
        head += "Connection: close\r\n\r\n";
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, m_port);
        QVERIFY(waitUntil([&] { return socket.state() == QAbstractSocket::ConnectedState; }));
        for (qsizetype at = 0; at < head.size(); at += 997) {
            socket.write(head.mid(at, 997));
            QVERIFY(socket.waitForBytesWritten(5000));
            QCoreApplication::processEvents(); // the server reads what came so far
        }
        QByteArray answer;
        QVERIFY(waitUntil([&] {
            answer += socket.readAll();
            return socket.state() == QAbstractSocket::UnconnectedState;
        }));
        answer += socket.readAll();
        QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.left(400).constData());
        QVERIFY(answer.contains("\"agent\":\"spaced\""));
    }

    // Headers sent one line at a time, each well within the idle timeout: the head's deadline, counted from
    // the accept, closes the connection; other clients are answered meanwhile.
    void slowHeadIsCutAtItsDeadline() {
        HttpServerLimits limits;
        limits.headTimeoutSeconds = 2;
        limits.idleTimeoutSeconds = 60;
        start(limits);
        QTcpSocket slow;
        QElapsedTimer since;
        since.start();
        slow.connectToHost(QHostAddress::LocalHost, m_port);
        QVERIFY(waitUntil([&] { return slow.state() == QAbstractSocket::ConnectedState; }));
        slow.write("GET /count HTTP/1.1\r\nHost: x\r\n");
        int lines = 0;
        QTimer drip; // the attack's pace, not a synchronisation
        connect(&drip, &QTimer::timeout, &slow,
                [&] { slow.write("X-Line-" + QByteArray::number(++lines) + ": a\r\n"); });
        drip.start(300);
        servesAnother();
        QVERIFY(waitUntil([&] { return slow.state() == QAbstractSocket::UnconnectedState; }));
        QVERIFY(since.elapsed() >= 1900); // not before its deadline
        QVERIFY(lines >= 2); // it kept sending: an idle timer would have been reset
        QVERIFY(!slow.readAll().startsWith("HTTP/1.1 200"));
        QCOMPARE(m_counted, 0);
        servesAnother();
    }

    // A body that trickles slower than the minimum rate is cut once its grace is spent; others are served.
    void slowBodyIsCut() {
        HttpServerLimits limits;
        limits.bodyGraceSeconds = 2;
        limits.minBodyBytesPerSecond = 1000;
        limits.idleTimeoutSeconds = 60;
        start(limits);
        QTcpSocket slow;
        slow.connectToHost(QHostAddress::LocalHost, m_port);
        QVERIFY(waitUntil([&] { return slow.state() == QAbstractSocket::ConnectedState; }));
        slow.write("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
        QTimer drip;
        connect(&drip, &QTimer::timeout, &slow, [&] { slow.write("0123456789"); });
        drip.start(200);
        servesAnother();
        QVERIFY(waitUntil([&] { return slow.state() == QAbstractSocket::UnconnectedState; }));
        QVERIFY(!slow.readAll().startsWith("HTTP/1.1 200"));
        servesAnother();
    }

    // ~1,100 idle connections from 17 loopback addresses (64 each at most) fill the server's 1,000 places; a
    // client from another address is still answered, and no address holds more than its 64.
    void connectionFloodFromManyAddressesLeavesRoomForANewcomer() {
        rlimit files{};
        QVERIFY(::getrlimit(RLIMIT_NOFILE, &files) == 0);
        if (files.rlim_max != RLIM_INFINITY && files.rlim_max < 4096)
            QSKIP("needs 4096 open files (RLIMIT_NOFILE's hard limit is lower)");
        const rlimit before = files;
        files.rlim_cur = std::min<rlim_t>(files.rlim_max, 8192);
        QVERIFY(::setrlimit(RLIMIT_NOFILE, &files) == 0);
        start();
        std::vector<int> flood;
        for (int address = 2; address <= 18; ++address) {
            const QByteArray source = "127.0.0." + QByteArray::number(address);
            for (int i = 0; i < 65; ++i) {
                const int fd = connectFrom(source.constData(), m_port);
                QVERIFY(fd >= 0);
                flood.push_back(fd);
                if (flood.size() % 50 == 0)
                    QCoreApplication::processEvents(); // let the server accept as the flood arrives
            }
        }
        QCOMPARE(flood.size(), size_t{1105});
        // Full: every place taken.
        QVERIFY(waitUntil([&] { return m_server->connectionCount() >= 1000; }));

        const int newcomer = connectFrom("127.0.0.200", m_port);
        QVERIFY(newcomer >= 0);
        const QByteArray request = "GET /hello/newcomer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        QByteArray answer;
        bool sent = false;
        QVERIFY(waitUntil([&] {
            if (!sent)
                sent = ::send(newcomer, request.constData(), static_cast<size_t>(request.size()),
                              MSG_NOSIGNAL) == request.size();
            char buffer[4096];
            ssize_t n;
            while ((n = ::recv(newcomer, buffer, sizeof buffer, MSG_DONTWAIT)) > 0)
                answer.append(buffer, n);
            return answer.contains("\"hello\":\"newcomer\"");
        }));
        QVERIFY(answer.startsWith("HTTP/1.1 200"));
        QVERIFY(m_server->connectionCount() <= 1001);
        // The flood paid for it: the server closed some of its connections.
        QVERIFY(std::count_if(flood.begin(), flood.end(), closedByPeer) > 0);
        ::close(newcomer);
        for (const int fd : flood)
            ::close(fd);
        QVERIFY(waitUntil([&] { return m_server->connectionCount() == 0; }));
        m_server.reset();
        ::setrlimit(RLIMIT_NOFILE, &before);
    }

    void closeEndsStreamsAndDeferredAnswers() {
        start();
        std::unique_ptr<QNetworkReply> events(m_network.get(QNetworkRequest(url("/events"))));
        std::unique_ptr<QNetworkReply> later(m_network.get(QNetworkRequest(url("/later"))));
        QVERIFY(waitUntil([&] { return m_streams.size() == 1 && m_pendingArrived == 1; }));
        m_server->close();
        QCOMPARE(m_streamsClosed, 1);
        QVERIFY(waitUntil([&] { return later->isFinished() && events->isFinished(); }));
        QCOMPARE(later->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 503);
    }

    void tls() {
        const QString openssl = QStandardPaths::findExecutable("openssl");
        const QString curl = QStandardPaths::findExecutable("curl");
        if (openssl.isEmpty() || curl.isEmpty())
            QSKIP("needs openssl and curl (packaging/debian-packages.txt)");
        const QString certificate = m_uploads.filePath("cert.pem"), key = m_uploads.filePath("key.pem");
        QProcess make;
        make.start(openssl,
                   {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate});
        QVERIFY(make.waitForFinished(60000)); // no server runs yet: blocking here holds nothing up
        QCOMPARE(make.exitCode(), 0);

        start({}, TlsFiles{certificate, key});
        const auto fetch = [&] {
            QProcess client;
            QSignalSpy done(&client, &QProcess::finished);
            client.start(curl,
                         {"-sS", "--max-time", "30", "--cacert", certificate, url("/hello/tls").toString()});
            if (!done.wait(60000))
                return QByteArray("curl did not finish");
            return client.readAllStandardOutput() + client.readAllStandardError();
        };
        m_scheme = QStringLiteral("https");
        QCOMPARE(QJsonDocument::fromJson(fetch()).object().value("hello").toString(), QStringLiteral("tls"));

        // Plain HTTP on the TLS port: no HTTP answer, the connection ends, and TLS clients are still served.
        const RawOutcome plain = rawExchange(m_port, "GET /hello/plain HTTP/1.1\r\nHost: x\r\n\r\n");
        QVERIFY(plain.closed);
        QVERIFY(!plain.received.startsWith("HTTP/"));
        QCOMPARE(QJsonDocument::fromJson(fetch()).object().value("hello").toString(), QStringLiteral("tls"));
    }

    void tlsFilesThatDoNotLoadAreAnError_data() {
        QTest::addColumn<QString>("certificate");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("missing certificate") << "missing.pem"
                                             << "key.pem"
                                             << "missing.pem";
        QTest::newRow("missing key") << "cert.pem"
                                     << "nokey.pem"
                                     << "nokey.pem";
        QTest::newRow("not PEM") << "garbage.pem"
                                 << "key.pem"
                                 << "not a PEM certificate";
        QTest::newRow("a key for a certificate") << "key.pem"
                                                 << "key.pem"
                                                 << "not a PEM certificate";
        QTest::newRow("key of another certificate") << "cert.pem"
                                                    << "other-key.pem"
                                                    << "do not load together";
    }
    void tlsFilesThatDoNotLoadAreAnError() {
        QFETCH(QString, certificate);
        QFETCH(QString, key);
        QFETCH(QString, mentions);
        const QString openssl = QStandardPaths::findExecutable("openssl");
        if (openssl.isEmpty())
            QSKIP("needs openssl (packaging/debian-packages.txt)");
        QTemporaryDir dir;
        const auto run = [&](const QStringList& arguments) {
            QProcess process;
            process.start(openssl, arguments);
            return process.waitForFinished(60000) && process.exitCode() == 0;
        };
        QVERIFY(run({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                     "-keyout", dir.filePath("key.pem"), "-out", dir.filePath("cert.pem")}));
        QVERIFY(run({"genpkey", "-algorithm", "RSA", "-out", dir.filePath("other-key.pem")}));
        QFile garbage(dir.filePath("garbage.pem"));
        QVERIFY(garbage.open(QIODevice::WriteOnly));
        garbage.write("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
        garbage.close();

        HttpServer server(routes(), m_uploads.path());
        const auto port =
            server.listen(QHostAddress::LocalHost, 0, TlsFiles{dir.filePath(certificate), dir.filePath(key)});
        QVERIFY(!port.ok());
        QVERIFY2(QString::fromStdString(port.error().message).contains(mentions),
                 port.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestHttpServer)
#include "tst_http_server.moc"
