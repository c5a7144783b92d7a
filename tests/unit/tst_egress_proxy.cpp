// EgressProxy over real sockets: a client on its Unix socket (as the agent's forwarder is), real TCP
// servers on this machine's loopback as the hosts. What is allowed is relayed exactly (the head made safe);
// what is not gets an HTTP answer saying why and no connection upstream; limits hold; the proxy's end
// ends its connections.

#include "app/egress/EgressProxy.h"
#include "tests/support/HostHttpServer.h"

#include <QCryptographicHash>
#include <QFile>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

using namespace warren;
using namespace warren::control;
using warren::test::HostHttpServer;

Q_DECLARE_METATYPE(warren::control::EgressDecision)

namespace {

// A host that echoes every byte back, for tunnels.
class EchoHost : public QObject {
public:
    EchoHost() {
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [socket] { socket->write(socket->readAll()); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    quint16 port() const { return m_server.serverPort(); }

private:
    QTcpServer m_server;
};

// Records what the proxy asks; the test answers.
class FakeAsker : public EgressAsker {
public:
    struct Question {
        std::string host;
        std::uint16_t port = 0;
        std::string method;
        Answer answer;
    };
    void ask(const std::string& host, std::uint16_t port, const std::string& method, Answer answer) override {
        questions.push_back({host, port, method, std::move(answer)});
    }
    std::vector<Question> questions;
};

struct Fixture {
    QTemporaryDir dir;
    std::unique_ptr<EgressProxy> proxy;
    std::unique_ptr<QSignalSpy> decisions;

    bool start(const std::string& allow, InsideAccess inside = {}, std::vector<PinnedAddress> pinned = {}) {
        auto network = parseTaskNetwork(allow);
        if (!network)
            return false;
        auto listening = EgressProxy::listen(dir.filePath("egress.sock").toStdString(), network->hosts,
                                             std::move(inside), std::move(pinned));
        if (!listening)
            return false;
        proxy = std::move(*listening);
        decisions = std::make_unique<QSignalSpy>(proxy.get(), &EgressProxy::decided);
        return true;
    }
    std::unique_ptr<QLocalSocket> client() {
        auto socket = std::make_unique<QLocalSocket>();
        socket->connectToServer(QString::fromStdString(proxy->socketPath()));
        (void)QTest::qWaitFor([&] { return socket->state() != QLocalSocket::ConnectingState; }, 5000);
        return socket->state() == QLocalSocket::ConnectedState ? std::move(socket) : nullptr;
    }
    EgressDecision decision(int index) const { return decisions->at(index).at(0).value<EgressDecision>(); }
    // One request on a new connection, and all the proxy answers before it closes.
    QByteArray exchange(const QByteArray& request);
};

// Everything the socket receives until the proxy closes it. The proxy runs on this thread: waiting goes
// through the event loop.
QByteArray readToEnd(QLocalSocket& socket) {
    QByteArray all;
    (void)QTest::qWaitFor(
        [&] {
            all += socket.readAll();
            return socket.state() == QLocalSocket::UnconnectedState;
        },
        15000);
    return all + socket.readAll();
}

QByteArray Fixture::exchange(const QByteArray& request) {
    auto socket = client();
    if (!socket)
        return "(no connection to the proxy)";
    socket->write(request);
    return readToEnd(*socket);
}

} // namespace

class TestEgressProxy : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<EgressDecision>(); }
    void plainHttpIsRelayedWithASafeHead();
    void tunnelCarriesBytesBothWaysUnchanged();
    void unlistedHostIsRefusedWithoutAConnection();
    void listedNameResolvingInsideIsRefused();
    void onAServerNoRuleReachesInsideUnlessTheOperatorAllows_data();
    void onAServerNoRuleReachesInsideUnlessTheOperatorAllows();
    void aPinnedNameReachesItsAddress_data();
    void aPinnedNameReachesItsAddress();
    void malformedHeadIsRefused();
    void unreachableHostIsABadGateway();
    void connectionsAreCapped();
    void endingTheProxyEndsItsConnections();
    void anUnlistedNameWaitsForTheAnswer();
    void anAnswerForTheTaskLetsLaterRequestsThrough();
    void anAddressIsNeverAskedAbout();
    void aClientGoneWhileAskedLeavesNothingBehind();
};

void TestEgressProxy::plainHttpIsRelayedWithASafeHead() {
    HostHttpServer host;
    Fixture f;
    const std::string authority = "127.0.0.1:" + std::to_string(host.port());
    QVERIFY(f.start("allow:" + authority));
    const QByteArray answer =
        f.exchange(QByteArray("GET http://") + authority.c_str() +
                   "/a?b=1 HTTP/1.1\r\nHost: evil.example\r\nProxy-Authorization: Basic eA==\r\n"
                   "Proxy-Connection: keep-alive\r\nAccept: */*\r\n\r\n");
    QVERIFY2(answer.startsWith("HTTP/1.1 200 OK"), answer.constData());
    // What the host got: origin form, its own Host, nothing for the proxy, one request only.
    QVERIFY2(host.received.startsWith("GET /a?b=1 HTTP/1.1\r\n"), host.received.constData());
    QVERIFY(host.received.contains("Host: " + QByteArray(authority.c_str()) + "\r\n"));
    QVERIFY(!host.received.contains("evil.example"));
    QVERIFY(!host.received.contains("Proxy-"));
    QVERIFY(host.received.contains("Connection: close\r\n"));
    QVERIFY(host.received.contains("Accept: */*\r\n"));
    QCOMPARE(f.decisions->size(), 1);
    QVERIFY(f.decision(0).allowed);
    QCOMPARE(f.decision(0).method, std::string("GET"));
    QCOMPARE(f.decision(0).address, std::string("127.0.0.1"));
}

void TestEgressProxy::tunnelCarriesBytesBothWaysUnchanged() {
    EchoHost host;
    Fixture f;
    const std::string authority = "127.0.0.1:" + std::to_string(host.port());
    QVERIFY(f.start("allow:" + authority));
    auto client = f.client();
    QVERIFY(client);
    client->write(QByteArray("CONNECT ") + authority.c_str() + " HTTP/1.1\r\nHost: " + authority.c_str() +
                  "\r\n\r\n");
    const QByteArray established = "HTTP/1.1 200 Connection established\r\n\r\n";
    QTRY_VERIFY_WITH_TIMEOUT(client->bytesAvailable() >= established.size(), 15000);
    QCOMPARE(client->read(established.size()), established);

    // 4 MiB through the tunnel and back, written faster than it is read: nothing lost, reordered or changed.
    QByteArray payload(4 * 1024 * 1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < payload.size(); ++i)
        payload[i] = char((i * 7919) % 251);
    client->write(payload);
    QByteArray back;
    (void)QTest::qWaitFor(
        [&] {
            back += client->readAll();
            return back.size() >= payload.size();
        },
        30000);
    QCOMPARE(back.size(), payload.size());
    QCOMPARE(QCryptographicHash::hash(back, QCryptographicHash::Sha256),
             QCryptographicHash::hash(payload, QCryptographicHash::Sha256));
    QCOMPARE(f.decision(0).method, std::string("CONNECT"));
}

void TestEgressProxy::unlistedHostIsRefusedWithoutAConnection() {
    HostHttpServer host;
    Fixture f;
    QVERIFY(f.start("allow:pypi.org"));
    for (const QByteArray& request :
         {QByteArray("GET http://127.0.0.1:") + QByteArray::number(host.port()) + "/ HTTP/1.1\r\n\r\n",
          QByteArray("CONNECT 127.0.0.1:") + QByteArray::number(host.port()) + " HTTP/1.1\r\n\r\n",
          QByteArray("CONNECT pypi.org:22 HTTP/1.1\r\n\r\n"),       // listed, but not that port
          QByteArray("CONNECT pypi.org.evil.example:443 HTTP/1.1\r\n\r\n")}) {
        const QByteArray answer = f.exchange(request);
        QVERIFY2(answer.startsWith("HTTP/1.1 403 Forbidden"), answer.constData());
        QVERIFY2(answer.contains("not in this task's network allow-list (pypi.org)"), answer.constData());
    }
    QCOMPARE(host.connections, 0);
    QCOMPARE(f.decisions->size(), 4);
    QVERIFY(!f.decision(0).allowed);
    QCOMPARE(f.decision(2).port, std::uint16_t{22});
}

void TestEgressProxy::listedNameResolvingInsideIsRefused() {
    HostHttpServer host;
    Fixture f;
    QVERIFY(f.start("allow:localhost:" + std::to_string(host.port())));
    const QByteArray answer =
        f.exchange("GET http://localhost:" + QByteArray::number(host.port()) + "/ HTTP/1.1\r\n\r\n");
    QVERIFY2(answer.startsWith("HTTP/1.1 403"), answer.constData());
    QVERIFY2(answer.contains("resolves only to addresses inside"), answer.constData());
    QCOMPARE(host.connections, 0);
}

// warrend (operatorOnly): a rule that is a loopback address literal, in any spelling the allow-list reads,
// or a name that resolves there, reaches the host's loopback only where the operator's --allow-internal
// names it; the desktop's user may name the literal (plainHttpIsRelayedWithASafeHead).
void TestEgressProxy::onAServerNoRuleReachesInsideUnlessTheOperatorAllows_data() {
    QTest::addColumn<QString>("host");       // as the rule and the request write it
    QTest::addColumn<QString>("allowed");    // the operator's --allow-internal; empty: none
    QTest::addColumn<bool>("reached");
    QTest::newRow("127.0.0.1, nothing allowed") << "127.0.0.1" << "" << false;
    QTest::newRow("localhost, nothing allowed") << "localhost" << "" << false;
    QTest::newRow("mapped ::ffff:127.0.0.1") << "[::ffff:127.0.0.1]" << "" << false;
    QTest::newRow("another port allowed") << "127.0.0.1" << "127.0.0.1:1" << false;
    QTest::newRow("a private block allowed") << "127.0.0.1" << "10.0.0.0/8" << false;
    QTest::newRow("the address allowed") << "127.0.0.1" << "127.0.0.1:PORT" << true;
    QTest::newRow("loopback's block allowed") << "127.0.0.1" << "127.0.0.0/8" << true;
    QTest::newRow("localhost by its address") << "localhost" << "127.0.0.1:PORT" << true;
}

void TestEgressProxy::onAServerNoRuleReachesInsideUnlessTheOperatorAllows() {
    QFETCH(QString, host);
    QFETCH(QString, allowed);
    QFETCH(bool, reached);
    HostHttpServer server;
    const QString port = QString::number(server.port());
    InsideAccess access{true, {}};
    if (!allowed.isEmpty()) {
        auto destinations = parseInsideDestinations(QString(allowed).replace("PORT", port).toStdString());
        QVERIFY2(destinations, destinations ? "" : destinations.error().message.c_str());
        access.allowed = *destinations;
    }
    Fixture f;
    QVERIFY(f.start(("allow:" + host + ":" + port).toStdString(), access));
    const QByteArray answer =
        f.exchange("GET http://" + (host + ":" + port).toUtf8() + "/ HTTP/1.1\r\n\r\n");
    if (reached) {
        QVERIFY2(answer.startsWith("HTTP/1.1 200 OK"), answer.constData());
        QCOMPARE(server.connections, 1);
        return;
    }
    QVERIFY2(answer.startsWith("HTTP/1.1 403"), answer.constData());
    QVERIFY2(answer.contains("warrend serve --allow-internal"), answer.constData());
    QCOMPARE(server.connections, 0);
    QCOMPARE(f.decisions->size(), 1);
    QVERIFY(!f.decision(0).allowed);
}

// --resolve: a listed name pinned to an address reaches it whatever DNS says (the name does not exist); on
// the desktop a loopback address is the user's choice, on warrend only where the operator allows it; a
// name that is not pinned, or pinned for another port, is resolved as ever.
void TestEgressProxy::aPinnedNameReachesItsAddress_data() {
    QTest::addColumn<bool>("server");  // warrend: operatorOnly
    QTest::addColumn<QString>("allowed"); // the operator's --allow-internal; empty: none
    QTest::addColumn<QString>("pinnedPort"); // PORT: the request's
    QTest::addColumn<bool>("reached");
    QTest::newRow("desktop") << false << "" << "PORT" << true;
    QTest::newRow("pinned for another port") << false << "" << "1" << false;
    QTest::newRow("server, nothing allowed") << true << "" << "PORT" << false;
    QTest::newRow("server, the address allowed") << true << "127.0.0.1:PORT" << "PORT" << true;
}

void TestEgressProxy::aPinnedNameReachesItsAddress() {
    QFETCH(bool, server);
    QFETCH(QString, allowed);
    QFETCH(QString, pinnedPort);
    QFETCH(bool, reached);
    HostHttpServer host;
    const QString port = QString::number(host.port());
    InsideAccess access{server, {}};
    if (!allowed.isEmpty())
        access.allowed = *parseInsideDestinations(QString(allowed).replace("PORT", port).toStdString());
    auto pinned = parsePinnedAddress(("api.example.invalid:" + QString(pinnedPort).replace("PORT", port) +
                                      ":127.0.0.1").toStdString());
    QVERIFY(pinned);
    Fixture f;
    QVERIFY(f.start(("allow:api.example.invalid:" + port).toStdString(), access, {*pinned}));
    const QByteArray answer = f.exchange("GET http://api.example.invalid:" + port.toUtf8() + "/ HTTP/1.1\r\n\r\n");
    if (reached) {
        QVERIFY2(answer.startsWith("HTTP/1.1 200 OK"), answer.constData());
        QCOMPARE(host.connections, 1);
        return;
    }
    QVERIFY2(answer.startsWith("HTTP/1.1 403") || answer.startsWith("HTTP/1.1 502"), answer.constData());
    QCOMPARE(host.connections, 0);
}

void TestEgressProxy::malformedHeadIsRefused() {
    HostHttpServer host;
    Fixture f;
    QVERIFY(f.start("allow:127.0.0.1:" + std::to_string(host.port())));
    const QByteArray answer =
        f.exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(host.port()) + "\r\n\r\n");
    QVERIFY2(answer.startsWith("HTTP/1.1 4"), answer.constData());
    QVERIFY(answer.contains("warren: "));
    QCOMPARE(host.connections, 0);
    QCOMPARE(f.decisions->size(), 1);
    QVERIFY(!f.decision(0).allowed);
}

void TestEgressProxy::unreachableHostIsABadGateway() {
    quint16 closedPort = 0;
    {
        QTcpServer probe; // a port nothing listens on any more
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        closedPort = probe.serverPort();
    }
    Fixture f;
    QVERIFY(f.start("allow:127.0.0.1:" + std::to_string(closedPort)));
    const QByteArray answer = f.exchange("CONNECT 127.0.0.1:" + QByteArray::number(closedPort) + " HTTP/1.1\r\n\r\n");
    QVERIFY2(answer.startsWith("HTTP/1.1 502 Bad Gateway"), answer.constData());
    QVERIFY2(answer.contains("cannot connect to 127.0.0.1"), answer.constData());
}

void TestEgressProxy::connectionsAreCapped() {
    Fixture f;
    QVERIFY(f.start("allow:pypi.org"));
    std::vector<std::unique_ptr<QLocalSocket>> idle; // connected, no request yet
    for (int i = 0; i < EgressProxy::kMaxConnections; ++i) {
        idle.push_back(f.client());
        QVERIFY(idle.back());
    }
    auto extra = f.client();
    QVERIFY(extra);
    const QByteArray answer = readToEnd(*extra);
    QVERIFY2(answer.startsWith("HTTP/1.1 503"), answer.constData());
    // One that ends makes room again.
    idle.front()->disconnectFromServer();
    idle.erase(idle.begin());
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            return f.exchange("CONNECT pypi.org:22 HTTP/1.1\r\n\r\n").startsWith("HTTP/1.1 403");
        }(),
        15000);
}

void TestEgressProxy::endingTheProxyEndsItsConnections() {
    EchoHost host;
    Fixture f;
    const std::string authority = "127.0.0.1:" + std::to_string(host.port());
    QVERIFY(f.start("allow:" + authority));
    const QString path = QString::fromStdString(f.proxy->socketPath());
    QVERIFY(QFile::exists(path));
    auto client = f.client();
    QVERIFY(client);
    client->write(QByteArray("CONNECT ") + authority.c_str() + " HTTP/1.1\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client->bytesAvailable() > 0, 15000);
    f.proxy.reset();
    QTRY_VERIFY_WITH_TIMEOUT(client->state() == QLocalSocket::UnconnectedState, 15000);
    QVERIFY(!QFile::exists(path));
}

namespace {

std::vector<PinnedAddress> pinnedToLoopback(const std::string& host, quint16 port) {
    return {*parsePinnedAddress(host + ":" + std::to_string(port) + ":127.0.0.1")};
}

QByteArray getOf(const std::string& host, quint16 port, const char* path = "/") {
    return "GET http://" + QByteArray::fromStdString(host) + ":" + QByteArray::number(port) + path +
           " HTTP/1.1\r\n\r\n";
}

} // namespace

void TestEgressProxy::anUnlistedNameWaitsForTheAnswer() {
    HostHttpServer host;
    Fixture f;
    QVERIFY(f.start("ask", {}, pinnedToLoopback("asked.invalid", host.port())));
    FakeAsker asker;
    f.proxy->setAsker(&asker);
    auto first = f.client();
    auto second = f.client();
    QVERIFY(first && second);
    first->write(getOf("Asked.Invalid.", host.port(), "/one"));
    second->write(getOf("asked.invalid", host.port(), "/two"));
    QVERIFY(QTest::qWaitFor([&] { return asker.questions.size() == 2; }, 5000));
    QCOMPARE(asker.questions[0].host, "asked.invalid"); // as compared: lowercase, no trailing dot
    QCOMPARE(asker.questions[0].port, host.port());
    QCOMPARE(asker.questions[0].method, "GET");
    QCOMPARE(host.connections, 0); // held: nothing reaches the host before the answer
    QCOMPARE(f.decisions->size(), 0);

    asker.questions[0].answer({true, false, ""});
    asker.questions[1].answer({false, false, "the user refused asked.invalid for this task"});
    const QByteArray allowed = readToEnd(*first);
    QVERIFY2(allowed.startsWith("HTTP/1.1 200 OK") && allowed.contains("GET /one"), allowed.constData());
    const QByteArray refused = readToEnd(*second);
    QVERIFY2(refused.startsWith("HTTP/1.1 403") && refused.contains("warren: the user refused asked.invalid"),
             refused.constData());
    QCOMPARE(host.requests, QStringList{"GET /one HTTP/1.1"});

    // Allowed once: the next request is asked about again.
    auto third = f.client();
    QVERIFY(third);
    third->write(getOf("asked.invalid", host.port()));
    QVERIFY(QTest::qWaitFor([&] { return asker.questions.size() == 3; }, 5000));
    asker.questions[2].answer({false, false, "no"});
    QVERIFY(readToEnd(*third).startsWith("HTTP/1.1 403"));
}

void TestEgressProxy::anAnswerForTheTaskLetsLaterRequestsThrough() {
    HostHttpServer host;
    Fixture f;
    QVERIFY(f.start("ask:listed.invalid", {}, pinnedToLoopback("kept.invalid", host.port())));
    FakeAsker asker;
    f.proxy->setAsker(&asker);
    auto first = f.client();
    QVERIFY(first);
    first->write(getOf("kept.invalid", host.port()));
    QVERIFY(QTest::qWaitFor([&] { return asker.questions.size() == 1; }, 5000));
    asker.questions[0].answer({true, true, ""});
    QVERIFY(readToEnd(*first).startsWith("HTTP/1.1 200 OK"));
    const QByteArray again = f.exchange(getOf("kept.invalid", host.port(), "/again"));
    QVERIFY2(again.startsWith("HTTP/1.1 200 OK"), again.constData());
    QCOMPARE(asker.questions.size(), 1u);
    // Only that port: another one of the same name is a new question.
    auto otherPort = f.client();
    QVERIFY(otherPort);
    otherPort->write(getOf("kept.invalid", quint16(host.port() == 1 ? 2 : 1)));
    QVERIFY(QTest::qWaitFor([&] { return asker.questions.size() == 2; }, 5000));
}

void TestEgressProxy::anAddressIsNeverAskedAbout() {
    HostHttpServer host;
    Fixture f;
    QVERIFY(f.start("ask"));
    FakeAsker asker;
    f.proxy->setAsker(&asker);
    for (const std::string address : {"127.0.0.1", "[::1]", "169.254.169.254", "93.184.216.34"}) {
        const QByteArray answer = f.exchange(getOf(address, host.port()));
        QVERIFY2(answer.startsWith("HTTP/1.1 403") && answer.contains("never asked about"), answer.constData());
    }
    // Nor what is not a name at all.
    const QByteArray odd = f.exchange(getOf("bad_name.example", host.port()));
    QVERIFY2(odd.startsWith("HTTP/1.1 4"), odd.constData());
    QCOMPARE(asker.questions.size(), 0u);
    QCOMPARE(host.connections, 0);
}

void TestEgressProxy::aClientGoneWhileAskedLeavesNothingBehind() {
    HostHttpServer host;
    Fixture f;
    QVERIFY(f.start("ask", {}, pinnedToLoopback("gone.invalid", host.port())));
    FakeAsker asker;
    f.proxy->setAsker(&asker);
    {
        auto client = f.client();
        QVERIFY(client);
        client->write(getOf("gone.invalid", host.port()));
        QVERIFY(QTest::qWaitFor([&] { return asker.questions.size() == 1; }, 5000));
    }
    QVERIFY(QTest::qWaitFor([&] { return f.proxy->openConnections() == 0; }, 5000));
    asker.questions[0].answer({true, true, ""}); // the connection is gone: no request goes out
    QCOMPARE(host.connections, 0);
    QCOMPARE(f.decisions->size(), 0);
    // The answer still holds for the task.
    QVERIFY(f.exchange(getOf("gone.invalid", host.port())).startsWith("HTTP/1.1 200 OK"));
    QCOMPARE(asker.questions.size(), 1u);
    // An answer after the proxy itself is gone does nothing either.
    auto late = f.client();
    QVERIFY(late);
    late->write(getOf("late.invalid", host.port()));
    QVERIFY(QTest::qWaitFor([&] { return asker.questions.size() == 2; }, 5000));
    f.proxy.reset();
    asker.questions[1].answer({true, true, ""});
}

QTEST_GUILESS_MAIN(TestEgressProxy)
#include "tst_egress_proxy.moc"
