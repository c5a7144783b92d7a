// The translators of the CLIs' streams (ClaudeStream, CodexStream, CodexAppServer) and their permission asks:
// streams captured from Claude Code 2.1.197 and Codex 0.171.0 against a model double
// (tests/fixtures/cli_streams), and lines a CLI, or whatever runs in its sandbox, might write instead.

#include "agent_core/clis/ClaudePermissions.h"
#include "agent_core/clis/ClaudeStream.h"
#include "agent_core/clis/CodexAppServer.h"
#include "agent_core/clis/CodexPermissions.h"
#include "agent_core/clis/CodexStream.h"
#include "agent_core/tools/PatchFormat.h"
#include "common/FileText.h"

#include <QtTest>
#include <variant>

using namespace warren;
using namespace warren::agent;
using namespace warren::protocol;
using nlohmann::json;

namespace {

struct Translated {
    std::vector<CliEvent> events;
    std::optional<std::string> sessionId;
    std::optional<CliEnd> end;
    std::vector<CliPermissionAsk> asks;
    std::vector<std::string> replies; // lines for the CLI's stdin
    // "type" or "type:tool", in order.
    QStringList names() const {
        QStringList out;
        for (const auto& event : events) {
            const auto type = std::visit([](const auto& payload) { return payload.kType; }, event.payload);
            out << QString::fromUtf8(type.data(), qsizetype(type.size())) +
                       (event.tool ? ":" + QString::fromStdString(*event.tool) : QString());
        }
        return out;
    }
    template <typename T> std::vector<T> of() const {
        std::vector<T> out;
        for (const auto& event : events)
            if (const auto* payload = std::get_if<T>(&event.payload))
                out.push_back(*payload);
        return out;
    }
};

template <typename Stream> Translated translateAll(Stream stream, const std::vector<std::string>& lines) {
    Translated out;
    for (const auto& line : lines) {
        auto translated = stream.translate(line);
        out.events.insert(out.events.end(), translated.events.begin(), translated.events.end());
        if (translated.sessionId)
            out.sessionId = translated.sessionId;
        if (translated.end)
            out.end = translated.end;
        if (translated.permission)
            out.asks.push_back(*translated.permission);
        if (!translated.reply.empty())
            out.replies.push_back(translated.reply);
    }
    return out;
}

// "claude", "codex" (exec --json) or "codex-app-server" (its prompt: "do it").
Translated translate(const QString& cli, const std::vector<std::string>& lines) {
    if (cli == "claude")
        return translateAll(ClaudeStream(), lines);
    if (cli == "codex")
        return translateAll(CodexStream(), lines);
    return translateAll(CodexAppServer("do it"), lines);
}

std::vector<std::string> toStd(const QStringList& list) {
    std::vector<std::string> out;
    for (const auto& item : list)
        out.push_back(item.toStdString());
    return out;
}

std::vector<std::string> fixtureLines(const QString& name) {
    const auto text = readFileText(qEnvironmentVariable("WARREN_TEST_DATA").toStdString() + "/cli_streams/" +
                                   name.toStdString());
    std::vector<std::string> lines;
    if (!text)
        return lines;
    std::stringstream stream(*text);
    for (std::string line; std::getline(stream, line);)
        lines.push_back(line);
    return lines;
}

} // namespace

class TestCliStreams : public QObject {
    Q_OBJECT
private slots:
    // A whole captured run: the events in order, the session, and how it ended.
    void capturedStream_data() {
        QTest::addColumn<QString>("cli");
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QStringList>("events");
        QTest::addColumn<QString>("session");
        QTest::addColumn<QString>("summary");

        QTest::newRow("claude runs a command and writes a file")
            << "claude" << "claude-tools.jsonl"
            << QStringList{"log", "step_started", "tool_call:Bash", "tool_result:Bash", "step_started",
                           "tool_call:Write", "tool_result:Write", "step_started", "model_response"}
            << "3bc68a99-b534-4974-953b-3624ba3c854d" << "Done: ran echo and wrote notes.txt.";
        QTest::newRow("claude resumed with a reply")
            << "claude" << "claude-resume.jsonl" << QStringList{"log", "step_started", "model_response"}
            << "3bc68a99-b534-4974-953b-3624ba3c854d" << "Done: ran echo and wrote notes.txt.";
        QTest::newRow("codex runs two commands")
            << "codex" << "codex-tools.jsonl"
            << QStringList{"log", "error", "step_started", "tool_call:command_execution",
                           "tool_result:command_execution", "step_started", "tool_call:command_execution",
                           "tool_result:command_execution", "model_response"}
            << "01a24448-8064-7e03-b1f3-3094454d6de2" << "Done: ran echo and wrote notes.txt.";
        // The same run's events, from the app-server a task with approvals runs (CodexAppServer): asked and
        // accepted, its command and its patch ran.
        QTest::newRow("codex app-server") << "codex-app-server"
                                          << "codex-app-server.jsonl"
                                          << QStringList{"log",
                                                         "log",
                                                         "step_started",
                                                         "tool_call:command_execution",
                                                         "tool_result:command_execution",
                                                         "step_started",
                                                         "tool_call:file_change",
                                                         "tool_result:file_change",
                                                         "model_response"}
                                          << "01a2519c-795d-7ca0-be5c-057d0b64b041"
                                          << "Done: wrote notes.txt.";
        QTest::newRow("codex resumed with a reply")
            << "codex" << "codex-resume.jsonl" << QStringList{"log", "error", "step_started", "model_response"}
            << "01a24448-8064-7e03-b1f3-3094454d6de2" << "Follow-up done.";
    }
    void capturedStream() {
        QFETCH(QString, cli);
        QFETCH(QString, fixture);
        QFETCH(QStringList, events);
        QFETCH(QString, session);
        QFETCH(QString, summary);
        const auto lines = fixtureLines(fixture);
        QVERIFY2(!lines.empty(), qPrintable("no fixture " + fixture + " under $WARREN_TEST_DATA/cli_streams"));
        const auto out = translate(cli, lines);
        QCOMPARE(out.names(), events);
        QCOMPARE(QString::fromStdString(out.sessionId.value_or("")), session);
        QVERIFY(out.end.has_value());
        QVERIFY(out.end->reason == FinishReason::Finished);
        QCOMPARE(QString::fromStdString(out.end->summary), summary);
        QVERIFY(out.end->usage.has_value());
        QVERIFY(out.end->usage->input > 0 && out.end->usage->output > 0);
        for (const auto& error : out.of<ErrorData>())
            QVERIFY(!error.fatal); // codex's word about an unknown model's metadata: it goes on
    }

    // The calls' arguments and results as the faces show them.
    void claudeCallsAndResults() {
        const auto out = translate("claude", fixtureLines("claude-tools.jsonl"));
        const auto calls = out.of<ToolCallData>();
        QCOMPARE(calls.size(), std::size_t(2));
        QCOMPARE(calls[0].id, std::string("toolu_0"));
        QCOMPARE(calls[0].arguments.value("command", ""), std::string("echo hello from $(hostname)"));
        QCOMPARE(calls[1].arguments.value("file_path", ""), std::string("/workspace/notes.txt"));
        const auto results = out.of<ToolResultData>();
        QCOMPARE(results[0].output, std::string("hello from vm"));
        QCOMPARE(results[0].exitCode, std::optional<std::int64_t>(0));
    }
    void codexCallsAndResults() {
        const auto out = translate("codex", fixtureLines("codex-tools.jsonl"));
        const auto calls = out.of<ToolCallData>();
        QCOMPARE(calls.size(), std::size_t(2));
        QCOMPARE(calls[0].arguments.value("command", ""), std::string("/bin/bash -lc 'echo hello from $(hostname)'"));
        const auto results = out.of<ToolResultData>();
        QCOMPARE(results[0].id, std::string("item_1"));
        QCOMPARE(results[0].output, std::string("hello from vm\n"));
        QCOMPARE(results[0].exitCode, std::optional<std::int64_t>(0));
    }

    // Lines that are not a captured run: a CLI's failures, and what a compromised CLI might write.
    void lines_data() {
        QTest::addColumn<QString>("cli");
        QTest::addColumn<QStringList>("lines");
        QTest::addColumn<QStringList>("events");
        QTest::addColumn<int>("end"); // -1: none, else a FinishReason

        const int none = -1;
        const int failed = int(FinishReason::Failed);
        QTest::newRow("claude: not JSON") << "claude" << QStringList{"Segmentation fault"} << QStringList{"error"}
                                          << none;
        QTest::newRow("claude: JSON but not an object") << "claude" << QStringList{"[1,2]"} << QStringList{"error"}
                                                        << none;
        QTest::newRow("claude: no type") << "claude" << QStringList{R"({"x":1})"} << QStringList{"error"} << none;
        QTest::newRow("claude: a type it does not know is a debug log")
            << "claude" << QStringList{R"({"type":"stream_event"})"} << QStringList{"log"} << none;
        QTest::newRow("claude: assistant without content")
            << "claude" << QStringList{R"({"type":"assistant","message":{"id":"m1"}})"}
            << QStringList{"step_started"} << none;
        QTest::newRow("claude: two blocks of one reply are one step")
            << "claude"
            << QStringList{R"({"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"hm"}]}})",
                           R"({"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"}]}})"}
            << QStringList{"step_started", "model_response", "model_response"} << none;
        QTest::newRow("claude: tool input not an object becomes empty arguments")
            << "claude"
            << QStringList{R"({"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":"ls"}]}})"}
            << QStringList{"step_started", "tool_call:Bash"} << none;
        QTest::newRow("claude: result of an unknown call has no tool")
            << "claude"
            << QStringList{R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"zz","content":"x"}]}})"}
            << QStringList{"tool_result"} << none;
        QTest::newRow("claude: error result")
            << "claude"
            << QStringList{R"({"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s-1"})"}
            << QStringList{"error"} << failed;
        // Members of another type than the CLI writes are read as absent, never thrown on (found by
        // fuzz_cli_streams: a result line's is_error as a string ended the supervisor).
        QTest::newRow("claude: is_error not a boolean")
            << "claude" << QStringList{R"({"type":"result","subtype":"success","is_error":"yes","result":"x"})"}
            << QStringList{} << int(FinishReason::Finished);
        QTest::newRow("claude: a tool result's is_error not a boolean")
            << "claude"
            << QStringList{R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"x","is_error":1}]}})"}
            << QStringList{"tool_result"} << none;
        QTest::newRow("codex: a plan step's completed not a boolean")
            << "codex"
            << QStringList{R"({"type":"item.started","item":{"id":"i1","type":"todo_list","items":[{"text":"a","completed":"no"}]}})"}
            << QStringList{"plan_updated"} << none;
        QTest::newRow("codex: not JSON") << "codex" << QStringList{"{\"type\":"} << QStringList{"error"} << none;
        QTest::newRow("codex: stream error then failed turn")
            << "codex"
            << QStringList{R"({"type":"error","message":"stream disconnected"})",
                           R"({"type":"turn.failed","error":{"message":"unexpected status 401"}})"}
            << QStringList{"error", "error"} << failed;
        QTest::newRow("codex: a file change is a call and its result")
            << "codex"
            << QStringList{R"({"type":"turn.started"})",
                           R"({"type":"item.completed","item":{"id":"i1","type":"file_change","status":"completed","changes":[{"path":"a.txt","kind":"add"}]}})"}
            << QStringList{"step_started", "tool_call:file_change", "tool_result:file_change"} << none;
        QTest::newRow("codex: a plan")
            << "codex"
            << QStringList{R"({"type":"item.started","item":{"id":"i1","type":"todo_list","items":[{"text":"a","completed":true},{"text":"b","completed":false}]}})"}
            << QStringList{"plan_updated"} << none;
        QTest::newRow("codex: item without an object")
            << "codex" << QStringList{R"({"type":"item.completed","item":"x"})"} << QStringList{"log"} << none;
    }
    void lines() {
        QFETCH(QString, cli);
        QFETCH(QStringList, lines);
        QFETCH(QStringList, events);
        QFETCH(int, end);
        std::vector<std::string> input;
        for (const auto& line : lines)
            input.push_back(line.toStdString());
        const auto out = translate(cli, input);
        QCOMPARE(out.names(), events);
        QCOMPARE(out.end ? int(out.end->reason) : -1, end);
        for (const auto& event : out.events) // every event is one the protocol's readers accept
            std::visit([](const auto& payload) { QVERIFY(std::decay_t<decltype(payload)>::fromJson(payload.toJson())); },
                       event.payload);
    }

    // A command's output is bounded, on a character boundary, and says it was cut.
    void outputIsBounded() {
        const std::string huge(kCliToolOutputBytes + 10, 'x');
        const std::string withAccent = std::string(kCliToolOutputBytes - 1, 'a') + "\xc3\xa9";
        for (const auto& output : {huge, withAccent}) {
            const json item = {{"id", "i1"}, {"type", "command_execution"}, {"command", "yes"},
                               {"aggregated_output", output}, {"exit_code", 0}, {"status", "completed"}};
            const auto out = translate("codex", {json{{"type", "item.completed"}, {"item", item}}.dump()});
            const auto results = out.of<ToolResultData>();
            QCOMPARE(results.size(), std::size_t(1));
            QVERIFY(results[0].truncated);
            QVERIFY(results[0].output.size() <= kCliToolOutputBytes);
            QVERIFY(results[0].output.back() != '\xc3');
        }
    }

    // Claude Code's Bash says a failed command's status first.
    void claudeExitCode_data() {
        QTest::addColumn<QString>("content");
        QTest::addColumn<bool>("isError");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("success") << "ok" << false << 0;
        QTest::newRow("exit code given") << "Exit code 2\nno such file" << true << 2;
        QTest::newRow("error without a code") << "File has not been read yet" << true << 1;
    }
    void claudeExitCode() {
        QFETCH(QString, content);
        QFETCH(bool, isError);
        QFETCH(int, exitCode);
        const json line = {{"type", "user"},
                           {"message",
                            {{"content",
                              {{{"type", "tool_result"}, {"tool_use_id", "t"}, {"content", content.toStdString()},
                                {"is_error", isError}}}}}}};
        const auto results = translate("claude", {line.dump()}).of<ToolResultData>();
        QCOMPARE(results.size(), std::size_t(1));
        QCOMPARE(results[0].exitCode, std::optional<std::int64_t>(exitCode));
    }

    // Claude Code's permission ask (a line captured from 2.1.197 with --permission-prompt-tool stdio) and the
    // answers the supervisor writes back; any other control request is refused so Claude Code never waits.
    void claudePermissionAsks() {
        ClaudeStream stream;
        const std::string ask =
            R"({"type":"control_request","request_id":"dc35e4cd","request":{"subtype":"can_use_tool","tool_name":"Bash",)"
            R"("display_name":"Bash","input":{"command":"echo hi > ran.txt","description":"write"},"description":"write",)"
            R"("permission_suggestions":[],"blocked_path":"/tmp/exp/ran.txt","tool_use_id":"toolu_1"}})";
        const auto asked = stream.translate(ask);
        QVERIFY(asked.events.empty());
        QVERIFY(asked.permission && asked.reply.empty());
        QCOMPARE(asked.permission->requestId, std::string("dc35e4cd"));
        QCOMPARE(asked.permission->tool, std::string("Bash"));
        QCOMPARE(asked.permission->callId, std::string("toolu_1"));
        QCOMPARE(asked.permission->input.value("command", ""), std::string("echo hi > ran.txt"));

        const json allowed = json::parse(claudePermissionAnswer(*asked.permission, true, ""));
        QCOMPARE(allowed["type"], "control_response");
        QCOMPARE(allowed["response"]["request_id"], "dc35e4cd");
        QCOMPARE(allowed["response"]["response"]["behavior"], "allow");
        QCOMPARE(allowed["response"]["response"]["updatedInput"], asked.permission->input);
        const std::string denyLine = claudePermissionAnswer(*asked.permission, false, "no \"rm\"\nplease");
        QCOMPARE(std::count(denyLine.begin(), denyLine.end(), '\n'), 1L); // one line, whatever the note says
        const json denied = json::parse(denyLine);
        QCOMPARE(denied["response"]["response"]["behavior"], "deny");
        QCOMPARE(denied["response"]["response"]["message"], "no \"rm\"\nplease");

        const auto other = stream.translate(R"({"type":"control_request","request_id":"r9","request":{"subtype":"mcp_message"}})");
        QVERIFY(!other.permission);
        const json refusal = json::parse(other.reply);
        QCOMPARE(refusal["response"]["subtype"], "error");
        QCOMPARE(refusal["response"]["request_id"], "r9");
        // Not an ask it can answer: no request id, or a request that is not an object.
        QVERIFY(!stream.translate(R"({"type":"control_request","request":{"subtype":"can_use_tool","tool_name":"Bash"}})").permission);
        QVERIFY(!stream.translate(R"({"type":"control_request","request_id":"r","request":"can_use_tool"})").permission);
    }

    // Asked as Warren's calls: its tool's name, and a file's path as Warren's agent names it. A path that
    // leaves the workspace stays as written, for the rules to judge.
    void claudeCallsAsWarrens() {
        const auto bash = warrenCallOf("Bash", {{"command", "git status"}, {"description", "look"}});
        QCOMPARE(bash.tool, std::string("shell"));
        QCOMPARE(bash.arguments.value("command", ""), std::string("git status"));
        const auto write = warrenCallOf("Write", {{"file_path", "/workspace/docs/a.md"}, {"content", "x"}});
        QCOMPARE(write.tool, std::string("write_file"));
        QCOMPARE(write.arguments.value("path", ""), std::string("docs/a.md"));
        QCOMPARE(warrenCallOf("Edit", {{"file_path", "/workspace/../etc/passwd"}}).arguments.value("path", ""),
                 std::string("../etc/passwd"));
        QCOMPARE(warrenCallOf("Edit", {{"file_path", "/etc/passwd"}}).arguments.value("path", ""),
                 std::string("/etc/passwd"));
        QCOMPARE(warrenCallOf("Edit", {{"file_path", "/workspace2/x"}}).arguments.value("path", ""),
                 std::string("/workspace2/x"));
        const auto mcp = warrenCallOf("mcp__github__create_issue", json::array());
        QCOMPARE(mcp.tool, std::string("mcp__github__create_issue"));
        QVERIFY(mcp.arguments.is_object() && mcp.arguments.empty());
    }

    void claudeApprovals_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QStringList>("approvalTools");
        QTest::addColumn<bool>("asks");
        const QStringList safeMode{"shell", "write_file", "edit_file", "apply_patch"};
        QTest::newRow("Bash is shell") << "Bash" << safeMode << true;
        QTest::newRow("Write is write_file") << "Write" << safeMode << true;
        QTest::newRow("MultiEdit is edit_file") << "MultiEdit" << safeMode << true;
        QTest::newRow("Read is read_file, not listed") << "Read" << safeMode << false;
        QTest::newRow("Bash when only writes ask") << "Bash" << QStringList{"write_file"} << false;
        QTest::newRow("an MCP tool has no counterpart") << "mcp__github__create_issue" << QStringList{"read_file"} << true;
        QTest::newRow("WebFetch has no counterpart") << "WebFetch" << QStringList{"shell"} << true;
        QTest::newRow("nothing asks without approval_tools") << "mcp__github__create_issue" << QStringList{} << false;
    }
    void claudeApprovals() {
        QFETCH(QString, tool);
        QFETCH(QStringList, approvalTools);
        QFETCH(bool, asks);
        std::vector<std::string> tools;
        for (const auto& name : approvalTools)
            tools.push_back(name.toStdString());
        QCOMPARE(claudeCallNeedsApproval(tool.toStdString(), tools), asks);
        // What asks is never in --allowedTools.
        std::stringstream allowed(claudeAllowedTools(tools));
        std::vector<std::string> names;
        for (std::string name; allowed >> name;)
            names.push_back(name);
        QCOMPARE(std::find(names.begin(), names.end(), tool.toStdString()) != names.end(),
                 !asks && warrenToolOf(tool.toStdString()).has_value());
    }

    // The app-server's side of the run: the thread's answer starts the turn with the prompt; each command and
    // change is asked, with what it will run or write, linked to its tool_call by the item's id.
    void codexAppServerAsks() {
        const auto out = translate("codex-app-server", fixtureLines("codex-app-server.jsonl"));
        QCOMPARE(out.replies.size(), std::size_t(1));
        const json turn = json::parse(out.replies[0]);
        QCOMPARE(turn["method"], "turn/start");
        QCOMPARE(turn["params"]["threadId"], "01a2519c-795d-7ca0-be5c-057d0b64b041");
        QCOMPARE(turn["params"]["input"][0]["text"], "do it");
        QCOMPARE(out.asks.size(), std::size_t(2));
        const auto calls = out.of<ToolCallData>();
        QCOMPARE(out.asks[0].tool, std::string(kCodexCommand));
        QCOMPARE(out.asks[0].callId, calls[0].id);
        QCOMPARE(out.asks[0].requestId, std::string("0"));
        const auto command = codexWarrenCall(out.asks[0]);
        QCOMPARE(command.tool, std::string("shell"));
        QCOMPARE(command.arguments.value("command", ""),
                 std::string("git status --short; printf '%s\\n' \"it's ok\" > ran.txt"));
        QCOMPARE(out.asks[1].tool, std::string(kCodexFileChange));
        QCOMPARE(out.asks[1].callId, calls[1].id);
        const auto change = codexWarrenCall(out.asks[1]);
        QCOMPARE(change.tool, std::string("apply_patch"));
        const auto patch = parsePatch(change.arguments.value("input", ""));
        QVERIFY2(patch, patch ? "" : patch.error().message.c_str());
        QCOMPARE(patch->ops.size(), std::size_t(2));
        QCOMPARE(patch->ops[0].path, std::string("a.txt"));
        QCOMPARE(patch->ops[0].hunks.at(0).newLines, (std::vector<std::string>{"one", "TWO"}));
        QCOMPARE(patch->ops[1].path, std::string("notes.txt"));
        QCOMPARE(patch->ops[1].content, std::string("approved\n"));
        // Events carry exec's shape of a change: its paths and kinds, not its contents.
        QCOMPARE(calls[1].arguments["changes"][1], json({{"path", "/workspace/notes.txt"}, {"kind", "add"}}));
    }

    // Codex's other requests are refused at once (it would wait for ever), with their id as it came; a
    // refused start ends the run.
    void codexAppServerRefusals() {
        CodexAppServer server("p");
        const auto other =
            server.translate(R"({"method":"item/tool/requestUserInput","id":"r1","params":{}})");
        QVERIFY(!other.permission && !other.end);
        const json refusal = json::parse(other.reply);
        QCOMPARE(refusal["id"], "r1");
        QCOMPARE(refusal["error"]["code"], -32601);
        const auto refused =
            server.translate(R"({"id":2,"error":{"code":-32600,"message":"no such thread"}})");
        QVERIFY(refused.end && refused.end->reason == FinishReason::Failed);
        QVERIFY2(refused.end->summary.find("no such thread") != std::string::npos,
                 refused.end->summary.c_str());
        // Not JSON-RPC at all: said, not followed.
        const auto junk = server.translate("{\"jsonrpc\": 1}");
        QCOMPARE(junk.events.size(), std::size_t(1));
        QVERIFY(!junk.end && junk.reply.empty());

        CliPermissionAsk numbered{"7", kCodexCommand, json::object(), "call_7"};
        QCOMPARE(json::parse(codexPermissionAnswer(numbered, true)),
                 json({{"id", 7}, {"result", {{"decision", "accept"}}}}));
        CliPermissionAsk named{"\"a\\nb\"", kCodexFileChange, json::object(), "call_8"};
        const std::string declined = codexPermissionAnswer(named, false);
        QCOMPARE(std::count(declined.begin(), declined.end(), '\n'), 1L);
        QCOMPARE(json::parse(declined), json({{"id", "a\nb"}, {"result", {{"decision", "decline"}}}}));
    }

    void codexApprovals_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QStringList>("approvalTools");
        QTest::addColumn<bool>("asks");
        const QStringList safeMode{"shell", "write_file", "edit_file", "apply_patch"};
        QTest::newRow("a command is shell") << kCodexCommand << safeMode << true;
        QTest::newRow("a change is apply_patch") << kCodexFileChange << QStringList{"apply_patch"} << true;
        QTest::newRow("a change writes files") << kCodexFileChange << QStringList{"write_file"} << true;
        QTest::newRow("a command when only writes ask") << kCodexCommand << QStringList{"edit_file"} << false;
        QTest::newRow("a change when only commands ask") << kCodexFileChange << QStringList{"shell"} << false;
        QTest::newRow("nothing else is gated") << "mcp_tool_call" << safeMode << false;
    }
    void codexApprovals() {
        QFETCH(QString, tool);
        QFETCH(QStringList, approvalTools);
        QFETCH(bool, asks);
        QCOMPARE(codexCallNeedsApproval(tool.toStdString(), toStd(approvalTools)), asks);
    }

    // What the approval rules read of a command: the script inside Codex's `bash -lc`, quoted as a shell
    // reads it; anything else stays the whole command line.
    void shellScripts_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("script"); // null: not unwrapped
        QTest::newRow("single quotes") << "/bin/bash -lc 'rm -rf ./; touch x'"
                                       << "rm -rf ./; touch x";
        QTest::newRow("a quote inside") << "/bin/bash -lc 'echo it'\"'\"'s'"
                                        << "echo it's";
        QTest::newRow("double quotes") << "bash -c \"printf '%s\\n' \\\"a\\\\b\\\"\""
                                       << "printf '%s\\n' \"a\\b\"";
        QTest::newRow("sh") << "/bin/sh -c ls"
                            << "ls";
        QTest::newRow("an expansion is the script's") << "/bin/bash -lc \"echo \\$HOME $PWD\""
                                                      << "echo $HOME $PWD";
        QTest::newRow("an operator outside quotes") << "/bin/bash -lc ls; rm -rf /" << QString();
        QTest::newRow("another program") << "python3 -c 'print(1)'" << QString();
        QTest::newRow("an extra word") << "/bin/bash -lc ls extra" << QString();
        QTest::newRow("unclosed") << "/bin/bash -lc 'ls" << QString();
        QTest::newRow("a trailing backslash") << "/bin/bash -lc ls\\" << QString();
    }
    void shellScripts() {
        QFETCH(QString, line);
        QFETCH(QString, script);
        const auto unwrapped = unwrapShellScript(line.toStdString());
        QCOMPARE(unwrapped.has_value(), !script.isNull());
        if (unwrapped)
            QCOMPARE(QString::fromStdString(*unwrapped), script);
        // Asked as shell either way: a line that is not unwrapped is the command the rules judge.
        const auto call = codexWarrenCall({"0", kCodexCommand, {{"command", line.toStdString()}}, "c"});
        QCOMPARE(QString::fromStdString(call.arguments.value("command", "")),
                 script.isNull() ? line : script);
    }

    // Every path a change names reaches the rules: moves, deletions, files outside the workspace (kept
    // absolute, for a rule to refuse), and exec's string kinds.
    void codexChangesArePatches() {
        const auto change = [](const char* path, json kind, const char* diff) {
            return json{{"path", path}, {"kind", std::move(kind)}, {"diff", diff}};
        };
        const json changes = json::array(
            {change("/workspace/a.txt", {{"type", "update"}, {"move_path", "/workspace/b.txt"}},
                    "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n\n\nMoved to: /workspace/b.txt"),
             change("/workspace/c.txt", {{"type", "delete"}}, "c\n"),
             change("/etc/cron.d/x", {{"type", "add"}}, "* * * * * root sh\n"),
             change("/workspace/d.txt", {{"type", "update"}, {"move_path", "/workspace/e.txt"}}, ""),
             change("/workspace/f.txt", "delete", "")});
        const auto patch = parsePatch(codexChangesAsPatch(changes));
        QVERIFY2(patch, patch ? "" : patch.error().message.c_str());
        std::vector<std::string> paths;
        for (const auto& op : patch->ops) {
            paths.push_back(op.path);
            if (!op.moveTo.empty())
                paths.push_back(op.moveTo);
        }
        QCOMPARE(paths, (std::vector<std::string>{"a.txt", "b.txt", "c.txt", "/etc/cron.d/x", "d.txt",
                                                  "e.txt", "f.txt"}));
        QCOMPARE(patch->ops[0].hunks.at(0).oldLines, (std::vector<std::string>{"one", "two", "three"}));
    }
};

QTEST_GUILESS_MAIN(TestCliStreams)
#include "tst_cli_streams.moc"
