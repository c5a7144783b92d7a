// The whole model path end to end: `warren run` with a real sandboxed agent whose llm.chat requests go
// through the tool proxy to an OpenAI-compatible or Anthropic server (MockLlmServer, in this process)
// that streams tool calls in fragments, text in pieces and usage. Also what a user sees when the server
// refuses the key (401) or asks to slow down (429 with Retry-After).
#include "tests/integration/ModelRunFixture.h"

#include <QFile>
#include <QtTest>

using nlohmann::json;
using warren::test::describe;
using warren::test::MockLlmServer;
using warren::test::MockResponse;
using warren::test::ModelRunFixture;
using warren::test::WarrenResult;

namespace {

QByteArray sseJson(const json& value) {
    return warren::test::sseEvent(QByteArray::fromStdString(value.dump()));
}

QByteArray anthropicEvent(const json& value) {
    return warren::test::sseEvent(QByteArray::fromStdString(value.dump()),
                                  QByteArray::fromStdString(value.at("type").get<std::string>()));
}

json openAiChunk(json delta, json finishReason = nullptr) {
    return json{{"id", "chatcmpl-e2e"},
                {"object", "chat.completion.chunk"},
                {"created", 1700000000},
                {"model", "mock-1"},
                {"choices", json::array({json{{"index", 0}, {"delta", std::move(delta)},
                                              {"finish_reason", std::move(finishReason)}}})}};
}

// One assistant turn as an OpenAI-compatible server streams it: text in pieces, then one tool call whose
// arguments arrive in fragments, then finish_reason and a usage-only chunk.
QByteArray openAiTurn(const QStringList& pieces, const std::string& callId, const std::string& tool,
                      const QStringList& argumentFragments, int promptTokens, int completionTokens) {
    QByteArray out = sseJson(openAiChunk({{"role", "assistant"}, {"content", ""}}));
    for (const QString& piece : pieces)
        out += sseJson(openAiChunk({{"content", piece.toStdString()}}));
    out += sseJson(openAiChunk({{"tool_calls", json::array({json{{"index", 0},
                                                                 {"id", callId},
                                                                 {"type", "function"},
                                                                 {"function", {{"name", tool}, {"arguments", ""}}}}})}}));
    for (const QString& fragment : argumentFragments)
        out += sseJson(openAiChunk(
            {{"tool_calls", json::array({json{{"index", 0}, {"function", {{"arguments", fragment.toStdString()}}}}})}}));
    out += sseJson(openAiChunk(json::object(), "tool_calls"));
    json usage = openAiChunk(json::object());
    usage["choices"] = json::array();
    usage["usage"] = {{"prompt_tokens", promptTokens},
                      {"completion_tokens", completionTokens},
                      {"total_tokens", promptTokens + completionTokens}};
    return out + sseJson(usage) + "data: [DONE]\n\n";
}

// The same turn as the Anthropic Messages API streams it: a text block in pieces, a tool_use block whose
// input arrives as partial_json fragments, usage in message_start (input) and message_delta (output).
QByteArray anthropicTurn(const QStringList& pieces, const std::string& callId, const std::string& tool,
                         const QStringList& inputFragments, int inputTokens, int outputTokens) {
    QByteArray out = anthropicEvent(
        {{"type", "message_start"},
         {"message",
          {{"id", "msg_e2e"}, {"type", "message"}, {"role", "assistant"}, {"content", json::array()},
           {"model", "mock-1"}, {"stop_reason", nullptr}, {"stop_sequence", nullptr},
           {"usage", {{"input_tokens", inputTokens}, {"output_tokens", 1}}}}}});
    out += anthropicEvent({{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}});
    for (const QString& piece : pieces)
        out += anthropicEvent({{"type", "content_block_delta"},
                               {"index", 0},
                               {"delta", {{"type", "text_delta"}, {"text", piece.toStdString()}}}});
    out += anthropicEvent({{"type", "content_block_stop"}, {"index", 0}});
    out += anthropicEvent({{"type", "ping"}});
    out += anthropicEvent(
        {{"type", "content_block_start"},
         {"index", 1},
         {"content_block", {{"type", "tool_use"}, {"id", callId}, {"name", tool}, {"input", json::object()}}}});
    for (const QString& fragment : inputFragments)
        out += anthropicEvent({{"type", "content_block_delta"},
                               {"index", 1},
                               {"delta", {{"type", "input_json_delta"}, {"partial_json", fragment.toStdString()}}}});
    out += anthropicEvent({{"type", "content_block_stop"}, {"index", 1}});
    out += anthropicEvent({{"type", "message_delta"},
                           {"delta", {{"stop_reason", "tool_use"}, {"stop_sequence", nullptr}}},
                           {"usage", {{"output_tokens", outputTokens}}}});
    return out + anthropicEvent({{"type", "message_stop"}});
}

QByteArray turn(bool anthropic, const QStringList& pieces, const std::string& callId, const std::string& tool,
                const QStringList& fragments, int in, int out) {
    return anthropic ? anthropicTurn(pieces, callId, tool, fragments, in, out)
                     : openAiTurn(pieces, callId, tool, fragments, in, out);
}

// Turn 1 writes hello.txt (arguments in fragments), turn 2 finishes. Returns the usage the mock reports.
QPair<int, int> enqueueHelloTurns(ModelRunFixture& fixture) {
    fixture.enqueueStream(
        turn(fixture.anthropic(), {"I will ", "write the ", "file."}, "call_write_1", "write_file",
             {"{\"pa", "th\": \"hel", "lo.txt\", \"cont", "ent\": \"hello from ", "the mock\\n\"}"}, 31, 13));
    fixture.enqueueStream(turn(fixture.anthropic(), {"Wrote ", "hello.txt", " for you."}, "call_finish_2",
                               "finish", {"{\"summ", "ary\": \"Wrote hello.txt\"}"}, 57, 8));
    return {31 + 57, 13 + 8};
}

const QStringList kHelloPieces{"I will ", "write the ", "file.", "Wrote ", "hello.txt", " for you."};

QStringList deltaTexts(const std::vector<json>& events) {
    QStringList texts;
    for (const auto& event : events)
        if (event.value("type", "") == "model_delta")
            texts << QString::fromStdString(event["data"].value("text", ""));
    return texts;
}

QStringList toolNames(const json& body, bool anthropic) {
    QStringList names;
    for (const auto& tool : body.value("tools", json::array()))
        names << QString::fromStdString(anthropic ? tool.value("name", "") : tool["function"].value("name", ""));
    return names;
}

} // namespace

class TestControlModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void streamedToolCallsRunTheTask_data();
    void streamedToolCallsRunTheTask();
    void refusedKeyFailsWithoutShowingIt_data();
    void refusedKeyFailsWithoutShowingIt();
    void rateLimitIsRetried_data();
    void rateLimitIsRetried();
    void reasoningModelsThroughTheProxy_data();
    void reasoningModelsThroughTheProxy();
    void malformedCallsGoBackToTheModel_data();
    void malformedCallsGoBackToTheModel();
    void eachFamilyEditsInItsOwnShape_data();
    void eachFamilyEditsInItsOwnShape();
};

void TestControlModel::initTestCase() {
    if (warren::test::warrenBinary().isEmpty())
        QSKIP("WARREN_CLI is not set: run through ctest");
}

void TestControlModel::streamedToolCallsRunTheTask_data() { warren::test::addApiRows(); }

void TestControlModel::streamedToolCallsRunTheTask() {
    QFETCH(bool, anthropic);
    ModelRunFixture fixture(anthropic);
    QVERIFY(fixture.ready());
    MockLlmServer& server = fixture.server();
    const auto [tokensIn, tokensOut] = enqueueHelloTurns(fixture);

    const WarrenResult result = fixture.run("make hello.txt");
    QVERIFY2(result.exitCode == 0, qPrintable(describe(result)));

    QFile hello(fixture.workspace() + "/hello.txt");
    QVERIFY2(hello.open(QIODevice::ReadOnly), "the agent's write_file did not reach the workspace");
    QCOMPARE(hello.readAll(), QByteArray("hello from the mock\n"));

    const auto events = warren::test::jsonLines(result.out);
    QCOMPARE(deltaTexts(events), kHelloPieces);

    const json task = fixture.onlyTask();
    QVERIFY2(task.is_object(), "warren tasks --json did not list exactly one task");
    QCOMPARE(task.value("status", ""), std::string("succeeded"));
    QCOMPARE(task.value("tokens_in", -1), tokensIn);
    QCOMPARE(task.value("tokens_out", -1), tokensOut);

    // What the provider sent: the real key in the right header, the model, the agent's tools, streaming.
    QCOMPARE(int(server.requests().size()), 2);
    for (const auto& request : server.requests()) {
        QCOMPARE(request.method, QByteArray("POST"));
        if (anthropic) {
            QCOMPARE(request.path, QByteArray("/v1/messages"));
            QCOMPARE(request.headers.value("x-api-key"), fixture.key().toUtf8());
            QVERIFY(!request.headers.value("anthropic-version").isEmpty());
        } else {
            QCOMPARE(request.path, QByteArray("/v1/chat/completions"));
            QCOMPARE(request.headers.value("authorization"), "Bearer " + fixture.key().toUtf8());
        }
        const json body = request.json();
        QVERIFY(body.is_object());
        QCOMPARE(body.value("model", ""), std::string("mock-1"));
        QCOMPARE(body.value("stream", false), true);
        const QStringList tools = toolNames(body, anthropic);
        for (const char* name : {"shell", "read_file", "write_file", "finish"})
            QVERIFY2(tools.contains(name), qPrintable("tool " + QString(name) + " missing from " + tools.join(',')));
        QVERIFY(request.body.contains("make hello.txt"));
    }
    // The second call carries the first call's tool result back to the model.
    QVERIFY(server.requests()[1].body.contains("call_write_1"));
}

void TestControlModel::refusedKeyFailsWithoutShowingIt_data() { warren::test::addApiRows(); }

void TestControlModel::refusedKeyFailsWithoutShowingIt() {
    QFETCH(bool, anthropic);
    ModelRunFixture fixture(anthropic);
    QVERIFY(fixture.ready());
    MockLlmServer& server = fixture.server();
    // Like the real services, the refusal quotes the key it was given.
    const QByteArray refusal =
        "{\"error\":{\"type\":\"authentication_error\",\"message\":\"Incorrect API key provided: " +
        fixture.key().toUtf8() + "\"}}";
    for (int i = 0; i < 4; ++i) // enough for an agent that tries its model call again
        server.enqueue(MockResponse::json(401, "Unauthorized", refusal));

    const WarrenResult result = fixture.run("make hello.txt");
    QVERIFY2(result.exitCode == 1, qPrintable(describe(result)));
    QVERIFY2(result.err.contains("401"), qPrintable(describe(result)));
    QVERIFY2(result.err.contains("key"), qPrintable(describe(result)));
    QVERIFY(!server.requests().empty());

    const QByteArray key = fixture.key().toUtf8();
    QVERIFY2(!result.err.contains(key), "warren's stderr shows the API key");
    QVERIFY2(!result.out.contains(key), "warren's --json events show the API key");
    const WarrenResult shown = fixture.warren({"show", fixture.onlyTask().value("id", "").c_str(), "--json"});
    QCOMPARE(shown.exitCode, 0);
    QVERIFY(!shown.out.isEmpty());
    QVERIFY2(!shown.out.contains(key), "a stored event shows the API key");
    QCOMPARE(fixture.onlyTask().value("status", ""), std::string("failed"));
}

void TestControlModel::rateLimitIsRetried_data() { warren::test::addApiRows(); }

void TestControlModel::rateLimitIsRetried() {
    QFETCH(bool, anthropic);
    ModelRunFixture fixture(anthropic);
    QVERIFY(fixture.ready());
    MockLlmServer& server = fixture.server();
    server.enqueue(MockResponse::json(429, "Too Many Requests",
                                      "{\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}",
                                      {qMakePair(QByteArray("Retry-After"), QByteArray("1"))}));
    const auto [tokensIn, tokensOut] = enqueueHelloTurns(fixture);

    const WarrenResult result = fixture.run("make hello.txt");
    QVERIFY2(result.exitCode == 0, qPrintable(describe(result)));
    QVERIFY(QFile::exists(fixture.workspace() + "/hello.txt"));
    QCOMPARE(int(server.requests().size()), 3);

    const auto events = warren::test::jsonLines(result.out);
    bool retryLogged = false;
    for (const auto& event : events) {
        const std::string message = event.value("data", json::object()).value("message", "");
        if (event.value("type", "") == "log" && message.find("429") != std::string::npos &&
            message.find("retry") != std::string::npos)
            retryLogged = true;
    }
    QVERIFY2(retryLogged, "no log event records the retry after the 429");
    QCOMPARE(deltaTexts(events), kHelloPieces);
    const json task = fixture.onlyTask();
    QCOMPARE(task.value("tokens_in", -1), tokensIn);
    QCOMPARE(task.value("tokens_out", -1), tokensOut);
}

void TestControlModel::malformedCallsGoBackToTheModel_data() { warren::test::addApiRows(); }

// A model that writes arguments that are not JSON (local models do) is told so and corrects itself; the task
// goes on. The call goes back with empty arguments beside its result, which both APIs accept.
void TestControlModel::malformedCallsGoBackToTheModel() {
    QFETCH(bool, anthropic);
    ModelRunFixture fixture(anthropic);
    QVERIFY(fixture.ready());
    MockLlmServer& server = fixture.server();
    fixture.enqueueStream(turn(anthropic, {"Writing it."}, "call_bad_1", "write_file",
                               {"{\"path\": \"hello.txt\", ", "\"content\": hello}"}, 31, 13));
    fixture.enqueueStream(turn(anthropic, {"Fixed."}, "call_write_2", "write_file",
                               {"{\"path\": \"hello.txt\", \"content\": \"hello\\n\"}"}, 40, 13));
    fixture.enqueueStream(
        turn(anthropic, {"Done."}, "call_finish_3", "finish", {"{\"summary\": \"Wrote it\"}"}, 57, 8));

    const WarrenResult result = fixture.run("make hello.txt");
    QVERIFY2(result.exitCode == 0, qPrintable(describe(result)));
    QFile hello(fixture.workspace() + "/hello.txt");
    QVERIFY2(hello.open(QIODevice::ReadOnly), qPrintable(describe(result)));
    QCOMPARE(hello.readAll(), QByteArray("hello\n"));

    QCOMPARE(int(server.requests().size()), 3);
    QCOMPARE(server.refusals(), 0);
    const json second = server.requests()[1].json();
    const std::string sent = second.dump();
    QVERIFY2(sent.find("the arguments are not a JSON object") != std::string::npos, sent.c_str());
    QVERIFY2(sent.find("\\\"content\\\": hello}") != std::string::npos, sent.c_str());
    // The bad call itself goes back with empty arguments.
    const json& assistant = second["messages"][anthropic ? 1 : 2];
    if (anthropic)
        QCOMPARE(assistant["content"][1].value("input", json()), json::object());
    else
        QCOMPARE(assistant["tool_calls"][0]["function"].value("arguments", ""), std::string("{}"));

    // The timeline has the bad call and its answer.
    const auto events = warren::test::jsonLines(result.out);
    const auto refused = std::find_if(events.begin(), events.end(), [](const json& event) {
        return event.value("type", "") == "tool_result" && event["data"].value("id", "") == "call_bad_1";
    });
    QVERIFY(refused != events.end());
    QVERIFY((*refused)["data"].value("output", "").starts_with("Not run: write_file: the arguments are not a JSON object"));
}

void TestControlModel::reasoningModelsThroughTheProxy_data() { warren::test::addApiRows(); }

// Settings from --set reach the provider through the agent's llm.chat and the tool proxy, against servers
// that refuse what the real APIs refuse. OpenAI-compatible, reasoning model: max_tokens is refused with
// OpenAI's 400 and the proxy's provider adapts for the task; then a reply cut by the limit in the middle of
// write_file is not run, the agent asks again with twice the room and the whole call runs. Anthropic,
// thinking on: the reply's signed thinking block goes back with the tool result, as the API requires.
void TestControlModel::reasoningModelsThroughTheProxy() {
    QFETCH(bool, anthropic);
    ModelRunFixture fixture(anthropic);
    QVERIFY(fixture.ready());
    MockLlmServer& server = fixture.server();
    const QStringList writeHello{"{\"path\": \"hello.txt\", ", "\"content\": \"hello from the mock\\n\"}"};
    if (anthropic) {
        fixture.enqueueStream(warren::test::anthropicThinkingToolUseStream(
            {"The user wants ", "hello.txt."}, {}, "call_write_1", "write_file", writeHello));
    } else {
        fixture.enqueueStream(warren::test::openAiToolCallStreamEnding(
            "call_cut", "write_file", {"{\"path\": \"hello.txt\", ", "\"content\": \"hello fr"}, "length",
            3000, 2900));
        fixture.enqueueStream(warren::test::openAiToolCallStreamEnding("call_write_1", "write_file",
                                                                       writeHello, "tool_calls", 400, 300));
    }
    fixture.enqueueStream(
        turn(anthropic, {"Done."}, "call_finish_2", "finish", {"{\"summary\": \"Wrote it\"}"}, 57, 8));

    const WarrenResult result =
        fixture.run("make hello.txt", anthropic ? "claude-test" : "o4-mini",
                    {"--set", "max_output_tokens=3000", "--set", "reasoning_effort=low"});
    QVERIFY2(result.exitCode == 0, qPrintable(describe(result)));
    QFile hello(fixture.workspace() + "/hello.txt");
    QVERIFY2(hello.open(QIODevice::ReadOnly), qPrintable(describe(result)));
    QCOMPARE(hello.readAll(), QByteArray("hello from the mock\n"));

    const auto events = warren::test::jsonLines(result.out);
    auto has = [&](const char* type, const char* key, const char* text) {
        return std::any_of(events.begin(), events.end(), [&](const json& event) {
            return event.value("type", "") == type &&
                   event.value("data", json::object()).value(key, "").find(text) != std::string::npos;
        });
    };
    const auto& requests = server.requests();
    if (anthropic) {
        QCOMPARE(server.refusals(), 0);
        QCOMPARE(int(requests.size()), 2);
        const json first = requests[0].json();
        QCOMPARE(first["thinking"].value("budget_tokens", 0), 4096);
        QVERIFY(first.value("max_tokens", 0) > 4096);
        const json sentBack = requests[1].json()["messages"][1]["content"][0];
        QCOMPARE(sentBack.value("type", ""), std::string("thinking"));
        QCOMPARE(sentBack.value("signature", ""), warren::test::anthropicSignature("The user wants hello.txt."));
        QVERIFY2(has("model_response", "reasoning", "The user wants hello.txt."), "the timeline lacks the thinking");
    } else {
        QCOMPARE(server.refusals(), 1);
        QCOMPARE(int(requests.size()), 4);
        QCOMPARE(requests[0].json().value("max_tokens", 0), 3000);
        QCOMPARE(requests[1].json().value("max_completion_tokens", 0), 3000);
        QCOMPARE(requests[1].json().value("reasoning_effort", ""), std::string("low"));
        QCOMPARE(requests[2].json().value("max_completion_tokens", 0), 6000);
        QVERIFY(!requests[3].json().contains("max_tokens"));
        QVERIFY2(has("log", "message", "max_completion_tokens instead of max_tokens"), qPrintable(describe(result)));
        QVERIFY2(has("guard", "detail", "middle of a tool call"), qPrintable(describe(result)));
        for (const json& event : events)
            QVERIFY2(!(event.value("type", "") == "tool_call" && event.value("data", json::object()).value("id", "") == "call_cut"),
                     "the cut call was run");
        // Reasoning tokens are part of the task's usage events.
        QVERIFY(std::any_of(events.begin(), events.end(), [](const json& event) {
            return event.value("type", "") == "model_response" &&
                   event.value("token_usage", json::object()).value("reasoning", 0) == 2900;
        }));
    }
    QCOMPARE(fixture.onlyTask().value("status", ""), std::string("succeeded"));
}

void TestControlModel::eachFamilyEditsInItsOwnShape_data() { warren::test::addApiRows(); }

// An OpenAI model (gpt-*, through an OpenAI-compatible server) is offered apply_patch and told how to write a
// patch; a Claude model is offered edit_file. Each edits app.py its own way through the real wire format,
// and both edits reach the timeline as file_changed with the diff. Both keep a plan with update_plan, stored
// as plan_updated.
void TestControlModel::eachFamilyEditsInItsOwnShape() {
    QFETCH(bool, anthropic);
    ModelRunFixture fixture(anthropic);
    QVERIFY(fixture.ready());
    MockLlmServer& server = fixture.server();
    {
        QFile app(fixture.workspace() + "/app.py");
        QVERIFY(app.open(QIODevice::WriteOnly));
        app.write("def greet():\n    print(\"Hi\")\n");
    }
    fixture.enqueueStream(
        turn(anthropic, {"Planning."}, "call_plan_0", "update_plan",
             {"{\"plan\": [{\"step\": \"Change the greeting\", ", "\"status\": \"in_progress\"}]}"}, 20, 9));
    if (anthropic) {
        fixture.enqueueStream(turn(anthropic, {"Editing."}, "call_edit_1", "edit_file",
                                   {"{\"path\": \"app.py\", \"old_string\": \"print(\\\"Hi\\\")\", ",
                                    "\"new_string\": \"print(\\\"Hello\\\")\"}"},
                                   31, 13));
    } else {
        const json patch{{"input", "*** Begin Patch\n*** Update File: app.py\n@@ def greet():\n-    print(\"Hi\")\n"
                                   "+    print(\"Hello\")\n*** End Patch\n"}};
        const QString arguments = QString::fromStdString(patch.dump());
        fixture.enqueueStream(turn(anthropic, {"Patching."}, "call_edit_1", "apply_patch",
                                   {arguments.left(40), arguments.mid(40)}, 31, 13));
    }
    fixture.enqueueStream(
        turn(anthropic, {"Done."}, "call_finish_2", "finish", {"{\"summary\": \"Greets\"}"}, 57, 8));

    const WarrenResult result = fixture.run("make it say Hello", anthropic ? "claude-test" : "gpt-4.1");
    QVERIFY2(result.exitCode == 0, qPrintable(describe(result)));
    QFile app(fixture.workspace() + "/app.py");
    QVERIFY(app.open(QIODevice::ReadOnly));
    QCOMPARE(app.readAll(), QByteArray("def greet():\n    print(\"Hello\")\n"));

    QCOMPARE(server.refusals(), 0);
    const json first = server.requests().front().json();
    const QStringList tools = toolNames(first, anthropic);
    QVERIFY2(tools.contains(anthropic ? "edit_file" : "apply_patch"), qPrintable(tools.join(',')));
    QVERIFY2(!tools.contains(anthropic ? "apply_patch" : "edit_file"), qPrintable(tools.join(',')));
    QVERIFY2(tools.contains("update_plan"), qPrintable(tools.join(',')));
    const std::string system = anthropic ? first["system"].dump() : first["messages"][0].dump();
    QCOMPARE(system.find("# Editing files with apply_patch") != std::string::npos, !anthropic);

    const auto events = warren::test::jsonLines(result.out);
    const auto plan = std::find_if(events.begin(), events.end(), [](const json& event) {
        return event.value("type", "") == "plan_updated";
    });
    QVERIFY2(plan != events.end(), qPrintable(describe(result)));
    QCOMPARE((*plan)["data"], json::parse(R"({"steps":[{"step":"Change the greeting","status":"in_progress"}]})"));
    QCOMPARE(plan->value("tool", ""), std::string("update_plan"));
    const auto changed = std::find_if(events.begin(), events.end(), [](const json& event) {
        return event.value("type", "") == "file_changed";
    });
    QVERIFY2(changed != events.end(), qPrintable(describe(result)));
    QCOMPARE((*changed)["data"].value("path", ""), std::string("app.py"));
    QCOMPARE((*changed)["data"].value("change", ""), std::string("modified"));
    QCOMPARE((*changed)["data"].value("diff", ""),
             std::string("--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def greet():\n-    print(\"Hi\")\n"
                         "+    print(\"Hello\")\n"));
    QCOMPARE(fixture.onlyTask().value("status", ""), std::string("succeeded"));
}

QTEST_GUILESS_MAIN(TestControlModel)
#include "tst_control_model.moc"
