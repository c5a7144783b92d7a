// AgentListener, attacked over a real Unix socket and over real TCP (every test runs on both: the global data
// row names the transport, since the checks are the same whatever carries them): only a hello with a valid
// channel-scope token of the expected task is handed on, once, with what followed it (and every model
// stream's, llm scope, of a task served); everything else (another task's token, a forged, expired, revoked
// or under-scoped one, a malformed, oversized, late or missing hello, a second connection, a flood of silent
// ones) is answered with an error line, closed and reported, and no connection is handed on.

#include "agent_core/protocol/AgentHello.h"
#include "agent_core/protocol/JsonRpc.h"
#include "app/tasks/AgentListener.h"
#include "app/tasks/PodTokens.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

using namespace warren;
using namespace warren::control;

namespace {

constexpr auto kLifetime = std::chrono::hours(1);

// Where a listener is: a Unix socket's path, or the TCP port on 127.0.0.1.
struct Endpoint {
    std::string path;
    std::uint16_t port = 0;
};

UniqueFd connectTo(const Endpoint& endpoint) {
    if (endpoint.path.empty()) {
        UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in where{};
        where.sin_family = AF_INET;
        where.sin_port = htons(endpoint.port);
        where.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&where), sizeof where) != 0)
            return UniqueFd();
        return fd;
    }
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un where{};
    where.sun_family = AF_UNIX;
    std::memcpy(where.sun_path, endpoint.path.c_str(), endpoint.path.size() + 1);
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&where), sizeof where) != 0)
        return UniqueFd();
    return fd;
}

void sendText(const UniqueFd& fd, const std::string& text) {
    QCOMPARE(::send(fd.get(), text.data(), text.size(), MSG_NOSIGNAL), static_cast<ssize_t>(text.size()));
}

// What the listener answered before it closed the connection: read to the end, the listener's event loop
// running (waiting for its events, not for time) whenever nothing is there yet.
std::string answerOf(const UniqueFd& fd) {
    std::string answer;
    QDeadlineTimer deadline(30000);
    while (!deadline.hasExpired()) {
        char buffer[4096];
        const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, MSG_DONTWAIT);
        if (n == 0)
            return answer;
        if (n > 0)
            answer.append(buffer, static_cast<std::size_t>(n));
        else
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
    }
    return answer + "(still open)";
}

} // namespace

class TestAgentListener : public QObject {
    Q_OBJECT
private slots:
    void initTestCase_data();
    void init();
    void theTasksAgentIsHandedOnWithWhatFollowedItsHello();
    void everyModelStreamOfAServedTaskIsHandedOn();
    void socketIsItsOwnersAlone();
    void refusedHellos_data();
    void refusedHellos();
    void aSecondConnectionIsRefused();
    void aForgottenTaskIsNotExpected();
    void aPodLeftRunningIsKnownByItsTokensDigest();
    void aSilentConnectionIsClosedAtItsDeadline();
    void aConnectionThatNeverSendsIsClosedAtItsDeadline();
    void portZeroReportsThePortBound();
    void badTcpAddressesAreRefused_data();
    void badTcpAddressesAreRefused();
    void aTcpPortInUseIsAnError();
    void aHelloInPiecesIsRead();
    void connectionsBeyondTheLimitAreClosedUnread();
    void destroyingRemovesTheSocket();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<TaskTokens> m_tokens;
    std::unique_ptr<AgentListener> m_listener;
    Endpoint m_at;
    UniqueFd m_accepted;
    std::string m_afterHello;
    int m_acceptedCount = 0;
};

void TestAgentListener::initTestCase_data() {
    QTest::addColumn<bool>("tcp");
    QTest::newRow("unix") << false;
    QTest::newRow("tcp") << true;
}

void TestAgentListener::init() {
    QFETCH_GLOBAL(bool, tcp);
    m_dir = std::make_unique<QTemporaryDir>();
    m_tokens = std::make_unique<TaskTokens>();
    m_at = {};
    if (!tcp)
        m_at.path = m_dir->filePath("agent.sock").toStdString();
    auto listener = tcp ? AgentListener::listenTcp("127.0.0.1:0", *m_tokens, std::chrono::milliseconds(300))
                        : AgentListener::listenUnix(m_at.path, *m_tokens, std::chrono::milliseconds(300));
    QVERIFY2(listener, listener ? "" : listener.error().message.c_str());
    m_listener = std::move(*listener);
    m_at.port = m_listener->port();
    m_accepted.reset();
    m_afterHello.clear();
    m_acceptedCount = 0;
    m_listener->expect("t-1", [this](UniqueFd connection, const std::string& afterHello) {
        m_accepted = std::move(connection);
        m_afterHello = afterHello;
        ++m_acceptedCount;
    });
}

void TestAgentListener::theTasksAgentIsHandedOnWithWhatFollowedItsHello() {
    QSignalSpy refused(m_listener.get(), &AgentListener::refused);
    const std::string token = m_tokens->issue("t-1", {scope::kLlm, scope::kChannel}, kLifetime);
    UniqueFd agent = connectTo(m_at);
    QVERIFY(agent.valid());
    sendText(agent, protocol::helloLine(token) + "{\"early\":1}\n");
    QTRY_COMPARE(m_acceptedCount, 1);
    QCOMPARE(QString::fromStdString(m_afterHello), QStringLiteral("{\"early\":1}\n"));
    QVERIFY(m_accepted.valid());
    // Nothing was answered; the connection is the protocol's, both ways.
    sendText(m_accepted, "ping\n");
    char buffer[5] = {};
    QCOMPARE(::recv(agent.get(), buffer, 5, MSG_WAITALL), ssize_t(5));
    QCOMPARE(QByteArray(buffer, 5), QByteArray("ping\n"));
    QCOMPARE(refused.count(), 0);
}

// A CLI's model calls from a cluster's pod: each connection whose hello names the model stream, with the
// task's token of the llm scope, goes to the task's model proxy with what followed its hello, as many as
// come, while the task is served; none is taken as the task's agent, nor an agent's hello as a model stream.
void TestAgentListener::everyModelStreamOfAServedTaskIsHandedOn() {
    QSignalSpy refused(m_listener.get(), &AgentListener::refused);
    std::vector<std::string> received;
    std::vector<UniqueFd> streams;
    m_listener->serveModel("t-1", [&](UniqueFd connection, const std::string& afterHello) {
        streams.push_back(std::move(connection));
        received.push_back(afterHello);
    });
    const std::string token = m_tokens->issue("t-1", {scope::kLlm, scope::kChannel}, kLifetime);
    std::vector<UniqueFd> clis;
    for (int i = 0; i < 3; ++i) {
        clis.push_back(connectTo(m_at));
        QVERIFY(clis.back().valid());
        sendText(clis.back(),
                 protocol::helloLine(token, protocol::HelloStream::Model) + "POST /v1/messages HTTP/1.1\r\n");
    }
    QTRY_COMPARE(received.size(), std::size_t(3));
    for (const auto& bytes : received)
        QCOMPARE(QString::fromStdString(bytes), QStringLiteral("POST /v1/messages HTTP/1.1\r\n"));
    QCOMPARE(m_acceptedCount, 0); // the agent's one connection is still expected
    sendText(streams.front(), "HTTP/1.1 200 OK\r\n");
    char buffer[8] = {};
    QCOMPARE(::recv(clis.front().get(), buffer, 8, MSG_WAITALL), ssize_t(8));
    QCOMPARE(QByteArray(buffer, 8), QByteArray("HTTP/1.1"));

    // The agent's hello still reaches the agent's handler, once.
    UniqueFd agent = connectTo(m_at);
    sendText(agent, protocol::helloLine(token));
    QTRY_COMPARE(m_acceptedCount, 1);
    QCOMPARE(received.size(), std::size_t(3));
    QCOMPARE(refused.count(), 0);
}

void TestAgentListener::socketIsItsOwnersAlone() {
    QFETCH_GLOBAL(bool, tcp);
    if (tcp)
        QSKIP("a TCP listener has no file: who can reach it is the network's to decide (docs/SECURITY.md)");
    struct stat st {};
    QCOMPARE(::stat(m_at.path.c_str(), &st), 0);
    QVERIFY(S_ISSOCK(st.st_mode));
    QCOMPARE(st.st_mode & 0777, 0600u);
}

void TestAgentListener::refusedHellos_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("why");
    QTest::newRow("another task's token") << "other-task" << "no agent of task t-2 is expected";
    QTest::newRow("a token without the channel scope") << "no-scope" << "no scope channel";
    QTest::newRow("a forged token") << "forged" << "the task token was refused";
    QTest::newRow("a revoked token") << "revoked" << "revoked";
    QTest::newRow("another control plane's token") << "foreign" << "the task token was refused";
    QTest::newRow("not a hello") << "not-hello" << "must be the agent.hello notification";
    QTest::newRow("not JSON") << "http" << "not a protocol message";
    QTest::newRow("another protocol version") << "version" << "install matching versions";
    QTest::newRow("over 4 KiB") << "huge" << "over 4096 bytes";
    QTest::newRow("closed before its hello") << "closed" << "closed before its hello";
    QTest::newRow("a model stream of a task not served") << "model-unserved"
                                                         << "task t-2 takes no model calls";
    QTest::newRow("a model stream without the llm scope") << "model-no-llm"
                                                          << "no scope llm";
    QTest::newRow("a model stream of a forgotten task") << "model-forgotten"
                                                        << "task t-1 takes no model calls";
}

void TestAgentListener::refusedHellos() {
    QFETCH(QString, kind);
    QFETCH(QString, why);
    QSignalSpy refused(m_listener.get(), &AgentListener::refused);
    std::string line;
    if (kind == "other-task") {
        line = protocol::helloLine(m_tokens->issue("t-2", {scope::kChannel}, kLifetime));
    } else if (kind == "no-scope") {
        line = protocol::helloLine(m_tokens->issue("t-1", {scope::kLlm, scope::kMemory}, kLifetime));
    } else if (kind == "forged") {
        std::string token = m_tokens->issue("t-1", {scope::kChannel}, kLifetime);
        char& inTheMac = token[token.size() - 2];
        inTheMac = inTheMac == 'A' ? 'B' : 'A';
        line = protocol::helloLine(token);
    } else if (kind == "revoked") {
        const std::string token = m_tokens->issue("t-1", {scope::kChannel}, kLifetime);
        m_tokens->revokeTask("t-1");
        line = protocol::helloLine(token);
    } else if (kind == "foreign") {
        line = protocol::helloLine(TaskTokens().issue("t-1", {scope::kChannel}, kLifetime));
    } else if (kind == "not-hello") {
        line = R"({"jsonrpc":"2.0","method":"event","params":{}})" "\n";
    } else if (kind == "http") {
        line = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    } else if (kind == "version") {
        line = R"({"jsonrpc":"2.0","method":"agent.hello","params":{"token":"x","protocol_version":1}})" "\n";
    } else if (kind == "huge") {
        line = std::string(8192, 'a');
    } else if (kind.startsWith("model-")) {
        const auto counted = [this](UniqueFd, const std::string&) {
            ++m_acceptedCount;
        };
        m_listener->serveModel("t-1", counted);
        if (kind == "model-forgotten")
            m_listener->forget("t-1");
        const bool llm = kind != "model-no-llm";
        const std::vector<std::string> scopes =
            llm ? std::vector<std::string>{scope::kLlm} : std::vector<std::string>{scope::kChannel};
        line =
            protocol::helloLine(m_tokens->issue(kind == "model-unserved" ? "t-2" : "t-1", scopes, kLifetime),
                                protocol::HelloStream::Model);
    }
    UniqueFd agent = connectTo(m_at);
    QVERIFY(agent.valid());
    if (kind == "closed")
        ::shutdown(agent.get(), SHUT_WR);
    else
        sendText(agent, line);
    const std::string answer = answerOf(agent);
    QTRY_COMPARE(refused.count(), 1);
    const QString reported = refused.at(0).at(0).toString();
    QVERIFY2(reported.contains(why) && reported.contains("refused"), qPrintable(reported));
    QCOMPARE(m_acceptedCount, 0);
    if (kind != "closed") { // the agent is told why, as a JSON-RPC error
        auto message = protocol::parseMessage(answer.substr(0, answer.find('\n')));
        QVERIFY2(message && std::holds_alternative<protocol::ErrorResponse>(*message), answer.c_str());
        QVERIFY(QString::fromStdString(std::get<protocol::ErrorResponse>(*message).error.message).contains(why));
    }
}

void TestAgentListener::aSecondConnectionIsRefused() {
    const std::string token = m_tokens->issue("t-1", {scope::kChannel}, kLifetime);
    UniqueFd agent = connectTo(m_at);
    sendText(agent, protocol::helloLine(token));
    QTRY_COMPARE(m_acceptedCount, 1);
    QSignalSpy refused(m_listener.get(), &AgentListener::refused);
    UniqueFd again = connectTo(m_at); // the same valid token, replayed
    sendText(again, protocol::helloLine(token));
    QVERIFY(QString::fromStdString(answerOf(again)).contains("no agent of task t-1 is expected"));
    QTRY_COMPARE(refused.count(), 1);
    QCOMPARE(m_acceptedCount, 1);
}

void TestAgentListener::aForgottenTaskIsNotExpected() {
    m_listener->forget("t-1");
    UniqueFd agent = connectTo(m_at);
    sendText(agent, protocol::helloLine(m_tokens->issue("t-1", {scope::kChannel}, kLifetime)));
    QVERIFY(QString::fromStdString(answerOf(agent)).contains("is expected"));
    QCOMPARE(m_acceptedCount, 0);
}

// A pod that a replica which died left running: its agent's token is that replica's (another secret), which
// this listener cannot verify. It is taken for the task expected with that token's digest among its pod
// tokens, once, unexpired, and only as the agent's connection: the same token for another task, with an
// expired digest, as a model stream, or replayed, is refused.
void TestAgentListener::aPodLeftRunningIsKnownByItsTokensDigest() {
    TaskTokens deadReplica;
    const std::string token = deadReplica.issue("t-1", {scope::kLlm, scope::kChannel}, kLifetime);
    const std::string other = deadReplica.issue("t-1", {scope::kChannel}, kLifetime);
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    const auto accept = [this](UniqueFd connection, const std::string&) {
        m_accepted = std::move(connection);
        ++m_acceptedCount;
    };
    QSignalSpy refused(m_listener.get(), &AgentListener::refused);
    const auto helloRefused = [&](const std::string& line, const char* why) {
        UniqueFd agent = connectTo(m_at);
        sendText(agent, line);
        const QString answer = QString::fromStdString(answerOf(agent));
        QVERIFY2(answer.contains(why), qPrintable(answer));
    };

    // Expected without it (t-1's pod tokens hold another's), or with it expired: refused.
    m_listener->expect("t-1", accept, {{podTokenDigest(other), now + 60'000}});
    helloRefused(protocol::helloLine(token), "bad signature");
    m_listener->expect("t-1", accept, {{podTokenDigest(token), now - 1}});
    helloRefused(protocol::helloLine(token), "bad signature");
    // Another task's pod tokens hold it: it is taken as that task's agent (the digest names the pod), never
    // as t-1's, whose expectation stays.
    m_listener->expect("t-2", accept, {{podTokenDigest(token), now + 60'000}});
    m_listener->expect("t-1", accept, {});
    UniqueFd t2 = connectTo(m_at);
    sendText(t2, protocol::helloLine(token));
    QTRY_COMPARE(m_acceptedCount, 1);
    helloRefused(protocol::helloLine(token), "bad signature"); // t-2's taken: its pod tokens went with it

    // As a model stream: refused, though its digest is expected.
    m_listener->expect("t-1", accept, {{podTokenDigest(token), now + 60'000}});
    m_listener->serveModel("t-1", accept);
    helloRefused(protocol::helloLine(token, protocol::HelloStream::Model), "bad signature");
    // As t-1's agent: taken once; replayed, refused.
    UniqueFd t1 = connectTo(m_at);
    sendText(t1, protocol::helloLine(token) + "{\"after\":1}\n");
    QTRY_COMPARE(m_acceptedCount, 2);
    helloRefused(protocol::helloLine(token), "bad signature");
    QCOMPARE(m_acceptedCount, 2);
    QTRY_COMPARE(refused.count(), 5);
}

void TestAgentListener::aSilentConnectionIsClosedAtItsDeadline() {
    QSignalSpy refused(m_listener.get(), &AgentListener::refused);
    UniqueFd agent = connectTo(m_at);
    sendText(agent, "{\"jsonrpc\""); // a start, never finished
    QVERIFY(QString::fromStdString(answerOf(agent)).contains("no hello within 300 ms"));
    QTRY_COMPARE(refused.count(), 1);
}

void TestAgentListener::aConnectionThatNeverSendsIsClosedAtItsDeadline() {
    QSignalSpy refused(m_listener.get(), &AgentListener::refused);
    UniqueFd silent = connectTo(m_at);
    QVERIFY(silent.valid());
    QVERIFY(QString::fromStdString(answerOf(silent)).contains("no hello within 300 ms"));
    QTRY_COMPARE(refused.count(), 1);
    QCOMPARE(m_acceptedCount, 0);
}

void TestAgentListener::portZeroReportsThePortBound() {
    QFETCH_GLOBAL(bool, tcp);
    if (!tcp) {
        QCOMPARE(m_listener->port(), std::uint16_t(0));
        return;
    }
    QVERIFY(m_at.port != 0);
    // The port reported is the one listening: the task's agent gets in through it.
    UniqueFd agent = connectTo(m_at);
    QVERIFY(agent.valid());
    sendText(agent, protocol::helloLine(m_tokens->issue("t-1", {scope::kChannel}, kLifetime)));
    QTRY_COMPARE(m_acceptedCount, 1);
}

void TestAgentListener::badTcpAddressesAreRefused_data() {
    QTest::addColumn<QString>("address");
    QTest::addColumn<QString>("why");
    QTest::newRow("no port") << "127.0.0.1" << "HOST:PORT";
    QTest::newRow("no host") << ":7000" << "HOST:PORT";
    QTest::newRow("port out of range") << "127.0.0.1:70000" << "from 0 (any free port) to 65535";
    QTest::newRow("port not a number") << "127.0.0.1:http" << "from 0 (any free port) to 65535";
    QTest::newRow("bare IPv6") << "::1:7000" << "[ADDRESS]";
    QTest::newRow("a path in the host") << "a/b:7000" << "no host name has";
    QTest::newRow("a host that does not resolve") << "no-such-host.invalid:7000" << "cannot resolve";
}

void TestAgentListener::badTcpAddressesAreRefused() {
    QFETCH(QString, address);
    QFETCH(QString, why);
    auto listener = AgentListener::listenTcp(address.toStdString(), *m_tokens);
    QVERIFY(!listener);
    const QString message = QString::fromStdString(listener.error().message);
    QVERIFY2(message.contains(why), qPrintable(message));
}

void TestAgentListener::aTcpPortInUseIsAnError() {
    QFETCH_GLOBAL(bool, tcp);
    if (!tcp)
        QSKIP("a Unix socket's path is replaced, never in use");
    auto second = AgentListener::listenTcp("127.0.0.1:" + std::to_string(m_at.port), *m_tokens);
    QVERIFY(!second);
    QVERIFY2(QString::fromStdString(second.error().message).contains("cannot listen on 127.0.0.1:"),
             second.error().message.c_str());
}

void TestAgentListener::aHelloInPiecesIsRead() {
    const std::string line = protocol::helloLine(m_tokens->issue("t-1", {scope::kChannel}, kLifetime));
    UniqueFd agent = connectTo(m_at);
    for (std::size_t at = 0; at < line.size(); at += 7) {
        sendText(agent, line.substr(at, 7));
        QCoreApplication::processEvents();
    }
    QTRY_COMPARE(m_acceptedCount, 1);
    QVERIFY(m_afterHello.empty());
}

void TestAgentListener::connectionsBeyondTheLimitAreClosedUnread() {
    QSignalSpy refused(m_listener.get(), &AgentListener::refused);
    std::vector<UniqueFd> silent;
    for (std::size_t i = 0; i < AgentListener::kMaxPending; ++i) {
        silent.push_back(connectTo(m_at));
        QVERIFY(silent.back().valid());
    }
    UniqueFd oneMore = connectTo(m_at);
    QVERIFY(oneMore.valid()); // the kernel's backlog takes it; the listener closes it unread
    QCOMPARE(answerOf(oneMore), std::string());
    QTRY_VERIFY(!refused.isEmpty());
    QVERIFY(refused.at(0).at(0).toString().contains("closed unread"));
    // The silent ones reach their deadline; then the task's agent gets in.
    QTRY_COMPARE(refused.count(), int(AgentListener::kMaxPending) + 1);
    UniqueFd agent = connectTo(m_at);
    sendText(agent, protocol::helloLine(m_tokens->issue("t-1", {scope::kChannel}, kLifetime)));
    QTRY_COMPARE(m_acceptedCount, 1);
}

void TestAgentListener::destroyingRemovesTheSocket() {
    m_listener.reset();
    if (!m_at.path.empty())
        QVERIFY(!QFileInfo::exists(QString::fromStdString(m_at.path)));
    QVERIFY(!connectTo(m_at).valid());
}

QTEST_GUILESS_MAIN(TestAgentListener)
#include "tst_agent_listener.moc"
