// MCP servers over stdio as warren-agent runs them (McpConnection, McpTool, McpServerSet): hostile fakes
// (one that never answers, one that prints what is not JSON, one whose line has no end, one that exits at
// once, one that dies mid-call, one that leaves a child running, one that ignores SIGTERM) each become a
// message naming the server, never a crash or a hung agent, and after close nothing of them runs; a fake
// that speaks MCP (tests/fixtures/mcp/fake-server.js, Node.js) shows the pages, the server's own ping, a
// deadline, a stop, a changed list, and that the reaper of tool calls spares it; and the real reference
// servers
// (@modelcontextprotocol/server-everything, server-filesystem: $WARREN_TEST_MCP_EVERYTHING,
// $WARREN_TEST_MCP_FILESYSTEM; skipped without) list their tools and answer calls. No sleeps: the fakes
// say where they are through files and answers.

#include "agent_core/mcp/McpStdioConnection.h"
#include "agent_core/mcp/McpServerSet.h"
#include "agent_core/mcp/McpTool.h"
#include "agent_core/process/ChildReaper.h"
#include "agent_core/process/ProcessRunner.h"
#include "common/FileText.h"

#include <QDir>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

using namespace warren;
using namespace warren::agent;
using namespace std::chrono_literals;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

bool isGone(pid_t pid) {
    return ::kill(pid, 0) != 0 && errno == ESRCH;
}

// Processes whose parent is this test process.
int childrenOfThisProcess() {
    int count = 0;
    const QString self = QString::number(::getpid());
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile stat("/proc/" + entry + "/stat");
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.readAll();
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1 && fields[1] == self.toLatin1())
            ++count;
    }
    return count;
}

std::vector<std::string> environment() {
    std::vector<std::string> entries;
    for (const auto& [name, value] : processEnvironment())
        entries.push_back(name + "=" + value);
    return entries;
}

McpServer shellServer(const std::string& name, const std::string& script) {
    McpServer server;
    server.name = name;
    server.command = "/bin/sh";
    server.args = {"-c", script};
    return server;
}

Clock::time_point soon() {
    return Clock::now() + 30s; // no passing test comes near: a hang fails instead of blocking the suite
}

std::vector<std::string> toolNames(const McpToolListing& listing) {
    std::vector<std::string> names;
    for (const auto& tool : listing.tools())
        names.push_back(tool.name);
    return names;
}

} // namespace

class TestMcpConnection : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_node;
    QString m_fakeServer; // tests/fixtures/mcp/fake-server.js
    Cancellation m_noStop;

    McpServer fakeServer(const std::string& name, const std::string& mode, const QString& file = {}) {
        McpServer server;
        server.name = name;
        server.command = m_node.toStdString();
        server.args = {m_fakeServer.toStdString(), mode};
        if (!file.isEmpty())
            server.args.push_back(file.toStdString());
        return server;
    }

    std::unique_ptr<McpStdioConnection> started(const McpServer& server) {
        auto connection = McpStdioConnection::launch(server, environment(), m_dir.path().toStdString());
        if (!connection)
            qFatal("%s", connection.error().message.c_str());
        auto info = (*connection)->initialize(soon(), &m_noStop);
        if (!info)
            qFatal("%s", info.error().message.c_str());
        return std::move(connection).value();
    }

    ToolEnv toolEnv(Clock::time_point deadline = soon()) {
        ToolEnv env;
        env.workspace = m_dir.path().toStdString();
        env.deadline = deadline;
        env.cancellation = &m_noStop;
        return env;
    }

    void skipWithoutNode() {
        if (m_node.isEmpty())
            QSKIP("node (Node.js) is not on PATH: the fake MCP server is a Node.js script");
    }

private slots:
    void initTestCase() {
        // As in warren-agent's main(): orphans re-parent here, where the reaper finds them.
        QCOMPARE(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        QVERIFY(m_dir.isValid());
        m_node = QStandardPaths::findExecutable("node");
        m_fakeServer = qEnvironmentVariable("WARREN_TEST_DATA") + "/mcp/fake-server.js";
        QVERIFY2(QFile::exists(m_fakeServer), qPrintable(m_fakeServer));
    }

    void cleanup() { QCOMPARE(childrenOfThisProcess(), 0); }

    // Hostile servers: each a message naming the server, by the deadline, and nothing of it left.
    void hostileServerIsAnError_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("message");
        // The deadline of initialize: 1 s where the row is about it, else one no row comes near.
        QTest::newRow("never answers") << "exec sleep 1000"
                                       << "MCP server \"hostile\" did not answer initialize within 1 s";
        QTest::newRow("reads and never answers") << "cat > /dev/null"
                                                 << "did not answer initialize within 1 s";
        QTest::newRow("exits at once") << "echo 'fatal: no config' >&2; exit 3"
                                       << "MCP server \"hostile\" stopped (exit status 3); the end of its "
                                          "stderr:\nfatal: no config";
        QTest::newRow("killed at once") << "kill -KILL $$"
                                        << "MCP server \"hostile\" stopped (killed by signal 9); it "
                                           "wrote nothing on stderr";
        QTest::newRow("prints what is not JSON") << "while :; do echo 'Server listening on port 3000'; done"
                                                 << "MCP server \"hostile\" sent 11 lines that are not "
                                                    "JSON-RPC messages on its stdout; the last: \"Server "
                                                    "listening on port 3000\" (not JSON: ";
        QTest::newRow("prints JSON that is not JSON-RPC")
            << "for i in 1 2 3 4 5 6 7 8 9 10 11; do echo '{\"hello\": 1}'; done; exec sleep 1000"
            << "sent 11 lines that are not JSON-RPC messages on its stdout; the last: \"{\\\"hello\\\": 1}\" "
               "(invalid "
               "message: ";
        QTest::newRow("a line without end") << "head -c 9000000 /dev/zero | tr '\\0' x; exec sleep 1000"
                                            << "MCP server \"hostile\" sent a message longer than 8388608 "
                                               "bytes (a line of its stdout); the connection "
                                               "was closed";
        QTest::newRow("closes its stdout")
            << "echo gone >&2; exec >&-; exec sleep 1000"
            << "MCP server \"hostile\" closed its stdout; the end of its stderr:\ngone";
        QTest::newRow("speaks a later MCP")
            << "read line; echo "
               "'{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2099-01-01\"}}'; "
               "exec sleep 1000"
            << "MCP server \"hostile\" cannot be used: it speaks MCP \"2099-01-01\", which warren-agent does "
               "not";
        QTest::newRow("answers with an error")
            << "read line; echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"no "
               "licence\"}}'; exec sleep 1000"
            << "MCP server \"hostile\" answered initialize with error -32000: no licence";
    }

    void hostileServerIsAnError() {
        QFETCH(QString, script);
        QFETCH(QString, message);
        auto connection = McpStdioConnection::launch(shellServer("hostile", script.toStdString()), environment(),
                                                m_dir.path().toStdString());
        QVERIFY(connection);
        const pid_t pid = (*connection)->pid();
        const auto deadline = message.contains("did not answer") ? Clock::now() + 1s : soon();
        auto info = (*connection)->initialize(deadline, &m_noStop);
        QVERIFY(!info);
        QVERIFY2(QString::fromStdString(info.error().message).contains(message),
                 info.error().message.c_str());
        QVERIFY(!(*connection)->isOpen());
        QCOMPARE((*connection)->closedReason(), info.error().message);
        QVERIFY(isGone(pid));
        // A closed connection answers at once, with why it closed.
        const auto reply = (*connection)->callTool("echo", json::object(), soon(), &m_noStop);
        QVERIFY(reply.kind == McpStdioConnection::Reply::Kind::Closed);
        QCOMPARE(reply.message, info.error().message);
    }

    void serverThatCannotStart() {
        McpServer server;
        server.name = "missing";
        server.command = "no-such-mcp-server";
        auto connection = McpStdioConnection::launch(server, environment(), m_dir.path().toStdString());
        QVERIFY(!connection);
        QVERIFY2(connection.error().message.starts_with(
                     "MCP server \"missing\" could not be started: cannot start no-such-mcp-server: "),
                 connection.error().message.c_str());
    }

    void speaksMcp() {
        skipWithoutNode();
        auto server = started(fakeServer("fake", "ok"));
        auto listing = server->listTools(soon(), &m_noStop);
        QVERIFY2(listing, listing ? "" : listing.error().message.c_str());
        // Both pages; what it lists without a schema is left out, said so.
        QCOMPARE(toolNames(*listing),
                 (std::vector<std::string>{"echo", "hang", "die", "grow", "big", "bad.name"}));
        QCOMPARE(listing->skipped(),
                 (std::vector<std::string>{"tool \"no_schema\" skipped: it has no inputSchema"}));

        McpTool echo(*server, "echo", "mcp__fake__echo");
        const auto outcome = echo.run({{"message", "hello"}}, toolEnv());
        QVERIFY(outcome.ok);
        // The server's ping before anything else was answered.
        QCOMPARE(outcome.output, std::string("echo: hello (ping answered)"));
        QCOMPARE(outcome.exitCode, 0);
    }

    void acceptsAnOlderVersion() {
        skipWithoutNode();
        auto connection =
            McpStdioConnection::launch(fakeServer("old", "old"), environment(), m_dir.path().toStdString());
        QVERIFY(connection);
        auto info = (*connection)->initialize(soon(), &m_noStop);
        QVERIFY2(info, info ? "" : info.error().message.c_str());
        QCOMPARE(info->protocolVersion, std::string("2024-11-05"));
        QCOMPARE(info->name, std::string("fake"));
    }

    void toleratesAFewLinesThatAreNotJson() {
        skipWithoutNode();
        auto server = started(fakeServer("chatty", "garbage-first"));
        McpTool echo(*server, "echo", "mcp__chatty__echo");
        QCOMPARE(echo.run({{"message", "still here"}}, toolEnv()).output,
                 std::string("echo: still here (ping answered)"));
    }

    void callPastItsDeadlineTimesOut() {
        skipWithoutNode();
        auto server = started(fakeServer("slow", "ok"));
        McpTool hang(*server, "hang", "mcp__slow__hang");
        const auto outcome = hang.run(json::object(), toolEnv(Clock::now() + 1s));
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.timedOut);
        QCOMPARE(outcome.output,
                 std::string("mcp__slow__hang: MCP server \"slow\" did not answer tools/call within 1 s"));
        // The server was told to give up; the connection goes on.
        McpTool echo(*server, "echo", "mcp__slow__echo");
        QCOMPARE(echo.run({{"message", "after"}}, toolEnv()).output,
                 std::string("echo: after (ping answered)"));
    }

    void stopGivesUpAtOnce() {
        skipWithoutNode();
        auto server = started(fakeServer("stoppable", "ok"));
        Cancellation stop;
        stop.request(StopRequest::Cancel);
        ToolEnv env = toolEnv();
        env.cancellation = &stop;
        McpTool hang(*server, "hang", "mcp__stoppable__hang");
        const auto outcome = hang.run(json::object(), env);
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.cancelled);
        QVERIFY2(outcome.output.find("a stop was requested") != std::string::npos, outcome.output.c_str());
        QVERIFY(server->isOpen());
    }

    void serverThatDiesMidCall() {
        skipWithoutNode();
        auto server = started(fakeServer("mortal", "ok"));
        const pid_t pid = server->pid();
        McpTool die(*server, "die", "mcp__mortal__die");
        const auto outcome = die.run(json::object(), toolEnv());
        QVERIFY(!outcome.ok);
        QCOMPARE(outcome.output,
                 std::string("mcp__mortal__die: MCP server \"mortal\" stopped (exit status 7); the "
                             "end of its stderr:\nfake: about to die"));
        QVERIFY(isGone(pid));
        McpTool echo(*server, "echo", "mcp__mortal__echo");
        const auto after = echo.run({{"message", "anyone?"}}, toolEnv());
        QVERIFY(!after.ok);
        QCOMPARE(after.output, "mcp__mortal__echo: " + server->closedReason());
    }

    void outputIsCapped() {
        skipWithoutNode();
        auto server = started(fakeServer("loud", "ok"));
        McpTool big(*server, "big", "mcp__loud__big");
        ToolEnv env = toolEnv();
        env.outputLimitBytes = 1000;
        const auto outcome = big.run({{"size", 100000}}, env);
        QVERIFY(outcome.ok);
        QVERIFY(outcome.truncated);
        QVERIFY(outcome.output.size() < 1100);
    }

    void changedListIsNoted() {
        skipWithoutNode();
        auto server = started(fakeServer("growing", "ok"));
        QVERIFY(server->listTools(soon(), &m_noStop));
        QVERIFY(!server->toolsChanged());
        McpTool grow(*server, "grow", "mcp__growing__grow");
        QVERIFY(grow.run(json::object(), toolEnv()).ok);
        server->pollIdle();
        QVERIFY(server->toolsChanged());
        auto listing = server->listTools(soon(), &m_noStop);
        QVERIFY(listing);
        QCOMPARE(toolNames(*listing).back(), std::string("grown"));
        QVERIFY(!server->toolsChanged());
    }

    // What ends every tool call (runProcess, then killAndReapDescendants) leaves the servers running, and
    // still ends what the tool left behind.
    void toolCallsSpareTheServers() {
        skipWithoutNode();
        auto server = started(fakeServer("kept", "ok"));
        ProcessSpec spec;
        spec.argv = {"/bin/sh", "-c", "sleep 1000 & echo $!"};
        spec.deadline = soon();
        const auto shell = runProcess(spec);
        QVERIFY(shell);
        const pid_t leftBehind = QByteArray::fromStdString(shell->output).trimmed().toInt();
        QVERIFY(leftBehind > 0);
        QVERIFY(isGone(leftBehind));
        killAndReapDescendants();
        McpTool echo(*server, "echo", "mcp__kept__echo");
        QCOMPARE(echo.run({{"message", "alive"}}, toolEnv()).output,
                 std::string("echo: alive (ping answered)"));
    }

    void closeLeavesNothingRunning_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("exits when its stdin closes") << "ok";
        QTest::newRow("keeps a child running") << "forks";
        QTest::newRow("ignores SIGTERM") << "stubborn";
    }

    void closeLeavesNothingRunning() {
        skipWithoutNode();
        QFETCH(QString, mode);
        const QString file = m_dir.filePath("pid-" + mode);
        auto server = started(fakeServer("closing", mode.toStdString(), file));
        const pid_t pid = server->pid();
        pid_t child = -1;
        if (mode == "forks") {
            auto text = readFileText(file.toStdString());
            QVERIFY(text);
            child = std::stoi(*text);
            QVERIFY(!isGone(child));
        }
        server->close();
        QVERIFY(isGone(pid));
        if (child > 0)
            QVERIFY(isGone(child));
        QVERIFY(!server->isOpen());
    }

    // A workspace's .mcp.json: what starts offers its tools; what fails, is skipped or is remote is said.
    void serverSetFromMcpJson() {
        skipWithoutNode();
        QTemporaryDir workspace;
        const json document = {
            {"mcpServers",
             {{"fake", {{"command", "${FAKE_NODE}"}, {"args", fakeServer("fake", "ok").args}}},
              {"broken",
               {{"command", "/bin/sh"}, {"args", {"-c", "echo 'cannot open database' >&2; exit 1"}}}},
              {"remote", {{"type", "http"}, {"url", "http://127.0.0.1:1/mcp"}}}, // nobody listens there
              {"bad name", {{"command", "x"}}}}}};
        QVERIFY(writeFileText((workspace.path() + "/.mcp.json").toStdString(), document.dump()));
        Environment environment = processEnvironment();
        environment["FAKE_NODE"] = m_node.toStdString();
        McpServerSet servers(nlohmann::json::object(), workspace.path().toStdString(), environment, soon(), &m_noStop);

        std::vector<std::string> names;
        for (const auto& entry : servers.toolEntries())
            names.push_back(entry.spec.name);
        QCOMPARE(names, (std::vector<std::string>{"mcp__fake__echo", "mcp__fake__hang", "mcp__fake__die",
                                                  "mcp__fake__grow", "mcp__fake__big"}));
        const auto echo = servers.toolEntries().front();
        QCOMPARE(echo.spec.description, std::string("Echoes the message"));
        QCOMPARE(echo.spec.parameters["required"], json({"message"}));
        QCOMPARE(echo.make()->run({{"message", "via the set"}}, toolEnv()).output,
                 std::string("echo: via the set (ping answered)"));
        QVERIFY(!echo.make()->readOnly());

        std::map<McpNotice::Kind, QStringList> notices;
        for (const auto& notice : servers.takeNotices())
            notices[notice.kind] << QString::fromStdString(notice.message);
        const QString failed = notices[McpNotice::Kind::Failed].join("\n");
        const QString skipped = notices[McpNotice::Kind::Skipped].join("\n");
        const QString info = notices[McpNotice::Kind::Info].join("\n");
        QVERIFY2(failed.contains(
                     "MCP server \"broken\" stopped (exit status 1); the end of its stderr:\ncannot open "
                     "database"),
                 qPrintable(failed));
        QVERIFY2(failed.contains("MCP server \"remote\": initialize: connecting to 127.0.0.1:1: Connection refused"),
                 qPrintable(failed));
        QVERIFY2(skipped.contains("server \"bad name\" skipped"), qPrintable(skipped));
        QVERIFY2(
            skipped.contains("MCP server \"fake\": tool \"bad.name\" of server \"fake\" skipped: its name "
                             "\"mcp__fake__bad.name\" is not one the model can call"),
            qPrintable(skipped));
        QVERIFY2(info.contains("MCP server \"fake\" (fake 1.0, MCP 2025-06-18) started with 5 tools"),
                 qPrintable(info));

        // A changed list is read again at the next look, and replaces the server's tools.
        QVERIFY(servers.toolEntries()[3].make()->run(json::object(), toolEnv()).ok); // grow
        const auto changes = servers.refresh(soon(), &m_noStop);
        QCOMPARE(changes.size(), std::size_t(1));
        QCOMPARE(changes[0].before,
                 (std::vector<std::string>{"mcp__fake__echo", "mcp__fake__hang", "mcp__fake__die",
                                           "mcp__fake__grow", "mcp__fake__big"}));
        QCOMPARE(changes[0].entries.back().spec.name, std::string("mcp__fake__grown"));

        // One that stops between steps is said to, once.
        QVERIFY(!servers.toolEntries()[2].make()->run(json::object(), toolEnv()).ok); // die
        servers.takeNotices();
        QVERIFY(servers.refresh(soon(), &m_noStop).empty());
        QVERIFY(servers.refresh(soon(), &m_noStop).empty());
        const auto notices2 = servers.takeNotices();
        QCOMPARE(notices2.size(), std::size_t(1));
        QVERIFY(notices2[0].kind == McpNotice::Kind::Failed);
        QVERIFY2(notices2[0].message.starts_with("MCP server \"fake\" stopped (exit status 7)"),
                 notices2[0].message.c_str());
    }

    void noMcpJsonNoServers() {
        QTemporaryDir workspace;
        McpServerSet servers(nlohmann::json::object(), workspace.path().toStdString(), processEnvironment(), soon(), &m_noStop);
        QVERIFY(servers.toolEntries().empty());
        QVERIFY(servers.takeNotices().empty());
    }

    void malformedMcpJsonIsSaid() {
        QTemporaryDir workspace;
        QVERIFY(writeFileText((workspace.path() + "/.mcp.json").toStdString(), "{\"mcpServers\": "));
        McpServerSet servers(nlohmann::json::object(), workspace.path().toStdString(), processEnvironment(), soon(), &m_noStop);
        QVERIFY(servers.toolEntries().empty());
        const auto notices = servers.takeNotices();
        QCOMPARE(notices.size(), std::size_t(1));
        QVERIFY(notices[0].kind == McpNotice::Kind::Failed);
        QVERIFY2(notices[0].message.find(".mcp.json: not JSON: ") != std::string::npos,
                 notices[0].message.c_str());
        QVERIFY2(notices[0].message.ends_with("; none of its servers was started"), notices[0].message.c_str());
    }

    // The reference server of the MCP project, as users run it.
    void realServerEverything() {
        const QString program = qEnvironmentVariable("WARREN_TEST_MCP_EVERYTHING");
        if (program.isEmpty())
            QSKIP("set WARREN_TEST_MCP_EVERYTHING to @modelcontextprotocol/server-everything's "
                  "mcp-server-everything "
                  "to run this test");
        McpServer everything;
        everything.name = "everything";
        everything.command = program.toStdString();
        everything.args = {"stdio"};
        auto server = started(everything);
        auto listing = server->listTools(soon(), &m_noStop);
        QVERIFY2(listing, listing ? "" : listing.error().message.c_str());
        const auto names = toolNames(*listing);
        for (const char* expected : {"echo", "get-sum", "get-tiny-image", "get-structured-content"})
            QVERIFY2(std::find(names.begin(), names.end(), expected) != names.end(), expected);
        QCOMPARE(listing->skipped(), std::vector<std::string>());

        McpTool echo(*server, "echo", "mcp__everything__echo");
        const auto echoed = echo.run({{"message", "hello from warren"}}, toolEnv());
        QVERIFY(echoed.ok);
        QCOMPARE(echoed.output, std::string("Echo: hello from warren"));

        McpTool sum(*server, "get-sum", "mcp__everything__get-sum");
        QCOMPARE(sum.run({{"a", 2}, {"b", 3}}, toolEnv()).output, std::string("The sum of 2 and 3 is 5."));

        McpTool image(*server, "get-tiny-image", "mcp__everything__get-tiny-image");
        const auto pictured = image.run(json::object(), toolEnv());
        QVERIFY(pictured.ok);
        QVERIFY2(QString::fromStdString(pictured.output)
                     .contains(QRegularExpression("\\[image: image/png, [0-9]+ bytes\\]")),
                 pictured.output.c_str());
        QVERIFY2(pictured.output.find("iVBOR") == std::string::npos,
                 pictured.output.c_str()); // never the base64

        McpTool wrong(*server, "get-sum", "mcp__everything__get-sum");
        const auto refused = wrong.run({{"a", "two"}}, toolEnv());
        QVERIFY(!refused.ok); // isError: the server's validation, as the model reads it
        QVERIFY2(refused.output.find("Invalid arguments for tool get-sum") != std::string::npos,
                 refused.output.c_str());

        const pid_t pid = server->pid();
        server->close();
        QVERIFY(isGone(pid));
    }

    void realServerFilesystem() {
        const QString program = qEnvironmentVariable("WARREN_TEST_MCP_FILESYSTEM");
        if (program.isEmpty())
            QSKIP("set WARREN_TEST_MCP_FILESYSTEM to @modelcontextprotocol/server-filesystem's "
                  "mcp-server-filesystem "
                  "to run this test");
        QTemporaryDir workspace;
        QVERIFY(writeFileText((workspace.path() + "/notes.txt").toStdString(), "first line\n"));
        McpServer files;
        files.name = "files";
        files.command = program.toStdString();
        files.args = {workspace.path().toStdString()};
        auto server = started(files);
        auto listing = server->listTools(soon(), &m_noStop);
        QVERIFY2(listing, listing ? "" : listing.error().message.c_str());
        const auto names = toolNames(*listing);
        for (const char* expected : {"read_text_file", "write_file", "list_directory"})
            QVERIFY2(std::find(names.begin(), names.end(), expected) != names.end(), expected);

        McpTool read(*server, "read_text_file", "mcp__files__read_text_file");
        const auto text = read.run({{"path", (workspace.path() + "/notes.txt").toStdString()}}, toolEnv());
        QVERIFY(text.ok);
        QVERIFY2(text.output.starts_with("first line\n"), text.output.c_str());

        McpTool write(*server, "write_file", "mcp__files__write_file");
        QVERIFY(write
                    .run({{"path", (workspace.path() + "/new.txt").toStdString()}, {"content", "written"}},
                         toolEnv())
                    .ok);
        QCOMPARE(readFileText((workspace.path() + "/new.txt").toStdString()).value(), std::string("written"));

        // Outside its directory: refused by the server, a failure the model reads.
        const auto outside = read.run({{"path", "/etc/hostname"}}, toolEnv());
        QVERIFY(!outside.ok);
    }
};

QTEST_GUILESS_MAIN(TestMcpConnection)
#include "tst_mcp_connection.moc"
