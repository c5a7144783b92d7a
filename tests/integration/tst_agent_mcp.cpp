// The loop with a workspace's MCP servers (TaskRun, with a listed model in place of a real one): the tools
// of its .mcp.json's servers are offered as mcp__SERVER__TOOL with their schemas and run; a server that
// fails to start is an error event and the task goes on; a list the server says changed is read again
// before the next step; an MCP tool waits for approval wherever calls with effects do; the servers end with
// the run. The server is tests/fixtures/mcp/fake-server.js (Node.js; skipped without node).

#include "agent_core/loop/Agent.h"
#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"
#include "common/FileText.h"
#include "tests/support/AgentLoopDoubles.h"

#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <deque>

using namespace warren;
using namespace warren::agent;
namespace et = warren::protocol::event_type;
using nlohmann::json;
using test::CollectingSink;
using test::ListedLlm;
using test::calling;
using test::finishing;

namespace {

std::vector<std::string> toolNames(const protocol::LlmChatParams& asked) {
    std::vector<std::string> names;
    for (const auto& tool : asked.tools)
        names.push_back(tool.name);
    return names;
}

bool offers(const protocol::LlmChatParams& asked, const std::string& name) {
    const auto names = toolNames(asked);
    return std::find(names.begin(), names.end(), name) != names.end();
}

struct Ran {
    TaskOutcome outcome;
    CollectingSink sink;
    std::vector<protocol::LlmChatParams> asked;
    std::vector<protocol::ApprovalRequestParams> approvals;

    std::string resultOf(const std::string& id) const {
        for (const auto& event : sink.ofType(et::kToolResult))
            if (event.data.value("id", "") == id)
                return event.data.value("output", "");
        return "(no result)";
    }
    QStringList messages(std::string_view type) const {
        QStringList out;
        for (const auto& event : sink.ofType(type))
            out << QString::fromStdString(event.data.value("message", ""));
        return out;
    }
};

} // namespace

class TestAgentMcp : public QObject {
    Q_OBJECT

    QString m_node;
    QTemporaryDir m_workspace;

    void writeMcpJson(const json& servers) {
        QVERIFY(writeFileText((m_workspace.path() + "/.mcp.json").toStdString(),
                              json{{"mcpServers", servers}}.dump()));
    }

    json fakeServer(const std::string& pidFile = {}) const {
        json args = {(qEnvironmentVariable("WARREN_TEST_DATA") + "/mcp/fake-server.js").toStdString(), "ok"};
        if (!pidFile.empty())
            args.push_back(pidFile);
        return {{"command", m_node.toStdString()}, {"args", args}};
    }

    std::unique_ptr<Ran> run(const std::vector<std::string>& presets,
                             std::deque<protocol::LlmChatResult> replies, bool approve = true,
                             const json& approvalTools = nullptr) {
        json settings = {{"log_format", "json"}}; // log lines as events
        if (!approvalTools.is_null())
            settings["approval_tools"] = approvalTools;
        auto agent = createAgent(presets, settings);
        if (!agent)
            qFatal("%s", agent.error().message.c_str());
        auto llm = std::make_unique<ListedLlm>();
        llm->replies = std::move(replies);
        ListedLlm* model = llm.get();
        (*agent)->setModel(std::move(llm));
        auto ran = std::make_unique<Ran>();
        (*agent)->setApprover(
            [&ran, approve](const protocol::ApprovalRequestParams& request, const Cancellation*) {
                ran->approvals.push_back(request);
                return Result<protocol::ApprovalResult>(protocol::ApprovalResult{approve, std::nullopt});
            });
        EventLog events(ran->sink);
        Cancellation cancellation;
        ran->outcome = (*agent)->run({m_workspace.path().toStdString(), std::nullopt, std::nullopt}, "t",
                                     "use the server", events, cancellation);
        ran->asked = model->asked;
        return ran;
    }

private slots:
    void initTestCase() {
        m_node = QStandardPaths::findExecutable("node");
        if (m_node.isEmpty())
            QSKIP("node (Node.js) is not on PATH: the fake MCP server is a Node.js script");
        QVERIFY(m_workspace.isValid());
    }

    void serversToolsAreOfferedAndRun() {
        const std::string pidFile = (m_workspace.path() + "/fake.pid").toStdString();
        writeMcpJson(
            {{"fake", fakeServer(pidFile)},
             {"broken", {{"command", "/bin/sh"}, {"args", {"-c", "echo 'no database' >&2; exit 2"}}}},
             {"remote", {{"type", "sse"}, {"url", "http://127.0.0.1:1/sse"}}}}); // nobody listens there
        const auto ran =
            run({"local-light"}, {calling("c1", "mcp__fake__echo", {{"message", "hi"}}), finishing()});

        QCOMPARE(int(ran->outcome.reason), int(ExitReason::Finished));
        QVERIFY(!ran->asked.empty());
        const auto& tools = ran->asked.front().tools;
        const auto echo = std::find_if(tools.begin(), tools.end(),
                                       [](const auto& t) { return t.name == "mcp__fake__echo"; });
        QVERIFY(echo != tools.end());
        QCOMPARE(echo->description, std::string("Echoes the message"));
        QCOMPARE(echo->parameters["required"], json({"message"}));
        QVERIFY(offers(ran->asked.front(), "shell")); // beside the built-in tools
        QVERIFY(!offers(ran->asked.front(), "mcp__fake__bad.name"));
        QCOMPARE(ran->resultOf("c1"), std::string("echo: hi (ping answered)"));

        // What failed is an error event, what was left out or started a log event; after task_started.
        const QStringList errors = ran->messages(et::kError);
        QVERIFY2(errors.join("\n").contains("MCP server \"broken\" stopped (exit status 2); the end of its "
                                            "stderr:\nno database"),
                 qPrintable(errors.join("\n")));
        const QString logs = ran->messages(et::kLog).join("\n");
        QVERIFY2(errors.join("\n").contains("MCP server \"remote\": opening its event stream: connecting to "
                                            "127.0.0.1:1: Connection refused"),
                 qPrintable(errors.join("\n")));
        QVERIFY2(logs.contains("MCP server \"fake\" (fake 1.0, MCP 2025-06-18) started with 5 tools"),
                 qPrintable(logs));
        QCOMPARE(ran->sink.events.front().type, std::string(et::kTaskStarted));

        // Nothing asked for approval (local-light asks for none), and the server ended with the run.
        QVERIFY(ran->approvals.empty());
        auto pid = readFileText(pidFile);
        QVERIFY(pid);
        QVERIFY(::kill(std::stoi(*pid), 0) != 0 && errno == ESRCH);
    }

    void changedListIsReadBeforeTheNextStep() {
        writeMcpJson({{"fake", fakeServer()}});
        const auto ran =
            run({"local-light"}, {calling("c1", "mcp__fake__grow", json::object()),
                                  calling("c2", "mcp__fake__grown", json::object()), finishing()});
        QCOMPARE(ran->asked.size(), std::size_t(3));
        QVERIFY(!offers(ran->asked[0], "mcp__fake__grown"));
        QVERIFY(offers(ran->asked[1], "mcp__fake__grown"));
        QVERIFY(offers(ran->asked[1], "mcp__fake__echo"));
        QVERIFY2(ran->messages(et::kLog).join("\n").contains("MCP server \"fake\" changed its tools: now 6"),
                 qPrintable(ran->messages(et::kLog).join("\n")));
        QCOMPARE(ran->resultOf("c2"), std::string("the new tool ran"));
    }

    void callsWaitForApprovalWhereEffectsDo_data() {
        QTest::addColumn<bool>("approve");
        QTest::newRow("approved") << true;
        QTest::newRow("denied") << false;
    }

    // safe-mode asks before shell and the file writes: an MCP tool, which may do anything, too.
    void callsWaitForApprovalWhereEffectsDo() {
        QFETCH(bool, approve);
        writeMcpJson({{"fake", fakeServer()}});
        const auto ran = run(
            {"safe-mode"}, {calling("c1", "mcp__fake__echo", {{"message", "may I"}}), finishing()}, approve);
        QCOMPARE(ran->approvals.size(), std::size_t(1));
        QCOMPARE(ran->approvals[0].tool, std::string("mcp__fake__echo"));
        QCOMPARE(
            ran->approvals[0].reason,
            std::string("mcp__fake__echo is an MCP server's tool, and approval_tools asks for approvals"));
        if (approve)
            QCOMPARE(ran->resultOf("c1"), std::string("echo: may I (ping answered)"));
        else
            QVERIFY2(ran->resultOf("c1").starts_with("Denied: the user did not approve this call."),
                     ran->resultOf("c1").c_str());
    }

    void approvalToolsNameMcpTools_data() {
        QTest::addColumn<QString>("listed"); // approval_tools, comma-separated
        QTest::addColumn<bool>("echoWaits");
        QTest::addColumn<bool>("growWaits");
        QTest::newRow("the tool by name") << "mcp__fake__echo" << true << false;
        QTest::newRow("its server") << "mcp__fake__*" << true << true;
        QTest::newRow("every MCP tool") << "mcp__*" << true << true;
        QTest::newRow("another server's") << "shell,mcp__other__*" << false << false;
        QTest::newRow("none named, others asked for") << "shell" << true << true;
    }
    // approval_tools names MCP tools as it names the built-in ones; naming none while asking for others
    // leaves every MCP tool waiting.
    void approvalToolsNameMcpTools() {
        QFETCH(QString, listed);
        QFETCH(bool, echoWaits);
        QFETCH(bool, growWaits);
        writeMcpJson({{"fake", fakeServer()}});
        json list = json::array();
        for (const QString& entry : listed.split(','))
            list.push_back(entry.toStdString());
        const auto ran = run({"local-light"},
                             {calling("c1", "mcp__fake__echo", {{"message", "hi"}}),
                              calling("c2", "mcp__fake__grow", json::object()), finishing()},
                             true, list);
        std::vector<std::string> asked;
        for (const auto& approval : ran->approvals)
            asked.push_back(approval.tool);
        std::vector<std::string> expected;
        if (echoWaits)
            expected.push_back("mcp__fake__echo");
        if (growWaits)
            expected.push_back("mcp__fake__grow");
        QCOMPARE(asked, expected);
        QCOMPARE(ran->resultOf("c1"), std::string("echo: hi (ping answered)"));
    }

    void badMcpNamesInApprovalToolsAreRefused() {
        for (const char* bad : {"mcp__", "mcp__fake", "mcp____echo", "mcp__fake__", "mcp__fa ke__echo", "mcp__fake__e*"}) {
            auto agent = createAgent({"local-light"}, {{"approval_tools", json::array({bad})}});
            QVERIFY2(!agent, bad);
            QVERIFY2(agent.error().message.find("mcp__SERVER__TOOL") != std::string::npos, agent.error().message.c_str());
        }
    }

    void malformedMcpJsonIsAnErrorAndTheTaskGoesOn() {
        QVERIFY(
            writeFileText((m_workspace.path() + "/.mcp.json").toStdString(), "{\"mcpServers\": {\"x\": "));
        const auto ran = run({"local-light"}, {finishing()});
        QCOMPARE(int(ran->outcome.reason), int(ExitReason::Finished));
        const QString errors = ran->messages(et::kError).join("\n");
        QVERIFY2(errors.contains(".mcp.json: not JSON: "), qPrintable(errors));
        QVERIFY(std::none_of(ran->asked[0].tools.begin(), ran->asked[0].tools.end(),
                             [](const auto& tool) { return tool.name.starts_with("mcp__"); }));
    }
};

QTEST_GUILESS_MAIN(TestAgentMcp)
#include "tst_agent_mcp.moc"
