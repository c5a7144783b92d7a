// JsonRpc and Methods: every malformed line gets the right JSON-RPC error code and a message that says what
// is wrong; valid messages decode to the right kind and serialize back to one line; the params and results
// of each method round-trip and refuse unknown keys and wrong types.

#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/Methods.h"

#include <QtTest>

using namespace warren;
using namespace warren::protocol;
using nlohmann::json;

Q_DECLARE_METATYPE(std::string)

namespace {

QString kindOf(const Message& message) {
    switch (message.index()) {
    case 0:
        return "request";
    case 1:
        return "notification";
    case 2:
        return "response";
    default:
        return "error response";
    }
}

Message sampleMessage(const QString& name) {
    if (name == "request")
        return Request{Id(std::int64_t{42}), "memory.get", json{{"namespace", "n"}, {"key", "k"}}};
    if (name == "notification")
        return Notification{"event", json{{"text", "line one\nline two\r\n\ttab \u001b"}}};
    if (name == "response")
        return Response{Id(std::string("id-\xc3\xa9")), json{{"content", "h\xc3\xa9 \xf0\x9f\x90\x87"}}};
    ErrorResponse error;
    error.id = std::int64_t{-1};
    error.error = RpcError{-32000, "tool failed", json{{"exit", 2}}};
    return error;
}

} // namespace

class TestJsonRpc : public QObject {
    Q_OBJECT

private slots:
    void refusesMalformed_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("id"); // the id the error response carries; empty: null

        const int parse = rpc_error::kParseError;
        const int invalid = rpc_error::kInvalidRequest;
        QTest::newRow("not json")
            << QByteArray("hello") << parse
            << "not JSON: parse error at line 1, column 1: syntax error while parsing value - "
               "invalid literal; last read: 'h'"
            << "";
        QTest::newRow("truncated json")
            << QByteArray("{\"jsonrpc\":\"2.0\"") << parse
            << "not JSON: parse error at line 1, column 17: syntax error while parsing "
               "object - unexpected end of input; expected '}'"
            << "";
        QTest::newRow("trailing garbage")
            << QByteArray("{} {}") << parse
            << "not JSON: parse error at line 1, column 4: syntax error while parsing "
               "value - unexpected '{'; expected end of input"
            << "";
        QTest::newRow("number too large for a double")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[1e400]}") << parse
            << "not JSON: number overflow parsing '1e400'"
            << "";
        QTest::newRow("too deep") << (QByteArray(200, '[') + QByteArray(200, ']')) << parse
                                  << "not JSON: nesting deeper than 128 levels is not accepted"
                                  << "";
        QTest::newRow("array batch")
            << QByteArray("[{\"jsonrpc\":\"2.0\",\"method\":\"event\"}]") << invalid
            << "invalid message: a JSON array (batches are not supported); send one object "
               "per line"
            << "";
        QTest::newRow("string") << QByteArray("\"hi\"") << invalid
                                << "invalid message: a message must be a JSON object, got a string"
                                << "";
        QTest::newRow("number") << QByteArray("42") << invalid
                                << "invalid message: a message must be a JSON object, got the integer 42"
                                << "";
        QTest::newRow("missing jsonrpc") << QByteArray("{\"id\":1,\"method\":\"llm.chat\"}") << invalid
                                         << "invalid message: \"jsonrpc\": \"2.0\" is missing"
                                         << "1";
        QTest::newRow("wrong version")
            << QByteArray("{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"x\"}") << invalid
            << "invalid message: \"jsonrpc\" must be \"2.0\", got \"1.0\""
            << "a";
        QTest::newRow("version as number") << QByteArray("{\"jsonrpc\":2.0,\"method\":\"x\"}") << invalid
                                           << "invalid message: \"jsonrpc\" must be \"2.0\", got 2.0"
                                           << "";
        QTest::newRow("fractional id")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\"}") << invalid
            << "invalid message: \"id\" must be an integer or a string, got the number 1.5"
            << "";
        QTest::newRow("bool id") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"x\"}")
                                 << invalid
                                 << "invalid message: \"id\" must be an integer or a string, got true"
                                 << "";
        QTest::newRow("object id") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}")
                                   << invalid
                                   << "invalid message: \"id\" must be an integer or a string, got an object"
                                   << "";
        QTest::newRow("array id") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"x\"}")
                                  << invalid
                                  << "invalid message: \"id\" must be an integer or a string, got an array"
                                  << "";
        QTest::newRow("id beyond int64")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":18446744073709551615,\"method\":\"x\"}") << invalid
            << "invalid message: \"id\" is out of range: 18446744073709551615"
            << "";
        QTest::newRow("null id on request")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\"}") << invalid
            << "invalid message: \"id\" of a request must be an integer or a string, "
               "got null"
            << "";
        QTest::newRow("method not a string")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}") << invalid
            << "invalid message: method: must be a string, got the integer 5"
            << "7";
        QTest::newRow("method empty") << QByteArray("{\"jsonrpc\":\"2.0\",\"method\":\"\"}") << invalid
                                      << "invalid message: \"method\" is empty"
                                      << "";
        QTest::newRow("params a string")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":\"p\"}") << invalid
            << "invalid message: \"params\" must be an object or an array, got a string"
            << "1";
        QTest::newRow("params null") << QByteArray("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":null}")
                                     << invalid
                                     << "invalid message: \"params\" must be an object or an array, got null"
                                     << "";
        QTest::newRow("method with result")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"result\":1}") << invalid
            << "invalid message: unknown key \"result\" (a request or notification has "
               "no result or error)"
            << "1";
        QTest::newRow("unknown member") << QByteArray("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"parms\":{}}")
                                        << invalid << "invalid message: unknown key \"parms\""
                                        << "";
        QTest::newRow("params without method")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"params\":{}}") << invalid
            << "invalid message: unknown key \"params\" (\"params\" without \"method\")"
            << "1";
        QTest::newRow("both result and error")
            << QByteArray(
                   "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}")
            << invalid << "invalid message: a response has either \"result\" or \"error\", not both"
            << "3";
        QTest::newRow("neither result nor error") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":3}") << invalid
                                                  << "invalid message: neither \"method\" nor \"result\" nor "
                                                     "\"error\": not a request, notification or "
                                                     "response"
                                                  << "3";
        QTest::newRow("response without id") << QByteArray("{\"jsonrpc\":\"2.0\",\"result\":1}") << invalid
                                             << "invalid message: a response needs an \"id\""
                                             << "";
        QTest::newRow("result with null id")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":1}") << invalid
            << "invalid message: \"id\" of a successful response must be an integer "
               "or a string, got null"
            << "";
        QTest::newRow("error not an object")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"bad\"}") << invalid
            << "invalid message: error: must be an object, got a string"
            << "1";
        QTest::newRow("error without code")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"m\"}}") << invalid
            << "invalid message: error.code: missing"
            << "1";
        QTest::newRow("error code fractional")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1.5,\"message\":\"m\"}}")
            << invalid
            << "invalid message: error.code: must be a whole number from -2147483648 to 2147483647, got the "
               "number 1.5"
            << "1";
        QTest::newRow("error code beyond uint64 wrap")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":18446744073709551615,"
                          "\"message\":\"m\"}}")
            << invalid
            << "invalid message: error.code: must be a whole number from -2147483648 to 2147483647, got the "
               "integer 18446744073709551615"
            << "1";
        QTest::newRow("error code below int32")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-2147483649,\"message\":\"m\"}}")
            << invalid
            << "invalid message: error.code: must be a whole number from -2147483648 to 2147483647, got the "
               "integer -2147483649"
            << "1";
        QTest::newRow("error without message")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1}}") << invalid
            << "invalid message: error.message: missing"
            << "1";
        QTest::newRow("error unknown key")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,\"message\":\"m\",\"x\":0}}")
            << invalid << "invalid message: error: unknown key \"x\""
            << "1";
        QTest::newRow("invalid utf-8 in a string")
            << QByteArray("{\"jsonrpc\":\"2.0\",\"method\":\"\xc0\xaf\"}") << parse
            << "not JSON: parse error at line 1, column 28: syntax error while "
               "parsing value - invalid string: ill-formed UTF-8 byte; last "
               "read: '\"\xc0'"
            << "";
    }

    void refusesMalformed() {
        QFETCH(QByteArray, line);
        QFETCH(int, code);
        QFETCH(QString, message);
        QFETCH(QString, id);
        const auto decoded = decodeMessage(line.toStdString());
        QVERIFY(std::holds_alternative<InvalidMessage>(decoded));
        const auto& failure = std::get<InvalidMessage>(decoded);
        QCOMPARE(failure.error.code, code);
        QCOMPARE(QString::fromStdString(failure.error.message), message);

        // The answer to the bad line is itself a valid error response carrying the id when it was readable.
        const auto answer = toJson(toErrorResponse(failure));
        QCOMPARE(answer.at("error").at("code").get<int>(), code);
        if (id.isEmpty())
            QVERIFY(answer.at("id").is_null());
        else
            QCOMPARE(QString::fromStdString(answer.at("id").is_string() ? answer.at("id").get<std::string>()
                                                                        : answer.at("id").dump()),
                     id);
        QVERIFY(parseMessage(serialize(toErrorResponse(failure))).ok());

        const auto result = parseMessage(line.toStdString());
        QVERIFY(!result.ok());
        QCOMPARE(QString::fromStdString(result.error().message), message);
    }

    void decodesValid_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QByteArray>("serialized");

        QTest::newRow("request with integer id")
            << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"llm.chat","params":{"messages":[]}})")
            << "request"
            << QByteArray(R"({"id":1,"jsonrpc":"2.0","method":"llm.chat","params":{"messages":[]}})");
        QTest::newRow("request with string id and array params")
            << QByteArray(R"({"jsonrpc":"2.0","id":"r-7","method":"m","params":[1,2]})") << "request"
            << QByteArray(R"({"id":"r-7","jsonrpc":"2.0","method":"m","params":[1,2]})");
        QTest::newRow("request with negative id")
            << QByteArray(R"({"jsonrpc":"2.0","id":-3,"method":"m"})") << "request"
            << QByteArray(R"({"id":-3,"jsonrpc":"2.0","method":"m"})");
        QTest::newRow("notification without params")
            << QByteArray(R"({"method":"control.cancel","jsonrpc":"2.0"})") << "notification"
            << QByteArray(R"({"jsonrpc":"2.0","method":"control.cancel"})");
        QTest::newRow("response with null result")
            << QByteArray(R"({"jsonrpc":"2.0","id":9,"result":null})") << "response"
            << QByteArray(R"({"id":9,"jsonrpc":"2.0","result":null})");
        QTest::newRow("error response with data")
            << QByteArray(
                   R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no such method","data":{"m":"q"}}})")
            << "error response"
            << QByteArray(
                   R"({"error":{"code":-32601,"data":{"m":"q"},"message":"no such method"},"id":"x","jsonrpc":"2.0"})");
        QTest::newRow("error response with null id")
            << QByteArray(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not JSON"}})")
            << "error response"
            << QByteArray(R"({"error":{"code":-32700,"message":"not JSON"},"id":null,"jsonrpc":"2.0"})");
        QTest::newRow("whitespace around")
            << QByteArray("  {\"jsonrpc\":\"2.0\",\"method\":\"event\",\"params\":{}}\t") << "notification"
            << QByteArray(R"({"jsonrpc":"2.0","method":"event","params":{}})");
    }

    void decodesValid() {
        QFETCH(QByteArray, line);
        QFETCH(QString, kind);
        QFETCH(QByteArray, serialized);
        const auto message = parseMessage(line.toStdString());
        QVERIFY2(message.ok(), message.ok() ? "" : message.error().message.c_str());
        QCOMPARE(kindOf(message.value()), kind);
        QCOMPARE(QByteArray::fromStdString(serialize(message.value())), serialized);
    }

    void roundTrips_data() {
        QTest::addColumn<QString>("sample");
        QTest::newRow("request") << "request";
        QTest::newRow("notification with newlines in a string") << "notification";
        QTest::newRow("response with unicode") << "response";
        QTest::newRow("error response") << "error response";
    }

    void roundTrips() {
        QFETCH(QString, sample);
        const Message original = sampleMessage(sample);
        const std::string line = serialize(original);
        QVERIFY(line.find('\n') == std::string::npos);
        QVERIFY(line.find('\r') == std::string::npos);
        const auto back = parseMessage(line);
        QVERIFY(back.ok());
        QVERIFY(back.value() == original);
    }

    // A string that is not UTF-8 (e.g. a tool's raw output) is still sent as a valid line.
    void serializeReplacesInvalidUtf8() {
        const std::string line = serialize(Notification{"event", json{{"out", std::string("a\xff"
                                                                                          "b")}}});
        QCOMPARE(QByteArray::fromStdString(line),
                 QByteArray("{\"jsonrpc\":\"2.0\",\"method\":\"event\",\"params\":{\"out\":\"a\xef\xbf\xbd"
                            "b\"}}"));
        QVERIFY(parseMessage(line).ok());
    }

    void methodsRoundTrip() {
        LlmChatParams chat;
        chat.messages = {
            ChatMessage{"system", "be brief", {}, std::nullopt},
            ChatMessage{
                "assistant", "", {ToolCall{"call_0_0", "shell", json{{"command", "ls"}}}}, std::nullopt},
            ChatMessage{"tool", "a.txt\n", {}, std::string("call_0_0")}};
        chat.tools = {ToolSpec{"shell", "Run a command", json{{"type", "object"}}}};
        QVERIFY(llmChatParamsFromJson(toJson(chat)).value() == chat);

        LlmChatResult reply{
            "done", {ToolCall{"c1", "finish", json{{"summary", "ok"}}}}, TokenUsage{12, 3}, "tool_calls"};
        QVERIFY(llmChatResultFromJson(toJson(reply)).value() == reply);

        ApprovalRequestParams approval{"shell", json{{"command", "rm -rf build"}}, "deletes files", ""};
        QVERIFY(approvalRequestParamsFromJson(toJson(approval)).value() == approval);
        QVERIFY(!toJson(approval).contains("call_id"));
        approval.callId = "call_7";
        QVERIFY(approvalRequestParamsFromJson(toJson(approval)).value() == approval);
        QVERIFY(approvalResultFromJson(toJson(ApprovalResult{false, std::string("not now")})).value() ==
                (ApprovalResult{false, std::string("not now")}));

        QVERIFY(memoryGetParamsFromJson(toJson(MemoryGetParams{"notes", "k"})).value() ==
                (MemoryGetParams{"notes", "k"}));
        QVERIFY(memoryGetResultFromJson(toJson(MemoryGetResult{std::string("v")})).value() ==
                MemoryGetResult{std::string("v")});
        QVERIFY(memoryGetResultFromJson(toJson(MemoryGetResult{})).value() == MemoryGetResult{});
        QVERIFY(memoryPutParamsFromJson(toJson(MemoryPutParams{"n", "k", "v"})).value() ==
                (MemoryPutParams{"n", "k", "v"}));
        QVERIFY(memorySearchParamsFromJson(toJson(MemorySearchParams{"q", 3})).value() ==
                (MemorySearchParams{"q", 3}));
        QVERIFY(memorySearchParamsFromJson(toJson(MemorySearchParams{"q", 3, false})).value() ==
                (MemorySearchParams{"q", 3, false}));
        QVERIFY(!memorySearchParamsFromJson(json{{"query", "q"}, {"ranked", "yes"}}));
        MemorySearchResult hits{{MemoryHit{"n", "k", "v"}}};
        QVERIFY(memorySearchResultFromJson(toJson(hits)).value() == hits);

        TaskStartParams start{kProtocolVersion,       "t-1",
                              "fix the test",         {"safe-mode", "local-light"},
                              json{{"max_steps", 5}}, std::nullopt};
        QVERIFY(taskStartParamsFromJson(toJson(start)).value() == start);
        start.token = "payload.mac";
        QVERIFY(taskStartParamsFromJson(toJson(start)).value() == start);
        start.sandbox = "bwrap";
        start.network = "allow:pypi.org";
        start.provider = "anthropic";
        start.model = "claude-sonnet-4-5";
        QVERIFY(taskStartParamsFromJson(toJson(start)).value() == start);
        QVERIFY(!toJson(start).contains("reply")); // a start or a resume says nothing of one
        start.reply = "now the README too";
        QCOMPARE(toJson(start).value("reply", ""), std::string("now the README too"));
        QVERIFY(taskStartParamsFromJson(toJson(start)).value() == start);
        QVERIFY(!toJson(start).contains("attended")); // unattended, as every run before version 5
        start.attended = true;
        QCOMPARE(toJson(start).value("attended", false), true);
        QVERIFY(taskStartParamsFromJson(toJson(start)).value() == start);
        QVERIFY(!toJson(start).contains("cli")); // Warren's own agent, as every start before the CLIs
        start.cli = CliAgentParams{AgentKind::Codex, "/opt/codex/bin/codex", {"/opt/codex/path"}, "/run/warren/model.sock",
                                   "gpt-5.1-codex"};
        QCOMPARE(toJson(start)["cli"]["kind"].get<std::string>(), std::string("codex"));
        QVERIFY(taskStartParamsFromJson(toJson(start)).value() == start);
        // A cluster's pod: the image's CLI by its command name, the model through the agent's listener.
        start.cli = CliAgentParams{AgentKind::ClaudeCode, "claude", {}, "", "claude-test"};
        QVERIFY(taskStartParamsFromJson(toJson(start)).value() == start);
        QVERIFY(!taskStartParamsFromJson(
            json{{"protocol_version", kProtocolVersion}, {"task_id", "t"}, {"prompt", "p"}, {"token", 5}}));
        QVERIFY(workspacePullParamsFromJson(toJson(WorkspacePullParams{"state", 4096})).value() ==
                (WorkspacePullParams{"state", 4096}));
        const std::string bytes("\0\xff tar\n", 7);
        QVERIFY(workspacePullResultFromJson(toJson(WorkspacePullResult{bytes, true})).value() ==
                (WorkspacePullResult{bytes, true}));
        QCOMPARE(toJson(WorkspacePullResult{bytes, false})["data"].get<std::string>(), std::string("AP8gdGFyCg=="));
        WorkspacePushParams push{"output", 1u << 20, std::string(kTransferChunkBytes, 'x'), false};
        QVERIFY(workspacePushParamsFromJson(toJson(push)).value() == push);
        QVERIFY(controlParamsFromJson(toJson(ControlParams{std::string("user")})).value() ==
                ControlParams{std::string("user")});
        QVERIFY(controlParamsFromJson(json()).value() == ControlParams{});
    }

    void methodsRefuse_data() {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QString>("message");

        QTest::newRow("llm.chat params not an object")
            << "llm.chat params" << QByteArray("[]") << "llm.chat params: must be an object, got an array";
        QTest::newRow("llm.chat without messages")
            << "llm.chat params" << QByteArray("{}") << "llm.chat params.messages: missing";
        QTest::newRow("llm.chat unknown role")
            << "llm.chat params" << QByteArray(R"({"messages":[{"role":"robot","content":""}]})")
            << "llm.chat params.messages[0].role: must be system, user, assistant or tool, got \"robot\"";
        QTest::newRow("llm.chat tool call arguments not an object")
            << "llm.chat params"
            << QByteArray(
                   R"({"messages":[{"role":"assistant","content":"","tool_calls":[{"id":"a","name":"s","arguments":"ls"}]}]})")
            << "llm.chat params.messages[0].tool_calls[0].arguments: must be an object, got a string";
        QTest::newRow("llm.chat misspelt key")
            << "llm.chat params" << QByteArray(R"({"messages":[],"tool":[]})")
            << "llm.chat params: unknown key \"tool\"";
        QTest::newRow("llm.chat result negative tokens")
            << "llm.chat result"
            << QByteArray(
                   R"({"content":"","tool_calls":[],"token_usage":{"input":-1,"output":0},"finish_reason":"stop"})")
            << "llm.chat result.token_usage.input: must be a non-negative integer, got the integer -1";
        QTest::newRow("llm.chat result unknown finish reason")
            << "llm.chat result"
            << QByteArray(R"({"content":"","token_usage":{"input":1,"output":0},"finish_reason":"eof"})")
            << "llm.chat result.finish_reason: must be stop, tool_calls or length, got \"eof\"";
        QTest::newRow("approval result approved as string")
            << "approval.request result" << QByteArray(R"({"approved":"yes"})")
            << "approval.request result.approved: must be true or "
               "false, got a string";
        QTest::newRow("memory.get result found without value")
            << "memory.get result" << QByteArray(R"({"found":true})") << "memory.get result.value: missing";
        QTest::newRow("task.start other protocol version")
            << "task.start params" << QByteArray(R"({"protocol_version":1,"task_id":"t","prompt":"p"})")
            << "task.start params.protocol_version: the control plane speaks version 1, this agent speaks "
               "version 6; "
               "install matching versions of warren and warren-agent";
        QTest::newRow("task.start preset not a string")
            << "task.start params"
            << QByteArray(R"({"protocol_version":6,"task_id":"t","prompt":"p","presets":[1]})")
            << "task.start params.presets[0]: must be a string, got the integer 1";
        QTest::newRow("task.start reply not a string")
            << "task.start params"
            << QByteArray(R"({"protocol_version":6,"task_id":"t","prompt":"p","reply":["go on"]})")
            << "task.start params.reply: must be a string, got an array";
        QTest::newRow("task.start attended not a boolean")
            << "task.start params"
            << QByteArray(R"({"protocol_version":6,"task_id":"t","prompt":"p","attended":"yes"})")
            << "task.start params.attended: must be true or false, got a string";
        QTest::newRow("task.start cli of an unknown kind")
            << "task.start params"
            << QByteArray(R"({"protocol_version":6,"task_id":"t","prompt":"p","cli":{"kind":"aider","program":"/c",)"
                          R"("model_socket":"/m.sock","model":"x"}})")
            << "task.start params.cli.kind: must be claude-code or codex, got \"aider\"";
        QTest::newRow("task.start cli program not absolute")
            << "task.start params"
            << QByteArray(
                   R"({"protocol_version":6,"task_id":"t","prompt":"p","cli":{"kind":"codex","program":"bin/codex",)"
                   R"("model_socket":"/m.sock","model":"x"}})")
            << "task.start params.cli.program: must be an absolute path inside the sandbox or \"codex\", got "
               "\"bin/codex\"";
        QTest::newRow("task.start cli program another CLI's command")
            << "task.start params"
            << QByteArray(
                   R"({"protocol_version":6,"task_id":"t","prompt":"p","cli":{"kind":"codex","program":"claude",)"
                   R"("model_socket":"/m.sock","model":"x"}})")
            << "task.start params.cli.program: must be an absolute path inside the sandbox or \"codex\", got "
               "\"claude\"";
        QTest::newRow("task.start cli model socket not absolute")
            << "task.start params"
            << QByteArray(
                   R"({"protocol_version":6,"task_id":"t","prompt":"p","cli":{"kind":"codex","program":"codex",)"
                   R"("model_socket":"m.sock","model":"x"}})")
            << "task.start params.cli.model_socket: must be an absolute path inside the sandbox, or empty, "
               "got "
               "\"m.sock\"";
        QTest::newRow("task.start cli path dir that adds another")
            << "task.start params"
            << QByteArray(R"({"protocol_version":6,"task_id":"t","prompt":"p","cli":{"kind":"codex","program":"/c",)"
                          R"("path_dirs":["/opt/x:."],"model_socket":"/m.sock","model":"x"}})")
            << "task.start params.cli.path_dirs: each must be an absolute path without ':', got \"/opt/x:.\"";
        QTest::newRow("task.start cli without a model")
            << "task.start params"
            << QByteArray(R"({"protocol_version":6,"task_id":"t","prompt":"p","cli":{"kind":"codex","program":"/c",)"
                          R"("model_socket":"/m.sock"}})")
            << "task.start params.cli.model: missing";
        QTest::newRow("workspace.pull tree outside the set")
            << "workspace.pull params" << QByteArray(R"({"tree":"/etc","offset":0})")
            << "workspace.pull params.tree: must be workspace, state or output, got \"/etc\"";
        QTest::newRow("workspace.pull negative offset")
            << "workspace.pull params" << QByteArray(R"({"tree":"state","offset":-1})")
            << "workspace.pull params.offset: must be a non-negative integer, got the integer -1";
        QTest::newRow("workspace.pull result not base64")
            << "workspace.pull result" << QByteArray(R"({"data":"not*base64","eof":false})")
            << "workspace.pull result.data: must be base64";
        QTest::newRow("workspace.pull result over a chunk")
            << "workspace.pull result"
            << QByteArray::fromStdString(R"({"data":")" + std::string((kTransferChunkBytes + 3) / 3 * 4 + 4, 'A') +
                                         R"(","eof":true})")
            << "workspace.pull result.data: a chunk holds at most 1048576 bytes";
        QTest::newRow("workspace.push without eof")
            << "workspace.push params" << QByteArray(R"({"tree":"workspace","offset":0,"data":""})")
            << "workspace.push params.eof: missing";
        QTest::newRow("workspace.push unknown key")
            << "workspace.push params"
            << QByteArray(R"({"tree":"workspace","offset":0,"data":"","eof":true,"path":"/"})")
            << "workspace.push params: unknown key \"path\"";
        QTest::newRow("control unknown key")
            << "control params" << QByteArray(R"({"why":"x"})") << "control params: unknown key \"why\"";
    }

    void methodsRefuse() {
        QFETCH(QString, method);
        QFETCH(QByteArray, value);
        QFETCH(QString, message);
        const json document = json::parse(value.toStdString());
        std::optional<Error> error;
        const auto capture = [&error](const auto& result) {
            if (!result.ok())
                error = result.error();
        };
        if (method == "llm.chat params")
            capture(llmChatParamsFromJson(document));
        else if (method == "llm.chat result")
            capture(llmChatResultFromJson(document));
        else if (method == "approval.request result")
            capture(approvalResultFromJson(document));
        else if (method == "memory.get result")
            capture(memoryGetResultFromJson(document));
        else if (method == "task.start params")
            capture(taskStartParamsFromJson(document));
        else if (method == "control params")
            capture(controlParamsFromJson(document));
        else if (method == "workspace.pull params")
            capture(workspacePullParamsFromJson(document));
        else if (method == "workspace.pull result")
            capture(workspacePullResultFromJson(document));
        else if (method == "workspace.push params")
            capture(workspacePushParamsFromJson(document));
        QVERIFY(error.has_value());
        QCOMPARE(QString::fromStdString(error->message), message);
    }
};

QTEST_GUILESS_MAIN(TestJsonRpc)
#include "tst_json_rpc.moc"
