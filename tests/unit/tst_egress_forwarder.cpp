// EgressForwarder: real TCP clients on 127.0.0.1, a real Unix-socket server standing in for the control
// plane's egress proxy. Every blocking call in the test has a timeout, so a forwarder that loses an EOF
// fails the test instead of hanging it.

#include "agent_core/net/ControlConnection.h"
#include "agent_core/net/EgressForwarder.h"
#include "agent_core/protocol/AgentHello.h"
#include "common/UniqueFd.h"

#include <QCryptographicHash>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <future>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <set>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

using warren::UniqueFd;
using warren::agent::EgressForwarder;

namespace {

constexpr int kIoTimeoutSeconds = 30;
constexpr auto kWaitLimit = std::chrono::seconds(kIoTimeoutSeconds);
constexpr qsizetype kLargeTransfer = 4 * 1024 * 1024;

void setIoTimeouts(int fd) {
    const timeval timeout{kIoTimeoutSeconds, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
}

UniqueFd connectTo(std::uint16_t port) {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    setIoTimeouts(fd.get());
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) < 0)
        return UniqueFd();
    return fd;
}

bool sendAll(int fd, const char* data, qsizetype size) {
    while (size > 0) {
        const ssize_t sent = ::send(fd, data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent < 0)
            return false;
        data += sent;
        size -= sent;
    }
    return true;
}

bool sendAll(int fd, const QByteArray& bytes) {
    return sendAll(fd, bytes.constData(), bytes.size());
}

enum class End { Eof, Reset, TimedOut };

struct Received {
    QByteArray bytes;
    End end = End::TimedOut;
};

// Everything until the peer's end. A reset counts as an end (the connection was closed on us).
Received readToEnd(int fd) {
    Received received;
    char buffer[64 * 1024];
    for (;;) {
        const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
        if (got > 0) {
            received.bytes.append(buffer, got);
            continue;
        }
        if (got < 0 && errno == EINTR)
            continue;
        received.end = got == 0 ? End::Eof : errno == ECONNRESET ? End::Reset : End::TimedOut;
        return received;
    }
}

QByteArray readExactly(int fd, qsizetype size) {
    QByteArray bytes;
    char buffer[4096];
    while (bytes.size() < size) {
        const ssize_t got =
            ::recv(fd, buffer,
                   std::min<std::size_t>(sizeof buffer, static_cast<std::size_t>(size - bytes.size())), 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        bytes.append(buffer, got);
    }
    return bytes;
}

QByteArray randomBytes(qsizetype size, quint32 seed) {
    QByteArray bytes(size, Qt::Uninitialized);
    QRandomGenerator generator(seed);
    generator.fillRange(reinterpret_cast<quint32*>(bytes.data()), static_cast<qsizetype>(size / 4));
    return bytes;
}

QByteArray sha256(const QByteArray& bytes) {
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
}

std::set<int> openDescriptors() {
    std::set<int> fds;
    DIR* dir = ::opendir("/proc/self/fd");
    if (!dir)
        return fds;
    while (const dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] != '.')
            fds.insert(std::atoi(entry->d_name));
    }
    ::closedir(dir);
    std::erase_if(fds, [](int fd) { return ::fcntl(fd, F_GETFD) < 0; }); // the listing's own, closed now
    return fds;
}

qint64 sysctlMax(const char* path) {
    QFile file(QString::fromLatin1(path));
    if (!file.open(QIODevice::ReadOnly))
        return 32 * 1024 * 1024;
    const auto fields = file.readAll().simplified().split(' ');
    return fields.size() == 3 ? fields[2].toLongLong() : 32 * 1024 * 1024;
}

// The control plane's egress proxy, as far as the forwarder can tell: a Unix stream socket whose every
// connection is served by `handler` on a thread of its own.
class UnixServer {
public:
    using Handler = std::function<void(UniqueFd)>;

    UnixServer(const QString& path, Handler handler)
        : m_handler(std::move(handler)), m_wake(::eventfd(0, EFD_CLOEXEC)) {
        m_listener = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const QByteArray encoded = QFile::encodeName(path);
        std::memcpy(address.sun_path, encoded.constData(), static_cast<std::size_t>(encoded.size()));
        m_listening =
            ::bind(m_listener.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
            ::listen(m_listener.get(), 128) == 0;
        if (m_listening)
            m_acceptor = std::thread([this] { acceptLoop(); });
    }

    ~UnixServer() {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto written = ::write(m_wake.get(), &one, sizeof one);
        if (m_acceptor.joinable())
            m_acceptor.join();
        for (auto& connection : m_connections)
            connection.join();
    }

    bool listening() const { return m_listening; }
    int accepted() const { return m_accepted.load(); }

private:
    void acceptLoop() {
        for (;;) {
            pollfd fds[2] = {{m_listener.get(), POLLIN, 0}, {m_wake.get(), POLLIN, 0}};
            if (::poll(fds, 2, -1) < 0 && errno == EINTR)
                continue;
            if (fds[1].revents)
                return;
            UniqueFd connection(::accept4(m_listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
            if (!connection.valid())
                continue;
            setIoTimeouts(connection.get());
            ++m_accepted;
            m_connections.emplace_back([this, fd = connection.release()] { m_handler(UniqueFd(fd)); });
        }
    }

    Handler m_handler;
    UniqueFd m_wake;
    UniqueFd m_listener;
    bool m_listening = false;
    std::atomic<int> m_accepted{0};
    std::vector<std::thread> m_connections; // touched by the acceptor only, joined after it
    std::thread m_acceptor;
};

// Sends back what it reads; at the client's end it ends too.
void echo(UniqueFd fd) {
    char buffer[16 * 1024];
    for (;;) {
        const ssize_t got = ::recv(fd.get(), buffer, sizeof buffer, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || !sendAll(fd.get(), buffer, got))
            return;
    }
}

} // namespace

class TestEgressForwarder : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString socketPath() const { return m_dir.filePath(QStringLiteral("egress.sock")); }
    std::string socketPathString() const { return QFile::encodeName(socketPath()).toStdString(); }

    std::unique_ptr<EgressForwarder> startForwarder() {
        auto forwarder = EgressForwarder::start(socketPathString(), 0);
        if (!forwarder) {
            qWarning("%s", forwarder.error().message.c_str());
            return nullptr;
        }
        return std::move(forwarder).value();
    }

private slots:
    void init() { QFile::remove(socketPath()); }

    void everyByteValuePassesUnchanged() {
        UnixServer server(socketPath(), echo);
        QVERIFY(server.listening());
        auto forwarder = startForwarder();
        QVERIFY(forwarder);
        QVERIFY(forwarder->port() != 0);

        QByteArray bytes;
        for (int round = 0; round < 4; ++round)
            for (int value = 0; value < 256; ++value)
                bytes.append(static_cast<char>(value));
        auto client = connectTo(forwarder->port());
        QVERIFY(client.valid());
        QVERIFY(sendAll(client.get(), bytes));
        QCOMPARE(readExactly(client.get(), bytes.size()), bytes);
        QVERIFY(sendAll(client.get(), QByteArrayLiteral("GET http://example.org/ HTTP/1.1\r\n\r\n")));
        QCOMPARE(readExactly(client.get(), 36),
                 QByteArrayLiteral("GET http://example.org/ HTTP/1.1\r\n\r\n"));
    }

    // Both sides write 4 MiB at once while reading: far more than the forwarder buffers, so it must stop
    // reading each side while the other is full, and lose nothing when it starts again.
    void largeTransfersBothWaysAtOnce() {
        const QByteArray fromClient = randomBytes(kLargeTransfer, 1);
        const QByteArray fromServer = randomBytes(kLargeTransfer, 2);
        std::promise<QByteArray> serverReceived;
        UnixServer server(socketPath(), [&](UniqueFd fd) {
            std::thread writer([&] {
                sendAll(fd.get(), fromServer);
                ::shutdown(fd.get(), SHUT_WR);
            });
            serverReceived.set_value(sha256(readToEnd(fd.get()).bytes));
            writer.join();
        });
        auto forwarder = startForwarder();
        QVERIFY(forwarder);

        auto client = connectTo(forwarder->port());
        QVERIFY(client.valid());
        std::thread writer([&] {
            sendAll(client.get(), fromClient);
            ::shutdown(client.get(), SHUT_WR);
        });
        const Received received = readToEnd(client.get());
        writer.join();
        QCOMPARE(received.end, End::Eof);
        QCOMPARE(received.bytes.size(), kLargeTransfer);
        QCOMPARE(sha256(received.bytes), sha256(fromServer));
        auto serverHash = serverReceived.get_future();
        QVERIFY(serverHash.wait_for(kWaitLimit) == std::future_status::ready);
        QCOMPARE(serverHash.get(), sha256(fromClient));
    }

    // A client that stops reading must stop the forwarder reading from the server (and the other way):
    // what the forwarder holds stays bounded. The client writes until it cannot, the server not reading.
    void aStalledReaderStopsTheWriter() {
        std::promise<void> startReading;
        std::promise<std::pair<qint64, QByteArray>> serverReceived;
        UnixServer server(socketPath(), [&](UniqueFd fd) {
            if (startReading.get_future().wait_for(kWaitLimit) != std::future_status::ready)
                return;
            const QByteArray bytes = readToEnd(fd.get()).bytes;
            serverReceived.set_value({bytes.size(), sha256(bytes)});
        });
        auto forwarder = startForwarder();
        QVERIFY(forwarder);
        auto client = connectTo(forwarder->port());
        QVERIFY(client.valid());

        // The kernel buffers on the way (the client's send buffer, the forwarder's receive buffer, the Unix
        // socket) may hold this much; a forwarder that buffered without bound would take the whole cap.
        const qint64 kernelBuffers = sysctlMax("/proc/sys/net/ipv4/tcp_rmem") +
                                     sysctlMax("/proc/sys/net/ipv4/tcp_wmem") + 8 * 1024 * 1024;
        const qint64 cap = kernelBuffers + 16 * 1024 * 1024;
        QCryptographicHash sent(QCryptographicHash::Sha256);
        qint64 total = 0;
        QRandomGenerator generator(3);
        QByteArray chunk(64 * 1024, Qt::Uninitialized);
        qsizetype offset = chunk.size();
        bool stalled = false;
        while (total < cap) {
            if (offset == chunk.size()) {
                generator.fillRange(reinterpret_cast<quint32*>(chunk.data()), chunk.size() / 4);
                offset = 0;
            }
            const ssize_t n =
                ::send(client.get(), chunk.constData() + offset,
                       static_cast<std::size_t>(chunk.size() - offset), MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) {
                sent.addData(QByteArrayView(chunk.constData() + offset, n));
                offset += n;
                total += n;
                continue;
            }
            QVERIFY2(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), strerror(errno));
            // Quiescence, not synchronisation: a bounded forwarder stops taking bytes for good, so no room
            // for a second means it has stopped. On a slow machine this ends early, which only weakens the
            // test.
            pollfd writable{client.get(), POLLOUT, 0};
            if (::poll(&writable, 1, 1000) == 0) {
                stalled = true;
                break;
            }
        }
        QVERIFY2(
            stalled,
            qPrintable(QStringLiteral("the forwarder took %1 bytes without the server reading").arg(total)));
        QVERIFY(total < kernelBuffers);

        startReading.set_value();
        QVERIFY(sendAll(client.get(), chunk.constData() + offset, chunk.size() - offset));
        sent.addData(QByteArrayView(chunk.constData() + offset, chunk.size() - offset));
        total += chunk.size() - offset;
        ::shutdown(client.get(), SHUT_WR);
        auto received = serverReceived.get_future();
        QVERIFY(received.wait_for(kWaitLimit) == std::future_status::ready);
        const auto [count, hash] = received.get();
        QCOMPARE(count, total);
        QCOMPARE(hash, sent.result());
    }

    // HTTP/1.0-style: the client ends its request with a half-close and still reads the answer.
    void halfCloseIsPassedOnAndTheAnswerStillArrives() {
        std::promise<Received> serverReceived;
        UnixServer server(socketPath(), [&](UniqueFd fd) {
            serverReceived.set_value(readToEnd(fd.get()));
            sendAll(fd.get(), QByteArrayLiteral("HTTP/1.0 200 OK\r\n\r\nanswer"));
        });
        auto forwarder = startForwarder();
        QVERIFY(forwarder);
        auto client = connectTo(forwarder->port());
        QVERIFY(client.valid());
        QVERIFY(sendAll(client.get(), QByteArrayLiteral("GET / HTTP/1.0\r\n\r\n")));
        ::shutdown(client.get(), SHUT_WR);

        auto request = serverReceived.get_future();
        QVERIFY(request.wait_for(kWaitLimit) == std::future_status::ready);
        const Received atServer = request.get();
        QCOMPARE(atServer.end, End::Eof);
        QCOMPARE(atServer.bytes, QByteArrayLiteral("GET / HTTP/1.0\r\n\r\n"));
        const Received atClient = readToEnd(client.get());
        QCOMPARE(atClient.end, End::Eof);
        QCOMPARE(atClient.bytes, QByteArrayLiteral("HTTP/1.0 200 OK\r\n\r\nanswer"));
    }

    void manyConnectionsAtOnceEachGetItsOwnBytes() {
        UnixServer server(socketPath(), echo);
        auto forwarder = startForwarder();
        QVERIFY(forwarder);
        constexpr int kClients = 50;
        std::vector<UniqueFd> clients;
        for (int i = 0; i < kClients; ++i) {
            clients.push_back(connectTo(forwarder->port()));
            QVERIFY(clients.back().valid());
        }
        QTRY_COMPARE_WITH_TIMEOUT(server.accepted(), kClients, kIoTimeoutSeconds * 1000);
        for (int i = 0; i < kClients; ++i)
            QVERIFY(sendAll(clients[static_cast<std::size_t>(i)].get(),
                            QByteArray("client ").append(QByteArray::number(i)).repeated(100)));
        for (int i = 0; i < kClients; ++i)
            ::shutdown(clients[static_cast<std::size_t>(i)].get(), SHUT_WR);
        for (int i = 0; i < kClients; ++i) {
            const Received received = readToEnd(clients[static_cast<std::size_t>(i)].get());
            QCOMPARE(received.end, End::Eof);
            QCOMPARE(received.bytes, QByteArray("client ").append(QByteArray::number(i)).repeated(100));
        }
    }

    void aMissingSocketClosesOnlyThatClient() {
        auto forwarder = startForwarder(); // the proxy is not there yet
        QVERIFY(forwarder);
        auto refused = connectTo(forwarder->port());
        QVERIFY(refused.valid());
        const Received nothing = readToEnd(refused.get());
        QVERIFY(nothing.end != End::TimedOut);
        QVERIFY(nothing.bytes.isEmpty());

        UnixServer server(socketPath(), echo);
        QVERIFY(server.listening());
        auto client = connectTo(forwarder->port());
        QVERIFY(client.valid());
        QVERIFY(sendAll(client.get(), QByteArrayLiteral("still serving")));
        ::shutdown(client.get(), SHUT_WR);
        const Received received = readToEnd(client.get());
        QCOMPARE(received.end, End::Eof);
        QCOMPARE(received.bytes, QByteArrayLiteral("still serving"));
    }

    void theServerClosingFirstEndsTheClient() {
        UnixServer server(socketPath(), [](UniqueFd fd) { sendAll(fd.get(), QByteArrayLiteral("bye")); });
        auto forwarder = startForwarder();
        QVERIFY(forwarder);
        auto client = connectTo(forwarder->port());
        QVERIFY(client.valid());
        const Received received = readToEnd(client.get());
        QCOMPARE(received.end, End::Eof);
        QCOMPARE(received.bytes, QByteArrayLiteral("bye"));
    }

    // A proxy refusing an upload answers and closes without reading the body: the client still gets the
    // answer, not only a reset.
    void anAnswerBeforeTheRequestEndsIsDelivered() {
        const QByteArray refusal = QByteArrayLiteral("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
        UnixServer server(socketPath(), [&](UniqueFd fd) {
            readExactly(fd.get(), 16);
            sendAll(fd.get(), refusal);
        });
        auto forwarder = startForwarder();
        QVERIFY(forwarder);
        auto client = connectTo(forwarder->port());
        QVERIFY(client.valid());
        QVERIFY(sendAll(client.get(), QByteArrayLiteral("POST / HTTP/1.1\r\n")));
        QCOMPARE(readExactly(client.get(), refusal.size()), refusal);
        // The upload goes on for a while; its bytes go nowhere, and the client learns the connection is over.
        for (int i = 0; i < 64; ++i)
            if (!sendAll(client.get(), randomBytes(64 * 1024, static_cast<quint32>(i))))
                break;
        ::shutdown(client.get(), SHUT_WR);
        QVERIFY(readToEnd(client.get()).end != End::TimedOut);
    }

    void destroyingClosesConnectionsAndFreesThePort() {
        std::atomic<bool> requestArrived{false};
        UnixServer server(socketPath(), [&](UniqueFd fd) {
            if (readExactly(fd.get(), 5) == "hello")
                requestArrived = true;
            readToEnd(fd.get());
        });
        auto forwarder = startForwarder();
        QVERIFY(forwarder);
        const std::uint16_t port = forwarder->port();
        auto client = connectTo(port);
        QVERIFY(client.valid());
        QVERIFY(sendAll(client.get(), QByteArrayLiteral("hello")));
        QTRY_VERIFY_WITH_TIMEOUT(requestArrived.load(), kIoTimeoutSeconds * 1000);

        forwarder.reset();
        QVERIFY(readToEnd(client.get()).end != End::TimedOut);
        auto again = EgressForwarder::start(socketPathString(), port);
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        QCOMPARE((*again)->port(), port);
    }

    void listensOnLoopbackOnly() {
        auto forwarder = startForwarder();
        QVERIFY(forwarder);
        int listeners = 0;
        for (int fd : openDescriptors()) {
            sockaddr_in address{};
            socklen_t length = sizeof address;
            int accepting = 0;
            socklen_t flagLength = sizeof accepting;
            if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) < 0 ||
                address.sin_family != AF_INET || ntohs(address.sin_port) != forwarder->port() ||
                ::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &flagLength) < 0 || !accepting)
                continue;
            ++listeners;
            QCOMPARE(ntohl(address.sin_addr.s_addr), static_cast<std::uint32_t>(INADDR_LOOPBACK));
        }
        QCOMPARE(listeners, 1);
    }

    // Tools started later must not inherit the forwarder's sockets (nor could they close them for it).
    void everyDescriptorIsCloseOnExec() {
        const std::set<int> before = openDescriptors();
        UnixServer server(socketPath(), echo);
        auto forwarder = startForwarder();
        QVERIFY(forwarder);
        auto client = connectTo(forwarder->port());
        QVERIFY(client.valid());
        QVERIFY(sendAll(client.get(), QByteArrayLiteral("ping")));
        QCOMPARE(readExactly(client.get(), 4), QByteArrayLiteral("ping")); // the pair is connected now

        int added = 0;
        for (int fd : openDescriptors()) {
            if (before.count(fd))
                continue;
            const int flags = ::fcntl(fd, F_GETFD);
            ++added;
            QVERIFY2(flags & FD_CLOEXEC,
                     qPrintable(QStringLiteral("descriptor %1 is inherited by exec").arg(fd)));
        }
        // The test's own (server, client) and the forwarder's listener, wake-up and connection pair.
        QVERIFY(added >= 8);
    }

    void aTakenPortIsAnError() {
        UniqueFd taken(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QVERIFY(::bind(taken.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
        QVERIFY(::listen(taken.get(), 1) == 0);
        socklen_t length = sizeof address;
        QVERIFY(::getsockname(taken.get(), reinterpret_cast<sockaddr*>(&address), &length) == 0);
        const std::uint16_t port = ntohs(address.sin_port);

        auto forwarder = EgressForwarder::start(socketPathString(), port);
        QVERIFY(!forwarder.ok());
        QVERIFY2(forwarder.error().message.find("127.0.0.1:" + std::to_string(port)) != std::string::npos,
                 forwarder.error().message.c_str());
    }

    // A cluster's pod: each connection goes to the control plane's TCP listener, its model stream's hello
    // first, then the client's bytes, and the answer comes back; a listener that refuses closes only that
    // client.
    void aTcpTargetGetsTheHelloBeforeTheClientsBytes() {
        UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        QVERIFY(::bind(listener.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
        QVERIFY(::listen(listener.get(), 8) == 0);
        QVERIFY(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) == 0);
        const std::uint16_t port = ntohs(address.sin_port);

        auto control = warren::agent::parseControlAddress("tcp:127.0.0.1:" + std::to_string(port));
        QVERIFY(control);
        auto target = warren::agent::modelStreamTarget(*control, "the-task-token");
        QVERIFY2(target, target ? "" : target.error().message.c_str());
        const std::string hello =
            warren::protocol::helloLine("the-task-token", warren::protocol::HelloStream::Model);
        QCOMPARE(target->preamble, hello);
        auto forwarder = EgressForwarder::start(*target, 0);
        QVERIFY2(forwarder, forwarder ? "" : forwarder.error().message.c_str());

        const QByteArray request = "POST /v1/messages HTTP/1.1\r\n\r\n";
        auto served = std::async(std::launch::async, [&] {
            UniqueFd connection(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
            setIoTimeouts(connection.get());
            const QByteArray got = readExactly(connection.get(), qsizetype(hello.size()) + request.size());
            sendAll(connection.get(), "HTTP/1.1 200 OK\r\n\r\n", 19);
            return got;
        });
        UniqueFd client = connectTo((*forwarder)->port());
        QVERIFY(client.valid());
        QVERIFY(sendAll(client.get(), request.constData(), request.size()));
        QCOMPARE(served.wait_for(kWaitLimit), std::future_status::ready);
        QCOMPARE(served.get(), QByteArray::fromStdString(hello) + request);
        const Received answer = readToEnd(client.get());
        QCOMPARE(answer.bytes, QByteArray("HTTP/1.1 200 OK\r\n\r\n"));

        listener.reset(); // nobody listens there now: the next client is closed, the forwarder goes on
        UniqueFd refused = connectTo((*forwarder)->port());
        QVERIFY(refused.valid());
        const Received nothing = readToEnd(refused.get());
        QVERIFY(nothing.bytes.isEmpty());
        QVERIFY(nothing.end != End::TimedOut);
    }

    void aTcpTargetIsOnlyForATcpControlPlane() {
        auto control = warren::agent::parseControlAddress("unix:/run/agent.sock");
        QVERIFY(control);
        auto target = warren::agent::modelStreamTarget(*control, "t");
        QVERIFY(!target);
        QCOMPARE(target.error().code, warren::ErrorCode::InvalidArgument);
    }

    void anOverlongSocketPathIsAnError() {
        auto forwarder = EgressForwarder::start("/" + std::string(200, 's'), 0);
        QVERIFY(!forwarder.ok());
        QCOMPARE(forwarder.error().code, warren::ErrorCode::InvalidArgument);
    }
};

QTEST_GUILESS_MAIN(TestEgressForwarder)
#include "tst_egress_forwarder.moc"
