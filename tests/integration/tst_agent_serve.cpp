// warren-agent serve: the protocol on stdio, with this test as the control plane. A whole task through
// llm.chat, approvals and the host memory; bad lines of every kind answered and reported without
// breaking the task; cancel, pause, a closed stdin; refused task.start requests.

#include "agent_core/protocol/EventTypes.h"
#include "agent_core/protocol/LineReader.h"
#include "agent_core/protocol/Methods.h"
#include "tests/support/AgentRun.h"
#include "tests/support/ServeSession.h"

#include <QProcess>
#include <QtTest>
#include <csignal>

using namespace warren;
using namespace warren::test;
namespace et = warren::protocol::event_type;
using nlohmann::json;

namespace {

json finishReply(const std::string& summary = "done") {
    return {{"content", ""},
            {"tool_calls", {{{"id", "f1"}, {"name", "finish"}, {"arguments", {{"summary", summary}}}}}},
            {"token_usage", {{"input", 10}, {"output", 2}}},
            {"finish_reason", "tool_calls"}};
}

json callReply(const std::string& id, const std::string& tool, json arguments) {
    return {{"content", "calling " + tool},
            {"tool_calls", {{{"id", id}, {"name", tool}, {"arguments", std::move(arguments)}}}},
            {"token_usage", {{"input", 10}, {"output", 5}}},
            {"finish_reason", "tool_calls"}};
}

using Session = ServeSession;

} // namespace

class TestAgentServe : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(QFileInfo(agentBinary()).isExecutable(), "WARREN_AGENT must be set"); }

    void aTaskRunsThroughTheControlPlane() {
        Session session;
        QVERIFY(session.start());
        session.startTask();
        const json accepted = session.next();
        QCOMPARE(accepted["id"], 1);
        QCOMPARE(accepted["result"], json::object());

        json chat = session.nextRequest("llm.chat");
        QVERIFY(!chat.is_null());
        const auto params = protocol::llmChatParamsFromJson(chat["params"]);
        QVERIFY2(params, params ? "" : params.error().message.c_str());
        QCOMPARE(params->messages.at(0).role, std::string("system"));
        QCOMPARE(params->messages.at(1).content, std::string("Do the thing"));
        QStringList tools;
        for (const auto& spec : params->tools)
            tools << QString::fromStdString(spec.name);
        // No model family stated: edit_file, not apply_patch.
        QCOMPARE(tools, (QStringList{"shell", "read_file", "write_file", "edit_file", "list_files", "search",
                                     "update_plan", "memory_save", "memory_load", "memory_search", "finish"}));
        session.respond(chat, callReply("c1", "write_file", {{"path", "out.txt"}, {"content", "hello\n"}}));

        chat = session.nextRequest("llm.chat");
        const auto second = protocol::llmChatParamsFromJson(chat["params"]);
        QVERIFY(second);
        QCOMPARE(second->messages.back().role, std::string("tool"));
        QCOMPARE(second->messages.back().toolCallId, std::optional<std::string>("c1"));
        session.respond(chat, finishReply("wrote out.txt"));

        QCOMPARE(session.finish(), 0);
        QCOMPARE(session.lastEvent()["type"], "task_finished");
        QCOMPARE(session.lastEvent()["data"]["summary"], "wrote out.txt");
        QVERIFY(session.hasEvent(et::kFileChanged, "out.txt"));
        QFile out(session.dir("workspace") + "/out.txt");
        QVERIFY(out.open(QIODevice::ReadOnly));
        QCOMPARE(out.readAll(), QByteArray("hello\n"));
        // Token usage came from the control plane's answers.
        QFile report(session.dir("output") + "/resource_report.json");
        QVERIFY(report.open(QIODevice::ReadOnly));
        const json figures = json::parse(report.readAll().toStdString());
        QCOMPARE(figures["tokens_in"], 20);
        QCOMPARE(figures["tokens_out"], 7);
    }

    void approvalsAreAskedOfTheControlPlane() {
        Session session;
        QVERIFY(session.start());
        session.startTask({{"approval_tools", {"shell"}}});
        json chat = session.nextRequest("llm.chat");
        session.respond(chat, callReply("c1", "shell", {{"command", "touch denied.txt"}}));
        const json approval = session.nextRequest("approval.request");
        QVERIFY(!approval.is_null());
        QCOMPARE(approval["params"]["tool"], "shell");
        QCOMPARE(approval["params"]["arguments"]["command"], "touch denied.txt");
        session.respond(approval, {{"approved", false}, {"note", "not now"}});
        chat = session.nextRequest("llm.chat");
        const auto params = protocol::llmChatParamsFromJson(chat["params"]);
        QVERIFY(params);
        QVERIFY(params->messages.back().content.find("not now") != std::string::npos);
        session.respond(chat, finishReply());
        QCOMPARE(session.finish(), 0);
        QVERIFY(!QFileInfo::exists(session.dir("workspace") + "/denied.txt"));
        QVERIFY(session.hasEvent(et::kApprovalResolved, "not now"));
    }

    // A pause while the user has not yet answered: the resumed task asks again instead of losing the call.
    void aPauseDuringAnApprovalKeepsTheCall() {
        Session session;
        QVERIFY(session.start());
        session.startTask({{"approval_tools", {"shell"}}});
        session.respond(session.nextRequest("llm.chat"),
                        callReply("c1", "shell", {{"command", "touch ok.txt"}}));
        QVERIFY(!session.nextRequest("approval.request").is_null());
        session.send({{"jsonrpc", "2.0"}, {"method", "control.pause"}});
        QCOMPARE(session.finish(), 75);
        // The question was cut short, not answered: it stays open.
        QVERIFY(session.hasEvent(et::kApprovalRequested, "touch ok.txt"));
        QVERIFY(!session.hasEvent(et::kApprovalResolved));

        Session resumed;
        resumed.root.remove();
        QProcess& agent = resumed.agent;
        agent.start(agentBinary(), {"serve", "--workspace", session.dir("workspace"), "--state",
                                    session.dir("state"), "--output", session.dir("output")});
        QVERIFY(agent.waitForStarted());
        resumed.startTask({{"approval_tools", {"shell"}}});
        const json approval = resumed.nextRequest("approval.request");
        QVERIFY2(!approval.is_null(), "the resumed task must ask for the call again, not ask the model");
        QCOMPARE(approval["params"]["arguments"]["command"], "touch ok.txt");
        QCOMPARE(approval["params"]["call_id"], "c1");
        resumed.respond(approval, {{"approved", true}});
        resumed.respond(resumed.nextRequest("llm.chat"), finishReply());
        QCOMPARE(resumed.finish(), 0);
        QVERIFY(QFileInfo::exists(session.dir("workspace") + "/ok.txt"));
        // Asked again, shown once: the call and its question are not repeated, and the answer closes it.
        QVERIFY(!resumed.hasEvent(et::kToolCall, "touch ok.txt"));
        QVERIFY(!resumed.hasEvent(et::kApprovalRequested));
        QVERIFY(resumed.hasEvent(et::kApprovalResolved, "c1"));
        QVERIFY(resumed.hasEvent(et::kToolResult));
    }

    // A reply to a task paused before its calls ran: the calls are answered "not run" before the message
    // (each call answered first, as every provider wants), the message is last in the conversation the model
    // gets, and is recorded once; then the task goes on and finishes. A finished task takes a reply too.
    void aReplyAnswersTheCallsItReplacesFirst() {
        Session session;
        QVERIFY(session.start());
        session.startTask({{"approval_tools", {"shell"}}});
        json twoCalls = callReply("c1", "shell", {{"command", "touch one.txt"}});
        twoCalls["tool_calls"].push_back({{"id", "c2"}, {"name", "shell"}, {"arguments", {{"command", "touch two.txt"}}}});
        session.respond(session.nextRequest("llm.chat"), twoCalls);
        QVERIFY(!session.nextRequest("approval.request").is_null());
        session.send({{"jsonrpc", "2.0"}, {"method", "control.pause"}});
        QCOMPARE(session.finish(), 75);

        const auto again = [&](Session& next, const std::optional<std::string>& reply) {
            next.root.remove();
            next.agent.start(agentBinary(), {"serve", "--workspace", session.dir("workspace"), "--state",
                                             session.dir("state"), "--output", session.dir("output")});
            if (!next.agent.waitForStarted())
                return false;
            next.startTask({{"approval_tools", {"shell"}}}, "t-1", reply);
            return true;
        };
        Session replied;
        QVERIFY(again(replied, "Use ls instead"));
        const json chat = replied.nextRequest("llm.chat");
        QVERIFY2(!chat.is_null(), "the replied task must ask the model, not run the calls it replaced");
        const auto params = protocol::llmChatParamsFromJson(chat["params"]);
        QVERIFY(params);
        const auto& messages = params->messages;
        QVERIFY(messages.size() >= 4);
        QCOMPARE(messages.back().role, std::string("user"));
        QCOMPARE(messages.back().content, std::string("Use ls instead"));
        for (const auto& [offset, id] : {std::pair{3u, "c1"}, std::pair{2u, "c2"}}) {
            const auto& answer = messages[messages.size() - offset];
            QCOMPARE(answer.role, std::string("tool"));
            QCOMPARE(answer.toolCallId.value_or(""), std::string(id));
            QVERIFY2(answer.content.starts_with("Not run"), answer.content.c_str());
        }
        std::vector<std::string> order;
        for (const auto& event : replied.events)
            order.push_back(event.value("type", ""));
        const auto at = [&](std::string_view type) { return std::find(order.begin(), order.end(), type) - order.begin(); };
        QVERIFY(at(et::kTaskResumed) < at(et::kToolResult) && at(et::kToolResult) < at(et::kUserMessage));
        QCOMPARE(int(std::count(order.begin(), order.end(), std::string(et::kUserMessage))), 1);
        replied.respond(chat, finishReply("listed instead"));
        QCOMPARE(replied.finish(), 0);
        QVERIFY(!QFileInfo::exists(session.dir("workspace") + "/one.txt"));
        QVERIFY(!QFileInfo::exists(session.dir("workspace") + "/two.txt"));

        // Finished: a plain resume is refused, a reply goes on.
        Session resumed;
        QVERIFY(again(resumed, std::nullopt));
        QCOMPARE(resumed.finish(), 1);
        QVERIFY(resumed.hasEvent(et::kError, "reply to it to go on"));
        Session twice;
        QVERIFY(again(twice, "One more thing"));
        const json last = twice.nextRequest("llm.chat");
        QVERIFY(!last.is_null());
        QCOMPARE(protocol::llmChatParamsFromJson(last["params"])->messages.back().content, std::string("One more thing"));
        twice.respond(last, finishReply("and the other"));
        QCOMPARE(twice.finish(), 0);
        QCOMPARE(twice.lastEvent()["data"].value("summary", ""), std::string("and the other"));
    }

    // Without a checkpoint there is nothing to continue: the reply is refused, nothing is written.
    void aReplyWithoutACheckpointIsRefused() {
        Session session;
        QVERIFY(session.start());
        session.startTask(json::object(), "t-1", std::string("go on"));
        QCOMPARE(session.finish(), 1);
        QVERIFY(session.hasEvent(et::kError, "a reply continues task t-1 from its checkpoint, and there is none"));
        QVERIFY(!QFileInfo::exists(session.dir("state") + "/checkpoint.json"));
    }

    void hostMemoryGoesThroughTheControlPlane() {
        Session session;
        QVERIFY(session.start());
        session.startTask({{"memory_backend", "host"}});
        json chat = session.nextRequest("llm.chat");
        session.respond(chat, callReply("c1", "memory_save", {{"key", "build"}, {"value", "make -j2"}}));
        const json put = session.nextRequest("memory.put");
        QVERIFY(!put.is_null());
        QCOMPARE(put["params"]["key"], "build");
        QCOMPARE(put["params"]["value"], "make -j2");
        session.respond(put, json::object());
        chat = session.nextRequest("llm.chat");
        session.respond(chat, callReply("c2", "memory_load", {{"key", "test"}}));
        const json get = session.nextRequest("memory.get");
        QCOMPARE(get["params"]["key"], "test");
        session.respond(get, {{"found", true}, {"value", "ctest"}});
        chat = session.nextRequest("llm.chat");
        const auto params = protocol::llmChatParamsFromJson(chat["params"]);
        QVERIFY(params);
        QVERIFY2(params->messages.back().content.find("ctest") != std::string::npos,
                 params->messages.back().content.c_str());
        session.respond(chat, finishReply());
        QCOMPARE(session.finish(), 0);
    }

    // Each bad line is answered or reported, and the task goes on to finish normally.
    void badLinesAreReportedAndTheTaskGoesOn_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<int>("errorCode");    // the error response expected, 0 for none
        QTest::addColumn<QString>("reported"); // text expected in an error event
        QTest::newRow("malformed json") << QByteArray("{\"jsonrpc\": \"2.0\", \"method\": ") << -32700 << "";
        QTest::newRow("not an object") << QByteArray("[1, 2]") << -32600 << "";
        QTest::newRow("invalid utf-8")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"method\":\"x\xff\"}") << 0 << "UTF-8";
        QTest::newRow("over the cap") << QByteArray(8 * 1024 * 1024 + 10, 'a') << 0 << "exceed the line cap";
        QTest::newRow("unknown method")
            << QByteArray(R"({"jsonrpc":"2.0","id":77,"method":"fly.away"})") << -32601 << "";
        QTest::newRow("response for an unknown id")
            << QByteArray(R"({"jsonrpc":"2.0","id":12345,"result":{}})") << 0 << "12345";
        QTest::newRow("unknown notification")
            << QByteArray(R"({"jsonrpc":"2.0","method":"control.dance"})") << 0 << "control.dance";
        QTest::newRow("second task.start")
            << QByteArray(
                   R"({"jsonrpc":"2.0","id":2,"method":"task.start","params":{"protocol_version":6,"task_id":"x","prompt":"p"}})")
            << -32600 << "";
    }
    void badLinesAreReportedAndTheTaskGoesOn() {
        QFETCH(QByteArray, line);
        QFETCH(int, errorCode);
        QFETCH(QString, reported);
        Session session;
        QVERIFY(session.start());
        session.startTask();
        json chat = session.nextRequest("llm.chat");
        QVERIFY(!chat.is_null());
        session.sendLine(line);
        if (errorCode) {
            const json answer = session.next();
            QVERIFY2(answer.contains("error"), answer.dump().c_str());
            QCOMPARE(answer["error"]["code"].get<int>(), errorCode);
        }
        session.respond(chat, finishReply());
        QCOMPARE(session.finish(), 0);
        QCOMPARE(session.lastEvent()["data"]["reason"], "finished");
        if (!reported.isEmpty())
            QVERIFY2(session.hasEvent(et::kError, reported.toStdString()), qPrintable(reported));
    }

    void aClosedStdinBeforeTheTaskIsACleanExit() {
        Session session;
        QVERIFY(session.start());
        session.agent.closeWriteChannel();
        QVERIFY(session.agent.waitForFinished(-1));
        QCOMPARE(session.agent.exitStatus(), QProcess::NormalExit);
        QCOMPARE(session.agent.exitCode(), 1);
        QVERIFY(session.agent.readAllStandardError().contains("no task.start"));
    }

    void aClosedStdinMidTaskPausesWithACheckpoint() {
        Session session;
        QVERIFY(session.start());
        session.startTask();
        QVERIFY(!session.nextRequest("llm.chat").is_null());
        session.agent.closeWriteChannel();
        QCOMPARE(session.finish(), 75);
        QCOMPARE(session.lastEvent()["data"]["reason"], "paused");
        QVERIFY(QFileInfo::exists(session.dir("state") + "/checkpoint.json"));
    }

    void cancelKillsTheRunningTool() {
        Session session;
        QVERIFY(session.start());
        session.startTask();
        json chat = session.nextRequest("llm.chat");
        session.respond(
            chat, callReply("c1", "shell",
                            {{"command", "echo $$ > sh.pid.new && mv sh.pid.new sh.pid; exec sleep 1000"}}));
        QVERIFY(session.waitForEvent(et::kToolCall));
        // The tool is running (its shell wrote its pid, whole: renamed into place) before the cancel comes,
        // so the cancel has a process to kill.
        const QString pidPath = session.dir("workspace") + "/sh.pid";
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(pidPath), 30000);
        QFile pidFile(pidPath);
        QVERIFY(pidFile.open(QIODevice::ReadOnly));
        const pid_t pid = pidFile.readAll().trimmed().toInt();
        QVERIFY(pid > 0);
        session.send({{"jsonrpc", "2.0"}, {"method", "control.cancel"}, {"params", {{"reason", "user"}}}});
        QCOMPARE(session.finish(), 1);
        QCOMPARE(session.lastEvent()["data"]["reason"], "cancelled");
        QVERIFY(kill(pid, 0) != 0);
    }

    void pauseThenResumeReportsTheInterruptedCall() {
        QTemporaryDir shared;
        Session first;
        QVERIFY(first.start());
        first.startTask();
        json chat = first.nextRequest("llm.chat");
        first.respond(chat, callReply("c1", "shell", {{"command", "exec sleep 1000"}}));
        QVERIFY(first.waitForEvent(et::kToolCall));
        first.send({{"jsonrpc", "2.0"}, {"method", "control.pause"}});
        QCOMPARE(first.finish(), 75);
        QCOMPARE(first.lastEvent()["data"]["reason"], "paused");
        const auto lastSeq = first.lastEvent()["seq"].get<std::uint64_t>();

        // A second agent on the same directories resumes the task.
        QProcess& agent = first.agent;
        first.events.clear();
        agent.start(agentBinary(), {"serve", "--workspace", first.dir("workspace"), "--state",
                                    first.dir("state"), "--output", first.dir("output")});
        QVERIFY(agent.waitForStarted());
        first.startTask();
        chat = first.nextRequest("llm.chat");
        QVERIFY(!chat.is_null());
        const auto params = protocol::llmChatParamsFromJson(chat["params"]);
        QVERIFY(params);
        QCOMPARE(params->messages.back().toolCallId, std::optional<std::string>("c1"));
        QVERIFY(params->messages.back().content.rfind("[interrupted]", 0) == 0);
        first.respond(chat, finishReply());
        QCOMPARE(first.finish(), 0);
        QCOMPARE(first.events.front()["type"], "task_resumed");
        QVERIFY(first.events.front()["seq"].get<std::uint64_t>() > lastSeq);
    }

    void refusedTaskStartsNameTheProblem_data() {
        QTest::addColumn<QByteArray>("params");
        QTest::addColumn<QString>("message");
        QTest::newRow("protocol version")
            << QByteArray(R"({"protocol_version":1,"task_id":"t","prompt":"p"})") << "protocol_version";
        QTest::newRow("unknown preset")
            << QByteArray(R"({"protocol_version":6,"task_id":"t","prompt":"p","presets":["warp-speed"]})")
            << "warp-speed";
        QTest::newRow("unknown key")
            << QByteArray(R"({"protocol_version":6,"task_id":"t","prompt":"p","overrides":{"max_stepz":1}})")
            << "max_stepz";
    }
    void refusedTaskStartsNameTheProblem() {
        QFETCH(QByteArray, params);
        QFETCH(QString, message);
        Session session;
        QVERIFY(session.start());
        session.sendLine(QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"task.start\",\"params\":") +
                         params + "}");
        const json answer = session.next();
        QCOMPARE(answer["error"]["code"], -32602);
        QVERIFY2(answer["error"]["message"].get<std::string>().find(message.toStdString()) !=
                     std::string::npos,
                 answer.dump().c_str());
        QCOMPARE(session.finish(), 2);
    }
};

QTEST_GUILESS_MAIN(TestAgentServe)
#include "tst_agent_serve.moc"
