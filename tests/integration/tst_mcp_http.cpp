// Remote MCP servers as warren-agent reaches them (McpHttpConnection over HttpExchange): the reference server
// of the MCP project (@modelcontextprotocol/server-everything, $WARREN_TEST_MCP_EVERYTHING; skipped without)
// over both of its HTTP transports, streamable HTTP and HTTP+SSE, lists its tools and answers calls; a fake
// (tests/fixtures/mcp/http-server.js, Node.js) shows the session and version headers, the server's own
// request in an answer's event stream answered, and each hostile behaviour (a refusal, garbage, silence, an
// endless event, a session that ends, an endpoint on another origin, a wrong content type) becoming a clear
// error by its deadline, never a crash or a hang. These connect directly; through the sandbox's egress proxy
// they are tried by tst_control_mcp. No sleeps: the servers say where they listen on their output.

#include "agent_core/mcp/McpHttpConnection.h"
#include "agent_core/mcp/McpTool.h"
#include "tests/support/ServerProcess.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::agent;
using namespace std::chrono_literals;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using warren::test::freePort;
using warren::test::ServerProcess;

namespace {

Clock::time_point soon() {
    return Clock::now() + 30s; // no passing test comes near: a hang fails instead of blocking the suite
}

McpServer remote(const std::string& name, McpTransport transport, const std::string& url) {
    McpServer server;
    server.name = name;
    server.transport = transport;
    server.url = url;
    return server;
}

// The requests the fake logged: method, url, headers (lowercase names), body.
QList<QJsonObject> requestsIn(const QString& log) {
    QFile file(log);
    QList<QJsonObject> requests;
    if (!file.open(QIODevice::ReadOnly))
        return requests;
    for (const QByteArray& line : file.readAll().split('\n'))
        if (!line.isEmpty())
            requests << QJsonDocument::fromJson(line).object();
    return requests;
}

} // namespace

class TestMcpHttp : public QObject {
    Q_OBJECT

    QString m_node;
    QString m_fake; // tests/fixtures/mcp/http-server.js
    Cancellation m_noStop;
    QTemporaryDir m_dir;

    ToolEnv toolEnv(Clock::time_point deadline = soon()) {
        ToolEnv env;
        env.workspace = m_dir.path().toStdString();
        env.deadline = deadline;
        env.cancellation = &m_noStop;
        return env;
    }

    void startFake(ServerProcess& server, const QString& mode, const QString& log = {}) {
        QVERIFY(server.start(m_node, log.isEmpty() ? QStringList{m_fake, mode} : QStringList{m_fake, mode, log}, QProcessEnvironment::systemEnvironment(),
                             QProcess::StandardOutput, QRegularExpression("port ([0-9]+)")));
    }

    std::string fakeUrl(const ServerProcess& server, const char* path = "/mcp") {
        return "http://127.0.0.1:" + std::to_string(server.port) + path;
    }

    // server-everything (program) on a free port with transport ("streamableHttp" or "sse").
    void startEverything(ServerProcess& server, const QString& program, const QString& transport) {
        QVERIFY(server.startOnFreePort(program, {transport}, QProcessEnvironment::systemEnvironment(), "PORT",
                                       QProcess::StandardError, QRegularExpression("(?:listening on|running on) port")));
    }

    void checkEverything(McpHttpConnection& connection, ServerProcess& server) {
        auto info = connection.initialize(soon(), &m_noStop);
        QVERIFY2(info, info ? "" : (info.error().message + "; " + server.describe().toStdString()).c_str());
        QVERIFY(info->offersTools);
        auto listing = connection.listTools(soon(), &m_noStop);
        QVERIFY2(listing, listing ? "" : listing.error().message.c_str());
        std::vector<std::string> names;
        for (const auto& tool : listing->tools())
            names.push_back(tool.name);
        for (const char* expected : {"echo", "get-sum", "get-tiny-image"})
            QVERIFY2(std::find(names.begin(), names.end(), expected) != names.end(), expected);

        McpTool echo(connection, "echo", "mcp__everything__echo");
        const auto echoed = echo.run({{"message", "hello over http"}}, toolEnv());
        QVERIFY2(echoed.ok, echoed.output.c_str());
        QCOMPARE(echoed.output, std::string("Echo: hello over http"));
        McpTool sum(connection, "get-sum", "mcp__everything__get-sum");
        QCOMPARE(sum.run({{"a", 2}, {"b", 3}}, toolEnv()).output, std::string("The sum of 2 and 3 is 5."));
        McpTool image(connection, "get-tiny-image", "mcp__everything__get-tiny-image");
        const auto pictured = image.run(json::object(), toolEnv());
        QVERIFY2(QString::fromStdString(pictured.output).contains(QRegularExpression("\\[image: image/png, [0-9]+ bytes\\]")),
                 pictured.output.c_str());
        McpTool wrong(connection, "get-sum", "mcp__everything__get-sum");
        const auto refused = wrong.run({{"a", "two"}}, toolEnv());
        QVERIFY(!refused.ok);
        QVERIFY(connection.isOpen()); // a call the server refused leaves the connection usable
    }

    // initialize against the fake in mode fails with a message holding expected, by the deadline.
    void expectInitializeFails(const QString& mode, McpTransport transport, const char* path, const std::string& expected,
                               std::chrono::seconds deadline = 30s) {
        ServerProcess server;
        startFake(server, mode);
        auto connection = McpHttpConnection::open(remote("bad", transport, fakeUrl(server, path)), "");
        QVERIFY(connection);
        const auto started = Clock::now();
        auto info = (*connection)->initialize(Clock::now() + deadline, &m_noStop);
        QVERIFY(!info);
        QVERIFY2(info.error().message.find(expected) != std::string::npos, info.error().message.c_str());
        QVERIFY2(info.error().message.find("MCP server \"bad\"") != std::string::npos, info.error().message.c_str());
        QVERIFY(!(*connection)->isOpen());
        QVERIFY(Clock::now() - started < deadline + 10s);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_node = QStandardPaths::findExecutable("node");
        if (m_node.isEmpty())
            QSKIP("node (Node.js) is not on PATH: the MCP servers here are Node.js programs");
        m_fake = qEnvironmentVariable("WARREN_TEST_DATA") + "/mcp/http-server.js";
        QVERIFY2(QFile::exists(m_fake), qPrintable(m_fake));
    }

    void realServerEverythingOverStreamableHttp() {
        const QString program = qEnvironmentVariable("WARREN_TEST_MCP_EVERYTHING");
        if (program.isEmpty())
            QSKIP("set WARREN_TEST_MCP_EVERYTHING to @modelcontextprotocol/server-everything's mcp-server-everything");
        ServerProcess server;
        startEverything(server, program, "streamableHttp");
        auto connection = McpHttpConnection::open(
            remote("everything", McpTransport::Http, "http://127.0.0.1:" + std::to_string(server.port) + "/mcp"), "");
        QVERIFY(connection);
        checkEverything(**connection, server);
        (*connection)->close();
        QVERIFY(!(*connection)->isOpen());
    }

    void realServerEverythingOverSse() {
        const QString program = qEnvironmentVariable("WARREN_TEST_MCP_EVERYTHING");
        if (program.isEmpty())
            QSKIP("set WARREN_TEST_MCP_EVERYTHING to @modelcontextprotocol/server-everything's mcp-server-everything");
        ServerProcess server;
        startEverything(server, program, "sse");
        auto connection = McpHttpConnection::open(
            remote("everything", McpTransport::Sse, "http://127.0.0.1:" + std::to_string(server.port) + "/sse"), "");
        QVERIFY(connection);
        checkEverything(**connection, server);
        (*connection)->close();
    }

    // The session the server names comes back on each request, with the version agreed and the entry's own
    // headers; the server's ping inside an event stream is answered; DELETE ends the session on close.
    void sessionVersionAndHeaders() {
        ServerProcess server;
        const QString log = m_dir.filePath("requests.log");
        startFake(server, "ok", log);
        McpServer entry = remote("fake", McpTransport::Http, fakeUrl(server));
        entry.headers = {{"Authorization", "Bearer placeholder-1"}};
        auto connection = McpHttpConnection::open(entry, "");
        QVERIFY(connection);
        auto info = (*connection)->initialize(soon(), &m_noStop);
        QVERIFY2(info, info ? "" : info.error().message.c_str());
        auto listing = (*connection)->listTools(soon(), &m_noStop);
        QVERIFY2(listing, listing ? "" : listing.error().message.c_str());
        QCOMPARE(listing->tools().size(), std::size_t(1));
        McpTool echo(**connection, "echo", "mcp__fake__echo");
        QCOMPARE(echo.run({{"message", "hi"}}, toolEnv()).output, std::string("echo: hi (ping answered)"));
        (*connection)->close();

        const auto requests = requestsIn(log);
        // initialize, initialized, tools/list, the ping's answer, tools/call, DELETE
        QCOMPARE(requests.size(), qsizetype(6));
        QCOMPARE(QJsonDocument::fromJson(requests[3]["body"].toString().toUtf8()).object()["id"].toString(), QString("ping-1"));
        const QJsonObject first = requests.front();
        QCOMPARE(first["method"].toString(), QString("POST"));
        QVERIFY(!first["headers"].toObject().contains("mcp-session-id"));
        QCOMPARE(first["headers"].toObject()["authorization"].toString(), QString("Bearer placeholder-1"));
        QVERIFY(first["headers"].toObject()["accept"].toString().contains("text/event-stream"));
        for (qsizetype i = 1; i < requests.size(); ++i) {
            const QJsonObject headers = requests[i]["headers"].toObject();
            QCOMPARE(headers["mcp-session-id"].toString(), QString("sess-1234"));
            QCOMPARE(headers["mcp-protocol-version"].toString(), QString("2025-06-18"));
            QCOMPARE(headers["authorization"].toString(), QString("Bearer placeholder-1"));
        }
        QCOMPARE(requests.back()["method"].toString(), QString("DELETE"));
    }

    void hostileServers_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("transport");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expected");
        QTest::newRow("refuses") << "refuse" << int(McpTransport::Http) << "/mcp"
                                 << "refused initialize: HTTP 401 Unauthorized: no token, no tools";
        QTest::newRow("answers garbage") << "garbage" << int(McpTransport::Http) << "/mcp"
                                         << "sent what is not a JSON-RPC message";
        QTest::newRow("wrong content type") << "wrong-type" << int(McpTransport::Http) << "/mcp"
                                            << "answered initialize with \"text/html\"";
        QTest::newRow("endpoint elsewhere") << "elsewhere" << int(McpTransport::Sse) << "/sse"
                                            << "named an endpoint on another origin (http://evil.example:9";
        QTest::newRow("not an event stream") << "wrong-type" << int(McpTransport::Sse) << "/sse"
                                             << "is \"type\": \"sse\" right for it?";
    }

    void hostileServers() {
        QFETCH(QString, mode);
        QFETCH(int, transport);
        QFETCH(QString, path);
        QFETCH(QString, expected);
        expectInitializeFails(mode, McpTransport(transport), path.toUtf8().constData(), expected.toStdString());
    }

    void silentServerTimesOut() {
        ServerProcess server;
        startFake(server, "silent");
        auto connection = McpHttpConnection::open(remote("mute", McpTransport::Http, fakeUrl(server)), "");
        QVERIFY(connection);
        auto info = (*connection)->initialize(Clock::now() + 2s, &m_noStop);
        QVERIFY(!info);
        QVERIFY2(info.error().message.find("MCP server \"mute\" did not answer initialize within 2 s") != std::string::npos,
                 info.error().message.c_str());
    }

    // Over HTTP+SSE the wait is for the event stream: given up by the deadline, and nothing is sent to a
    // server that never named where to.
    void silentEventStreamTimesOut() {
        ServerProcess server;
        startFake(server, "silent");
        auto connection = McpHttpConnection::open(remote("mute", McpTransport::Sse, fakeUrl(server, "/sse")), "");
        QVERIFY(connection);
        auto info = (*connection)->initialize(Clock::now() + 2s, &m_noStop);
        QVERIFY(!info);
        QVERIFY2(info.error().message.find("MCP server \"mute\" did not answer initialize within 2 s") != std::string::npos,
                 info.error().message.c_str());
    }

    void aStopEndsTheWait() {
        ServerProcess server;
        startFake(server, "silent");
        auto connection = McpHttpConnection::open(remote("mute", McpTransport::Http, fakeUrl(server)), "");
        QVERIFY(connection);
        Cancellation stop;
        stop.request(StopRequest::Cancel);
        auto info = (*connection)->initialize(soon(), &stop);
        QVERIFY(!info);
        QVERIFY2(info.error().message.find("a stop was requested") != std::string::npos, info.error().message.c_str());
    }

    void endlessEventIsCut() {
        ServerProcess server;
        startFake(server, "huge-event");
        auto connection = McpHttpConnection::open(remote("huge", McpTransport::Http, fakeUrl(server)), "");
        QVERIFY(connection);
        QVERIFY((*connection)->initialize(soon(), &m_noStop));
        auto listing = (*connection)->listTools(soon(), &m_noStop);
        QVERIFY(!listing);
        QVERIFY2(listing.error().message.find("larger than 8388608 bytes") != std::string::npos,
                 listing.error().message.c_str());
    }

    void endedSessionClosesTheConnection() {
        ServerProcess server;
        startFake(server, "session-gone");
        auto connection = McpHttpConnection::open(remote("gone", McpTransport::Http, fakeUrl(server)), "");
        QVERIFY(connection);
        QVERIFY((*connection)->initialize(soon(), &m_noStop));
        McpTool echo(**connection, "echo", "mcp__gone__echo");
        const auto outcome = echo.run({{"message", "hi"}}, toolEnv());
        QVERIFY(!outcome.ok);
        QVERIFY2(outcome.output.find("MCP server \"gone\" ended its session (HTTP 404 to tools/call)") != std::string::npos,
                 outcome.output.c_str());
        QVERIFY(!(*connection)->isOpen());
    }

    void nobodyListening() {
        auto connection =
            McpHttpConnection::open(remote("away", McpTransport::Http, "http://127.0.0.1:" + std::to_string(freePort()) + "/mcp"), "");
        QVERIFY(connection);
        auto info = (*connection)->initialize(soon(), &m_noStop);
        QVERIFY(!info);
        QVERIFY2(info.error().message.find("Connection refused") != std::string::npos, info.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestMcpHttp)
#include "tst_mcp_http.moc"
