// RequestBody: one llm.chat conversation -> the exact JSON each API expects.
#include "app/providers/RequestBody.h"
#include "app/providers/RequestDialect.h"

#include <QtTest>

using nlohmann::json;
using warren::protocol::ChatMessage;
using warren::protocol::LlmChatParams;
using warren::protocol::ToolCall;
using warren::protocol::ToolSpec;
using warren::control::AnthropicDialect;
using warren::control::OpenAiDialect;

namespace {

// Expected bodies are written with single quotes; q() turns them into JSON.
json q(const char* text) {
    std::string out(text);
    std::replace(out.begin(), out.end(), '\'', '"');
    return json::parse(out);
}

ChatMessage message(const char* role, const char* content) {
    return ChatMessage{role, content, {}, std::nullopt};
}

ChatMessage toolResult(const char* id, const char* content) {
    return ChatMessage{"tool", content, {}, std::string(id)};
}

ChatMessage assistantCalling(const char* content, std::vector<ToolCall> calls) {
    return ChatMessage{"assistant", content, std::move(calls), std::nullopt};
}

// A conversation with every kind of message: two system messages, a tool round with text, one without,
// two tool results in a row, and a user message right after a tool result.
LlmChatParams conversation() {
    LlmChatParams params;
    params.messages = {
        message("system", "You are Warren."),
        message("system", "Be brief."),
        message("user", "List the files."),
        assistantCalling("Listing.", {ToolCall{"call_1", "shell", json{{"command", "ls"}}}}),
        toolResult("call_1", "a.txt"),
        assistantCalling("", {ToolCall{"call_2", "read_file", json{{"path", "a.txt"}}},
                              ToolCall{"call_3", "finish", json::object()}}),
        toolResult("call_2", "hello"),
        toolResult("call_3", "done"),
        message("user", "Thanks."),
    };
    params.tools = {ToolSpec{"shell", "Run a command", q("{'type':'object','properties':{'command':{'type':'string'}}}")},
                    ToolSpec{"finish", "End the task", json::object()}};
    return params;
}

void compareJson(const json& got, const json& expected) {
    if (got != expected)
        qWarning("got:      %s\nexpected: %s", got.dump().c_str(), expected.dump().c_str());
    QCOMPARE(QByteArray::fromStdString(got.dump()), QByteArray::fromStdString(expected.dump()));
}

} // namespace

Q_DECLARE_METATYPE(warren::control::OpenAiDialect)

namespace {
OpenAiDialect official(const char* model) { return warren::control::openAiDialectFor("openai", model); }
OpenAiDialect compatible() { return warren::control::openAiDialectFor("openai-compatible", "any"); }
} // namespace

class TestRequestBody : public QObject {
    Q_OBJECT
private slots:
    void openAiBody();
    void openAiBodyWithoutTools();
    void anthropicBody();
    void anthropicBodyWithoutSystemOrTools();
    void openAiParameters_data();
    void openAiParameters();
    void anthropicLimits_data();
    void anthropicLimits();
    void anthropicSendsThinkingBlocksBackFirst();
    void openAiNeverSendsReasoningBack();
    void refusalsAdaptTheDialect_data();
    void refusalsAdaptTheDialect();
};

Q_DECLARE_METATYPE(nlohmann::json)

// The output limit and reasoning parameters of one request: which field, which value, what is left out.
void TestRequestBody::openAiParameters_data() {
    QTest::addColumn<OpenAiDialect>("dialect");
    QTest::addColumn<quint64>("defaultLimit");
    QTest::addColumn<qint64>("taskLimit"); // -1: the task sets none
    QTest::addColumn<QString>("effort");   // empty: none asked for
    QTest::addColumn<json>("expected");    // the body's parameters besides model, messages and stream
    auto limited = [](OpenAiDialect dialect, std::uint64_t ceiling) {
        dialect.limitCeiling = ceiling;
        return dialect;
    };
    OpenAiDialect noExtras = compatible();
    noExtras.reasoningEffort = false;
    noExtras.streamOptions = false;
    QTest::newRow("openai reasoning model: max_completion_tokens and reasoning_effort")
        << official("gpt-5-mini") << quint64(32768) << qint64(-1) << "high"
        << q("{'max_completion_tokens':32768,'reasoning_effort':'high','stream_options':{'include_usage':true}}");
    QTest::newRow("openai o-series with the task's limit")
        << official("o3") << quint64(32768) << qint64(2000) << ""
        << q("{'max_completion_tokens':2000,'stream_options':{'include_usage':true}}");
    QTest::newRow("openai model that does not reason: no reasoning_effort")
        << official("gpt-4o") << quint64(16384) << qint64(-1) << "low"
        << q("{'max_completion_tokens':16384,'stream_options':{'include_usage':true}}");
    QTest::newRow("gpt-5-chat does not reason")
        << official("gpt-5-chat-latest") << quint64(16384) << qint64(-1) << "low"
        << q("{'max_completion_tokens':16384,'stream_options':{'include_usage':true}}");
    QTest::newRow("compatible server: max_tokens and reasoning_effort")
        << compatible() << quint64(0) << qint64(4000) << "medium"
        << q("{'max_tokens':4000,'reasoning_effort':'medium','stream_options':{'include_usage':true}}");
    QTest::newRow("compatible server without a limit sends none")
        << compatible() << quint64(0) << qint64(-1) << ""
        << q("{'stream_options':{'include_usage':true}}");
    QTest::newRow("a stated ceiling caps the limit")
        << limited(official("gpt-4o"), 16384) << quint64(16384) << qint64(50000) << ""
        << q("{'max_completion_tokens':16384,'stream_options':{'include_usage':true}}");
    QTest::newRow("a server that refused reasoning_effort and stream_options gets neither")
        << noExtras << quint64(0) << qint64(100) << "low" << q("{'max_tokens':100}");
}

void TestRequestBody::openAiParameters() {
    QFETCH(OpenAiDialect, dialect);
    QFETCH(quint64, defaultLimit);
    QFETCH(qint64, taskLimit);
    QFETCH(QString, effort);
    QFETCH(json, expected);
    LlmChatParams params;
    params.messages = {message("user", "hi")};
    if (taskLimit >= 0)
        params.maxOutputTokens = std::uint64_t(taskLimit);
    if (!effort.isEmpty())
        params.reasoningEffort = effort.toStdString();
    json body = warren::control::openAiRequestBody(params, "m", defaultLimit, dialect);
    QCOMPARE(body.value("stream", false), true);
    for (const char* key : {"model", "messages", "stream"})
        body.erase(key);
    // Nothing a reasoning model refuses: no temperature, top_p, penalties, logprobs, and never max_tokens
    // next to max_completion_tokens.
    compareJson(body, expected);
}

void TestRequestBody::anthropicLimits_data() {
    QTest::addColumn<quint64>("limit");
    QTest::addColumn<QString>("effort");
    QTest::addColumn<quint64>("ceiling");
    QTest::addColumn<quint64>("maxTokens");
    QTest::addColumn<quint64>("budget");
    QTest::newRow("no thinking") << quint64(16384) << "" << quint64(0) << quint64(16384) << quint64(0);
    QTest::newRow("no limit: the API still needs one") << quint64(0) << "" << quint64(0) << quint64(4096) << quint64(0);
    QTest::newRow("minimal thinking fits under the limit") << quint64(16384) << "minimal" << quint64(0) << quint64(16384) << quint64(1024);
    QTest::newRow("medium thinking") << quint64(16384) << "medium" << quint64(0) << quint64(16384) << quint64(10000);
    QTest::newRow("high thinking raises max_tokens above the budget") << quint64(16384) << "high" << quint64(0) << quint64(28096) << quint64(24000);
    QTest::newRow("a small limit still leaves room to answer") << quint64(1000) << "low" << quint64(0) << quint64(8192) << quint64(4096);
    QTest::newRow("a ceiling cuts the thinking") << quint64(16384) << "high" << quint64(8192) << quint64(8192) << quint64(4096);
    QTest::newRow("a ceiling too low for thinking turns it off") << quint64(16384) << "low" << quint64(4096) << quint64(4096) << quint64(0);
}

void TestRequestBody::anthropicLimits() {
    QFETCH(quint64, limit);
    QFETCH(QString, effort);
    QFETCH(quint64, ceiling);
    QFETCH(quint64, maxTokens);
    QFETCH(quint64, budget);
    AnthropicDialect dialect;
    dialect.limitCeiling = ceiling;
    const auto limits = warren::control::anthropicLimits(
        limit, effort.isEmpty() ? std::nullopt : std::optional(effort.toStdString()), dialect);
    QCOMPARE(limits.maxTokens, std::uint64_t(maxTokens));
    QCOMPARE(limits.thinkingBudget, std::uint64_t(budget));
    // The body says the same.
    LlmChatParams params;
    params.messages = {message("user", "hi")};
    if (!effort.isEmpty())
        params.reasoningEffort = effort.toStdString();
    const json body = warren::control::anthropicRequestBody(params, "claude", limit, dialect);
    QCOMPARE(body["max_tokens"].get<std::uint64_t>(), std::uint64_t(maxTokens));
    if (budget)
        compareJson(body["thinking"], json{{"type", "enabled"}, {"budget_tokens", budget}});
    else
        QVERIFY(!body.contains("thinking"));
}

void TestRequestBody::anthropicSendsThinkingBlocksBackFirst() {
    LlmChatParams params;
    ChatMessage calling = assistantCalling("Writing.", {ToolCall{"toolu_1", "write_file", json{{"path", "a"}}}});
    calling.reasoning = {{"thinking", "I should write a.", "sig-1", ""},
                         {"redacted_thinking", "", "", "ENCRYPTED"},
                         {"thinking", "from another API", "", ""}};
    params.messages = {message("user", "Write a."), calling, toolResult("toolu_1", "written")};
    params.reasoningEffort = "low";
    const json body = warren::control::anthropicRequestBody(params, "claude", 16384, AnthropicDialect{});
    compareJson(body["messages"][1], q("{'role':'assistant','content':["
        "{'type':'thinking','thinking':'I should write a.','signature':'sig-1'},"
        "{'type':'redacted_thinking','data':'ENCRYPTED'},"
        "{'type':'text','text':'Writing.'},"
        "{'type':'tool_use','id':'toolu_1','name':'write_file','input':{'path':'a'}}]}"));
}

void TestRequestBody::openAiNeverSendsReasoningBack() {
    LlmChatParams params;
    ChatMessage calling = assistantCalling("", {ToolCall{"c1", "shell", json{{"command", "ls"}}}});
    calling.reasoning = {{"thinking", "let me look", "sig", ""}};
    params.messages = {calling};
    const json body = warren::control::openAiRequestBody(params, "m", 0, compatible());
    QVERIFY2(body.dump().find("let me look") == std::string::npos, body.dump().c_str());
    QVERIFY(!body["messages"][0].contains("reasoning"));
}

void TestRequestBody::refusalsAdaptTheDialect_data() {
    QTest::addColumn<bool>("anthropic");
    QTest::addColumn<OpenAiDialect>("openAi");
    QTest::addColumn<QByteArray>("refusal");
    QTest::addColumn<QString>("what"); // empty: nothing to adapt
    const QByteArray maxTokens = R"({"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}})";
    QTest::newRow("OpenAI refuses max_tokens") << false << compatible() << maxTokens
                                               << "max_completion_tokens instead of max_tokens";
    QTest::newRow("the same refusal again changes nothing") << false << official("o3") << maxTokens << "";
    QTest::newRow("a server that knows only max_tokens")
        << false << official("o3")
        << QByteArray(R"({"error":{"message":"Unrecognized request argument supplied: max_completion_tokens"}})")
        << "max_tokens instead of max_completion_tokens";
    QTest::newRow("too large: the ceiling it states")
        << false << official("gpt-4o")
        << QByteArray(R"({"error":{"message":"max_completion_tokens is too large: 32768. This model supports at most 16384 completion tokens, whereas you provided 32768.","type":"invalid_request_error","param":"max_completion_tokens","code":"invalid_value"}})")
        << "max_completion_tokens of at most 16384";
    QTest::newRow("reasoning_effort refused")
        << false << compatible()
        << QByteArray(R"({"error":{"message":"Unsupported parameter: 'reasoning_effort' is not supported with this model.","param":"reasoning_effort","code":"unsupported_parameter"}})")
        << "no reasoning_effort";
    QTest::newRow("a vLLM-style refusal of stream_options")
        << false << compatible() << QByteArray(R"({"object":"error","message":"x","error":"Unsupported parameter: 'stream_options'"})")
        << "no stream_options";
    QTest::newRow("a refusal naming nothing") << false << compatible()
                                              << QByteArray(R"({"error":{"message":"messages: too long"}})") << "";
    QTest::newRow("Anthropic states its ceiling")
        << true << OpenAiDialect{}
        << QByteArray(R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 16384 > 8192, which is the maximum allowed number of output tokens for claude-3-5-haiku-20241022"}})")
        << "max_tokens of at most 8192";
    QTest::newRow("Anthropic model without thinking")
        << true << OpenAiDialect{}
        << QByteArray(R"({"type":"error","error":{"type":"invalid_request_error","message":"'claude-3-5-haiku-20241022' does not support thinking."}})")
        << "no extended thinking";
    QTest::newRow("Anthropic wants thinking blocks: nothing to adapt, the blocks are sent")
        << true << OpenAiDialect{}
        << QByteArray(R"({"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`."}})")
        << "";
}

void TestRequestBody::refusalsAdaptTheDialect() {
    QFETCH(bool, anthropic);
    QFETCH(OpenAiDialect, openAi);
    QFETCH(QByteArray, refusal);
    QFETCH(QString, what);
    const auto read = warren::control::readParameterRefusal(refusal);
    const auto adapted = anthropic ? warren::control::adaptAnthropic(AnthropicDialect{}, read)
                                   : warren::control::adaptOpenAi(openAi, read);
    QCOMPARE(adapted ? QString::fromStdString(adapted->what) : QString(), what);
    if (adapted && !anthropic)
        QVERIFY(!(adapted->openAi == openAi)); // an adaptation always changes the dialect
}

void TestRequestBody::openAiBody() {
    compareJson(warren::control::openAiRequestBody(conversation(), "gpt-4o-mini", 1024, compatible()), q("{"
        "'model': 'gpt-4o-mini',"
        "'messages': ["
        "{'role': 'system', 'content': 'You are Warren.'},"
        "{'role': 'system', 'content': 'Be brief.'},"
        "{'role': 'user', 'content': 'List the files.'},"
        "{'role': 'assistant', 'content': 'Listing.', 'tool_calls': ["
        "{'id': 'call_1', 'type': 'function', 'function': {'name': 'shell', 'arguments': '{\\'command\\':\\'ls\\'}'}}]},"
        "{'role': 'tool', 'tool_call_id': 'call_1', 'content': 'a.txt'},"
        "{'role': 'assistant', 'content': null, 'tool_calls': ["
        "{'id': 'call_2', 'type': 'function', 'function': {'name': 'read_file', 'arguments': '{\\'path\\':\\'a.txt\\'}'}},"
        "{'id': 'call_3', 'type': 'function', 'function': {'name': 'finish', 'arguments': '{}'}}]},"
        "{'role': 'tool', 'tool_call_id': 'call_2', 'content': 'hello'},"
        "{'role': 'tool', 'tool_call_id': 'call_3', 'content': 'done'},"
        "{'role': 'user', 'content': 'Thanks.'}],"
        "'max_tokens': 1024,"
        "'stream': true,"
        "'stream_options': {'include_usage': true},"
        "'tools': ["
        "{'type': 'function', 'function': {'name': 'shell', 'description': 'Run a command',"
        "'parameters': {'type': 'object', 'properties': {'command': {'type': 'string'}}}}},"
        "{'type': 'function', 'function': {'name': 'finish', 'description': 'End the task',"
        "'parameters': {'type': 'object', 'properties': {}}}}]"
        "}"));
}

void TestRequestBody::openAiBodyWithoutTools() {
    LlmChatParams params;
    params.messages = {message("user", "hi")};
    const json body = warren::control::openAiRequestBody(params, "llama3", 10, compatible());
    QVERIFY(!body.contains("tools")); // some local servers refuse an empty tools array
    QCOMPARE(body["messages"].dump(), q("[{'role':'user','content':'hi'}]").dump());
}

void TestRequestBody::anthropicBody() {
    compareJson(warren::control::anthropicRequestBody(conversation(), "claude-sonnet-4-5", 4096, AnthropicDialect{}), q("{"
        "'model': 'claude-sonnet-4-5',"
        "'max_tokens': 4096,"
        "'stream': true,"
        "'system': 'You are Warren.\\n\\nBe brief.',"
        "'messages': ["
        "{'role': 'user', 'content': [{'type': 'text', 'text': 'List the files.'}]},"
        "{'role': 'assistant', 'content': ["
        "{'type': 'text', 'text': 'Listing.'},"
        "{'type': 'tool_use', 'id': 'call_1', 'name': 'shell', 'input': {'command': 'ls'}}]},"
        "{'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'call_1', 'content': 'a.txt'}]},"
        "{'role': 'assistant', 'content': ["
        "{'type': 'tool_use', 'id': 'call_2', 'name': 'read_file', 'input': {'path': 'a.txt'}},"
        "{'type': 'tool_use', 'id': 'call_3', 'name': 'finish', 'input': {}}]},"
        "{'role': 'user', 'content': ["
        "{'type': 'tool_result', 'tool_use_id': 'call_2', 'content': 'hello'},"
        "{'type': 'tool_result', 'tool_use_id': 'call_3', 'content': 'done'},"
        "{'type': 'text', 'text': 'Thanks.'}]}],"
        "'tools': ["
        "{'name': 'shell', 'description': 'Run a command',"
        "'input_schema': {'type': 'object', 'properties': {'command': {'type': 'string'}}}},"
        "{'name': 'finish', 'description': 'End the task', 'input_schema': {'type': 'object', 'properties': {}}}]"
        "}"));
}

void TestRequestBody::anthropicBodyWithoutSystemOrTools() {
    LlmChatParams params;
    params.messages = {message("user", "hi"), message("user", "again"), message("assistant", "")};
    const json body = warren::control::anthropicRequestBody(params, "claude", 5, AnthropicDialect{});
    QVERIFY(!body.contains("system"));
    QVERIFY(!body.contains("tools"));
    // Two user messages merged; the empty assistant message left out (the API refuses empty text).
    QCOMPARE(body["messages"].dump(),
             q("[{'role':'user','content':[{'type':'text','text':'hi'},{'type':'text','text':'again'}]}]").dump());
}

QTEST_APPLESS_MAIN(TestRequestBody)
#include "tst_request_body.moc"
