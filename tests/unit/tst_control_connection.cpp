// The agent's side of `serve --connect`: the address it is given (parsed strictly, every bad form named), the
// token file (one line, bounded), the hello (exactly what the control plane reads back), and a real connection
// to a Unix socket that appears only after the agent started trying.

#include "agent_core/net/ControlConnection.h"
#include "agent_core/protocol/AgentHello.h"
#include "agent_core/protocol/Methods.h"

#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <future>
#include <sys/socket.h>
#include <sys/un.h>

using namespace warren;
using namespace warren::agent;

class TestControlConnection : public QObject {
    Q_OBJECT
private slots:
    void addresses_data();
    void addresses();
    void badAddresses_data();
    void badAddresses();
    void helloRoundTrips();
    void badHellos_data();
    void badHellos();
    void tokenFiles_data();
    void tokenFiles();
    void connectsOnceTheSocketAppearsAndSaysHello();
    void givesUpWithTheReason();
};

void TestControlConnection::addresses_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("unix");
    QTest::addColumn<QString>("pathOrHost");
    QTest::addColumn<int>("port");
    QTest::newRow("unix socket") << "unix:/opt/warren/channel/agent.sock" << true << "/opt/warren/channel/agent.sock" << 0;
    QTest::newRow("service name") << "tcp:warrend.warren.svc:8421" << false << "warrend.warren.svc" << 8421;
    QTest::newRow("IPv4") << "tcp:10.0.0.7:1" << false << "10.0.0.7" << 1;
    QTest::newRow("IPv6") << "tcp:[fd00::7]:65535" << false << "fd00::7" << 65535;
}

void TestControlConnection::addresses() {
    QFETCH(QString, text);
    QFETCH(bool, unix);
    QFETCH(QString, pathOrHost);
    QFETCH(int, port);
    auto address = parseControlAddress(text.toStdString());
    QVERIFY2(address, address ? "" : address.error().message.c_str());
    QCOMPARE(address->kind == ControlAddress::Kind::Unix, unix);
    QCOMPARE(QString::fromStdString(unix ? address->path : address->host), pathOrHost);
    QCOMPARE(int(address->port), port);
    QCOMPARE(QString::fromStdString(describe(*address)), text); // messages name it as the user wrote it
}

void TestControlConnection::badAddresses_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("error");
    QTest::newRow("no kind") << "/run/agent.sock" << "unknown kind of address";
    QTest::newRow("http") << "http://warrend:8421" << "unknown kind of address";
    QTest::newRow("relative socket") << "unix:agent.sock" << "absolute";
    QTest::newRow("empty socket") << "unix:" << "absolute";
    QTest::newRow("socket path too long") << "unix:/" + QString(120, 'a') << "too long";
    QTest::newRow("no port") << "tcp:warrend" << "HOST:PORT";
    QTest::newRow("no host") << "tcp::8421" << "HOST:PORT";
    QTest::newRow("port 0") << "tcp:warrend:0" << "1 to 65535";
    QTest::newRow("port too big") << "tcp:warrend:65536" << "1 to 65535";
    QTest::newRow("port not a number") << "tcp:warrend:http" << "1 to 65535";
    QTest::newRow("port with a sign") << "tcp:warrend:+80" << "1 to 65535";
    QTest::newRow("bare IPv6") << "tcp:fd00::7:80" << "[ADDRESS]";
    QTest::newRow("unclosed IPv6") << "tcp:[fd00::7:80" << "[ADDRESS]";
    QTest::newRow("user in the host") << "tcp:me@warrend:80" << "no host name has";
    QTest::newRow("space in the host") << "tcp:warrend x:80" << "no host name has";
}

void TestControlConnection::badAddresses() {
    QFETCH(QString, text);
    QFETCH(QString, error);
    auto address = parseControlAddress(text.toStdString());
    QVERIFY(!address);
    const QString message = QString::fromStdString(address.error().message);
    QVERIFY2(message.contains(error) && message.contains("unix:PATH or tcp:HOST:PORT"), qPrintable(message));
}

void TestControlConnection::helloRoundTrips() {
    const std::string line = protocol::helloLine("tok.en-_1");
    QVERIFY(line.ends_with('\n'));
    QCOMPARE(std::count(line.begin(), line.end(), '\n'), 1);
    auto hello = protocol::parseHello(std::string_view(line).substr(0, line.size() - 1));
    QVERIFY2(hello, hello ? "" : hello.error().message.c_str());
    QCOMPARE(QString::fromStdString(hello->token), QStringLiteral("tok.en-_1"));
    QCOMPARE(hello->protocolVersion, protocol::kProtocolVersion);
    QVERIFY(hello->stream == protocol::HelloStream::Protocol);
    QVERIFY(line.find("stream") == std::string::npos); // as agents before model streams said it

    // A CLI's model call on a cluster: the same hello, its stream named.
    const std::string model = protocol::helloLine("tok.en-_1", protocol::HelloStream::Model);
    auto modelHello = protocol::parseHello(std::string_view(model).substr(0, model.size() - 1));
    QVERIFY2(modelHello, modelHello ? "" : modelHello.error().message.c_str());
    QVERIFY(modelHello->stream == protocol::HelloStream::Model);
    QCOMPARE(QString::fromStdString(modelHello->token), QStringLiteral("tok.en-_1"));
    auto named = protocol::parseHello(
        R"({"jsonrpc":"2.0","method":"agent.hello","params":{"token":"t","protocol_version":)" +
        std::to_string(protocol::kProtocolVersion) + R"(,"stream":"protocol"}})");
    QVERIFY(named && named->stream == protocol::HelloStream::Protocol);
}

void TestControlConnection::badHellos_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("error");
    const QString version = QString::number(protocol::kProtocolVersion);
    QTest::newRow("not JSON") << "GET / HTTP/1.1" << "not a protocol message";
    QTest::newRow("another notification") << R"({"jsonrpc":"2.0","method":"event","params":{}})" << "agent.hello";
    QTest::newRow("a request") << R"({"jsonrpc":"2.0","id":1,"method":"agent.hello","params":{"token":"t","protocol_version":)" + version + "}}"
                               << "agent.hello notification";
    QTest::newRow("no token") << R"({"jsonrpc":"2.0","method":"agent.hello","params":{"protocol_version":)" + version + "}}" << "exactly";
    QTest::newRow("token not a string") << R"({"jsonrpc":"2.0","method":"agent.hello","params":{"token":1,"protocol_version":)" + version + "}}"
                                        << "exactly";
    QTest::newRow("an extra member") << R"({"jsonrpc":"2.0","method":"agent.hello","params":{"token":"t","protocol_version":)" + version +
                                            R"(,"task":"t-1"}})" << "exactly";
    QTest::newRow("an unknown stream")
        << R"({"jsonrpc":"2.0","method":"agent.hello","params":{"token":"t","protocol_version":)" + version +
               R"(,"stream":"files"}})"
        << "stream";
    QTest::newRow("a stream not a string")
        << R"({"jsonrpc":"2.0","method":"agent.hello","params":{"token":"t","protocol_version":)" + version +
               R"(,"stream":1}})"
        << "stream";
    QTest::newRow("a stream and an extra member")
        << R"({"jsonrpc":"2.0","method":"agent.hello","params":{"token":"t","protocol_version":)" + version +
               R"(,"stream":"model","task":"t-1"}})"
        << "exactly";
    QTest::newRow("negative version") << R"({"jsonrpc":"2.0","method":"agent.hello","params":{"token":"t","protocol_version":-2}})" << "exactly";
    QTest::newRow("another version") << R"({"jsonrpc":"2.0","method":"agent.hello","params":{"token":"t","protocol_version":99}})"
                                     << "install matching versions";
}

void TestControlConnection::badHellos() {
    QFETCH(QString, line);
    QFETCH(QString, error);
    auto hello = protocol::parseHello(line.toStdString());
    QVERIFY(!hello);
    QVERIFY2(QString::fromStdString(hello.error().message).contains(error), hello.error().message.c_str());
}

void TestControlConnection::tokenFiles_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("tokenOrError");
    QTest::newRow("with its newline") << QByteArray("abc.def\n") << "abc.def";
    QTest::newRow("without") << QByteArray("abc.def") << "abc.def";
    QTest::newRow("CRLF") << QByteArray("abc.def\r\n") << "abc.def";
    QTest::newRow("empty") << QByteArray() << "error:is empty";
    QTest::newRow("only a newline") << QByteArray("\n") << "error:is empty";
    QTest::newRow("two lines") << QByteArray("abc\ndef\n") << "error:one line";
    QTest::newRow("a space") << QByteArray("abc def") << "error:one line";
    QTest::newRow("binary") << QByteArray("abc\0def", 7) << "error:one line";
    QTest::newRow("over 4 KiB") << QByteArray(5000, 'a') << "error:over 4 KiB";
}

void TestControlConnection::tokenFiles() {
    QFETCH(QByteArray, content);
    QFETCH(QString, tokenOrError);
    QTemporaryDir dir;
    const std::string path = dir.filePath("token").toStdString();
    std::ofstream(path, std::ios::binary).write(content.constData(), content.size());
    auto token = readTokenFile(path);
    if (tokenOrError.startsWith("error:")) {
        QVERIFY(!token);
        QVERIFY2(QString::fromStdString(token.error().message).contains(tokenOrError.mid(6)),
                 token.error().message.c_str());
        QVERIFY(QString::fromStdString(token.error().message).contains(QString::fromStdString(path)));
    } else {
        QVERIFY2(token, token ? "" : token.error().message.c_str());
        QCOMPARE(QString::fromStdString(*token), tokenOrError);
    }
    QVERIFY(!readTokenFile(dir.filePath("missing").toStdString()));
}

// The control plane starts listening after the agent began trying: the agent waits for it, then the first line
// on the connection is its hello.
void TestControlConnection::connectsOnceTheSocketAppearsAndSaysHello() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("agent.sock").toStdString();
    auto address = parseControlAddress("unix:" + path);
    QVERIFY(address);
    auto connecting = std::async(std::launch::async, [&] {
        return connectToControlPlane(*address, "the-token", std::chrono::seconds(60));
    });
    // The agent is trying meanwhile (it finds no socket, and tries again).
    QVERIFY(connecting.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);
    UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un where{};
    where.sun_family = AF_UNIX;
    std::memcpy(where.sun_path, path.c_str(), path.size() + 1);
    QCOMPARE(::bind(listener.get(), reinterpret_cast<const sockaddr*>(&where), sizeof where), 0);
    QCOMPARE(::listen(listener.get(), 1), 0);
    UniqueFd accepted(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
    QVERIFY(accepted.valid());
    auto connected = connecting.get();
    QVERIFY2(connected, connected ? "" : connected.error().message.c_str());
    std::string received;
    char c = 0;
    while (::recv(accepted.get(), &c, 1, 0) == 1 && c != '\n')
        received += c;
    auto hello = protocol::parseHello(received);
    QVERIFY2(hello, hello ? "" : hello.error().message.c_str());
    QCOMPARE(QString::fromStdString(hello->token), QStringLiteral("the-token"));
    // The connection is the protocol's now, both ways.
    QCOMPARE(::send(accepted.get(), "x\n", 2, MSG_NOSIGNAL), ssize_t(2));
    char reply[2] = {};
    QCOMPARE(::recv(connected->get(), reply, 2, MSG_WAITALL), ssize_t(2));
    QCOMPARE(reply[0], 'x');
}

void TestControlConnection::givesUpWithTheReason() {
    QTemporaryDir dir;
    auto address = parseControlAddress("unix:" + dir.filePath("nobody.sock").toStdString());
    QVERIFY(address);
    auto connected = connectToControlPlane(*address, "t", std::chrono::milliseconds(200));
    QVERIFY(!connected);
    const QString message = QString::fromStdString(connected.error().message);
    QVERIFY2(message.contains("cannot reach the control plane at unix:") && message.contains("No such file"),
             qPrintable(message));
}

QTEST_GUILESS_MAIN(TestControlConnection)
#include "tst_control_connection.moc"
