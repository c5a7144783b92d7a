// Network isolation, attacked for real: the sandbox tries to reach servers this test runs on the host
// (TCP on the host's loopback, unix sockets in the filesystem and in the abstract namespace) and a public
// address, under both network policies. Nothing here sends traffic off this machine: the probe only asks
// the kernel for a route to a public address (a UDP connect, which sends nothing).

#include "tests/support/SandboxRun.h"

#include <QtTest>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace warren::test;

namespace {

// A listening socket on the host; closes itself.
class HostListener {
public:
    ~HostListener()
    {
        if (m_fd >= 0)
            close(m_fd);
    }

    // TCP on 127.0.0.1 or ::1, on a port the kernel picks.
    bool listenTcp(int family)
    {
        m_fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (m_fd < 0)
            return false;
        sockaddr_storage address{};
        socklen_t length = 0;
        if (family == AF_INET) {
            auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
            v4->sin_family = AF_INET;
            v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            length = sizeof *v4;
        } else {
            auto* v6 = reinterpret_cast<sockaddr_in6*>(&address);
            v6->sin6_family = AF_INET6;
            v6->sin6_addr = in6addr_loopback;
            length = sizeof *v6;
        }
        if (bind(m_fd, reinterpret_cast<sockaddr*>(&address), length) != 0 || listen(m_fd, 16) != 0)
            return false;
        if (getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
            return false;
        m_port = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&address)->sin_port
                                         : reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
        return true;
    }

    // A unix stream socket at PATH, or in the abstract namespace for "@NAME".
    bool listenUnix(const QByteArray& name)
    {
        m_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (m_fd < 0)
            return false;
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (static_cast<size_t>(name.size()) >= sizeof address.sun_path)
            return false;
        memcpy(address.sun_path, name.constData(), static_cast<size_t>(name.size()));
        auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + static_cast<size_t>(name.size()));
        if (name.startsWith('@'))
            address.sun_path[0] = '\0';
        else
            length += 1;
        return bind(m_fd, reinterpret_cast<sockaddr*>(&address), length) == 0 && listen(m_fd, 16) == 0;
    }

    quint16 port() const { return m_port; }

    // Whether a connection is waiting to be accepted. A connect() from the sandbox that got through is
    // queued before the probe even prints its verdict, so asking after the run is not a race.
    bool hasPendingConnection() const
    {
        pollfd waiting{m_fd, POLLIN, 0};
        return poll(&waiting, 1, 0) == 1;
    }

private:
    int m_fd = -1;
    quint16 m_port = 0;
};

const QStringList kNetworkNone{QStringLiteral("--network"), QStringLiteral("none")};
const QStringList kNetworkLoopback{QStringLiteral("--network"), QStringLiteral("loopback")};

} // namespace

class TestSandboxNetwork : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void hostLoopbackListenerUnreachable_data();
    void hostLoopbackListenerUnreachable();
    void publicAddressUnreachable_data();
    void publicAddressUnreachable();
    void networkNoneRefusesInetSockets_data();
    void networkNoneRefusesInetSockets();
    void hostUnixSocketUnreachable_data();
    void hostUnixSocketUnreachable();
    void loopbackPolicyGivesWorkingLoopback();

private:
    std::unique_ptr<Workspace> m_workspace;
};

void TestSandboxNetwork::initTestCase()
{
    const QString problem = sandboxUnusable();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestSandboxNetwork::init()
{
    m_workspace = std::make_unique<Workspace>();
    QVERIFY(m_workspace->isValid());
    QVERIFY(m_workspace->installProbe());
}

void TestSandboxNetwork::hostLoopbackListenerUnreachable_data()
{
    QTest::addColumn<int>("family");
    QTest::addColumn<QStringList>("policy");

    // The host's loopback is where local databases, dev servers, the Docker API over TCP and Warren's
    // own control plane listen: the sandbox must not reach any of them, under either policy.
    QTest::newRow("127.0.0.1, network none") << int(AF_INET) << kNetworkNone;
    QTest::newRow("127.0.0.1, network loopback") << int(AF_INET) << kNetworkLoopback;
    QTest::newRow("::1, network none") << int(AF_INET6) << kNetworkNone;
    QTest::newRow("::1, network loopback") << int(AF_INET6) << kNetworkLoopback;
}

void TestSandboxNetwork::hostLoopbackListenerUnreachable()
{
    QFETCH(int, family);
    QFETCH(QStringList, policy);

    HostListener listener;
    if (!listener.listenTcp(family)) {
        if (family == AF_INET6)
            QSKIP("the host has no IPv6 loopback to listen on");
        QFAIL(qPrintable(QStringLiteral("cannot listen on the host loopback: %1").arg(QString::fromLocal8Bit(strerror(errno)))));
    }
    const QString host = family == AF_INET ? QStringLiteral("127.0.0.1") : QStringLiteral("::1");
    const RunOutcome outcome = m_workspace->probe({QStringLiteral("connect-tcp"), host, QString::number(listener.port())}, policy);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY2(!listener.hasPendingConnection(), "the host listener received a connection from the sandbox");
}

void TestSandboxNetwork::publicAddressUnreachable_data()
{
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("address");
    QTest::addColumn<QStringList>("policy");

    for (const auto& [policyName, policy] : {std::pair{"none", kNetworkNone}, std::pair{"loopback", kNetworkLoopback}}) {
        for (const char* address : {"1.1.1.1", "2606:4700:4700::1111"}) {
            // connect-tcp to an address off this machine only checks for a route and never sends a SYN.
            for (const char* action : {"connect-udp", "connect-tcp"}) {
                QTest::addRow("%s %s:53, network %s", action, address, policyName)
                    << QString::fromLatin1(action) << QString::fromLatin1(address) << policy;
            }
        }
    }
}

void TestSandboxNetwork::publicAddressUnreachable()
{
    QFETCH(QString, action);
    QFETCH(QString, address);
    QFETCH(QStringList, policy);

    const RunOutcome outcome = m_workspace->probe({action, address, QStringLiteral("53")}, policy);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
}

void TestSandboxNetwork::networkNoneRefusesInetSockets_data()
{
    QTest::addColumn<QString>("address");

    QTest::newRow("IPv4") << QStringLiteral("127.0.0.1");
    QTest::newRow("IPv6") << QStringLiteral("::1");
}

// "none" means no IP networking at all, not merely an empty namespace: creating the socket fails, so the
// failure is a permission error rather than "connection refused" on the sandbox's own loopback.
void TestSandboxNetwork::networkNoneRefusesInetSockets()
{
    QFETCH(QString, address);

    const RunOutcome outcome = m_workspace->probe({QStringLiteral("connect-tcp"), address, QStringLiteral("9")}, kNetworkNone);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    const QStringList refusals{QStringLiteral("errno EPERM"), QStringLiteral("errno EACCES"), QStringLiteral("errno EAFNOSUPPORT")};
    QVERIFY2(refusals.contains(outcome.verdict()), qPrintable(outcome.describe()));
}

void TestSandboxNetwork::hostUnixSocketUnreachable_data()
{
    QTest::addColumn<bool>("abstract");
    QTest::addColumn<QStringList>("policy");

    // A socket file outside the workspace (like /run/docker.sock, the session D-Bus, an X11 or
    // Wayland socket): not mounted, so not reachable by path.
    QTest::newRow("socket file, network none") << false << kNetworkNone;
    QTest::newRow("socket file, network loopback") << false << kNetworkLoopback;
    // Abstract sockets are scoped by network namespace, not by the filesystem (X11 listens on
    // @/tmp/.X11-unix/X0): only a separate network namespace keeps them out of reach.
    QTest::newRow("abstract socket, network none") << true << kNetworkNone;
    QTest::newRow("abstract socket, network loopback") << true << kNetworkLoopback;
}

void TestSandboxNetwork::hostUnixSocketUnreachable()
{
    QFETCH(bool, abstract);
    QFETCH(QStringList, policy);

    QTemporaryDir outside;
    QVERIFY(outside.isValid());
    const QByteArray name = abstract
        ? QByteArray("@warren-itest-") + QByteArray::number(QCoreApplication::applicationPid()) + '-'
              + QByteArray::number(QRandomGenerator::global()->generate())
        : QFile::encodeName(outside.filePath(QStringLiteral("host.sock")));
    HostListener listener;
    QVERIFY2(listener.listenUnix(name), strerror(errno));

    const RunOutcome outcome = m_workspace->probe({QStringLiteral("connect-unix"), QString::fromLocal8Bit(name)}, policy);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY2(!listener.hasPendingConnection(), "the host's unix socket received a connection from the sandbox");
}

// The isolation above must not come from a broken network stack: under "loopback" a server and a client
// inside the sandbox talk to each other over 127.0.0.1.
void TestSandboxNetwork::loopbackPolicyGivesWorkingLoopback()
{
    if (!QFileInfo(QStringLiteral("/usr/bin/python3")).isExecutable())
        QSKIP("needs /usr/bin/python3 to run a server inside the sandbox");
    const QString script = QStringLiteral(
        "import socket\n"
        "server = socket.socket()\n"
        "server.bind(('127.0.0.1', 0))\n"
        "server.listen(1)\n"
        "client = socket.create_connection(server.getsockname(), timeout=10)\n"
        "peer, _ = server.accept()\n"
        "client.sendall(b'over loopback')\n"
        "print(peer.recv(64).decode())\n");
    const RunOutcome outcome = m_workspace->run({QStringLiteral("python3"), QStringLiteral("-c"), script}, kNetworkLoopback);
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(outcome.verdict(), QStringLiteral("over loopback"));
}

QTEST_GUILESS_MAIN(TestSandboxNetwork)
#include "tst_sandbox_network.moc"
