// OpenAiProvider and AnthropicProvider against MockLlmServer: real HTTP, real stream formats, fragments
// arriving in separate reads, retries, refusals and broken streams.
#include "app/providers/Provider.h"
#include "tests/support/MockLlmServer.h"

#include <QNetworkAccessManager>
#include <QSignalSpy>
#include <QTcpServer>
#include <QtTest>

using namespace warren::control;
using warren::protocol::ChatMessage;
using warren::protocol::LlmChatParams;
using warren::protocol::ToolSpec;
using warren::test::MockLlmServer;
using warren::test::MockResponse;

namespace {

const std::string kKey = "sk-test-SECRET-4242";

ProviderConfig openAiConfig(const MockLlmServer& server) {
    ProviderConfig config;
    config.kind = ProviderConfig::Kind::OpenAi;
    config.name = "openai";
    config.baseUrl = server.baseUrl().toStdString() + "/v1";
    config.model = "gpt-test";
    config.keyName = "openai";
    config.apiKey = kKey;
    config.maxRetries = 3;
    config.retryBaseDelay = std::chrono::milliseconds(5);
    config.maxRetryDelay = std::chrono::milliseconds(5000);
    config.requestTimeout = std::chrono::milliseconds(20000);
    return config;
}

ProviderConfig anthropicConfig(const MockLlmServer& server) {
    ProviderConfig config = openAiConfig(server);
    config.kind = ProviderConfig::Kind::Anthropic;
    config.name = "anthropic";
    config.baseUrl = server.baseUrl().toStdString();
    config.keyName = "anthropic";
    config.model = "claude-test";
    return config;
}

LlmChatParams conversation() {
    LlmChatParams params;
    params.messages = {ChatMessage{"system", "You are Warren.", {}, std::nullopt},
                       ChatMessage{"user", "List the files.", {}, std::nullopt}};
    params.tools = {ToolSpec{"shell", "Run a command", nlohmann::json{{"type", "object"}}}};
    return params;
}

// One call from start to finished(), with what it signalled on the way.
struct Outcome {
    QStringList deltas;
    QList<QList<QVariant>> retries;
    warren::Result<warren::protocol::LlmChatResult> result{warren::makeError(warren::ErrorCode::System, "not run")};
    int finishedCount = 0;
    QString error() const { return result ? QString() : QString::fromStdString(result.error().message); }
};

Outcome runCall(const ProviderConfig& config, const LlmChatParams& params = conversation()) {
    QNetworkAccessManager network;
    Outcome outcome;
    auto provider = createProvider(config, &network);
    if (!provider) {
        outcome.result = provider.error();
        return outcome;
    }
    QObject owner;
    ChatCall* call = provider.value()->chat(params, &owner);
    QObject::connect(call, &ChatCall::delta, [&](const QString& text) { outcome.deltas << text; });
    QObject::connect(call, &ChatCall::retrying, [&](int attempt, qint64 delayMs, const QString& why) {
        outcome.retries.append({attempt, delayMs, why});
    });
    QSignalSpy finished(call, &ChatCall::finished);
    if (!finished.wait(30000))
        return outcome;
    QCoreApplication::processEvents(); // a second finished() would show here
    outcome.finishedCount = int(finished.count());
    outcome.result = call->result();
    return outcome;
}

} // namespace

class TestProvidersHttp : public QObject {
    Q_OBJECT
private slots:
    void init();
    void openAiTextInManyChunks();
    void openAiToolCallWithFragmentedArguments();
    void openAiWithoutKeySendsNoAuthorization();
    void retriesAfter429HonouringRetryAfter();
    void retriesAfter500();
    void givesUpAfterMaxRetries();
    void unauthorizedIsNotRetriedAndHidesTheKey();
    void malformedChunkIsAnError();
    void droppedMidReplyIsNotRetried();
    void droppedBeforeAnyTextIsRetried();
    void connectionRefusedIsRetriedThenReported();
    void silentServerTimesOut();
    void streamWithoutDoneIsAnError();
    void abortStopsTheCall();
    void anthropicTextAndToolUse();
    void anthropicErrorEvent();
    void anthropicOverloaded529IsRetried();
    void officialOpenAiSendsWhatReasoningModelsTake();
    void refusedMaxTokensIsAdaptedOnceForTheTask_data();
    void refusedMaxTokensIsAdaptedOnceForTheTask();
    void reasoningTokensAreCounted();
    void requestsIdentifyThemselves_data();
    void requestsIdentifyThemselves();
    void anthropicThinkingBlocksGoBackWithTheToolResults();
    void anthropicWithoutThinkingBlocksIsRefused();
    void anthropicStatedCeilingIsAdaptedTo();
    void cutToolCallsAreNotReturned_data();
    void cutToolCallsAreNotReturned();
    void aGuardedCallConnectsOnlyWhereAccessAllows_data();
    void aGuardedCallConnectsOnlyWhereAccessAllows();

private:
    std::unique_ptr<MockLlmServer> m_server;
};

void TestProvidersHttp::init() {
    m_server = std::make_unique<MockLlmServer>();
    QVERIFY(m_server->listen());
}

void TestProvidersHttp::openAiTextInManyChunks() {
    const QStringList pieces{"Hel", "lo, ", "wor", "ld! ", "\xc3\xa9t\xc3\xa9"};
    const QByteArray stream = warren::test::openAiTextStream(pieces, 11, 7);
    m_server->enqueue(MockResponse::sse(warren::test::splitChunks(stream, 7))); // lines split mid-way
    const Outcome outcome = runCall(openAiConfig(*m_server));
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(outcome.deltas, pieces);
    QCOMPARE(outcome.result->content, pieces.join("").toStdString());
    QCOMPARE(outcome.result->tokenUsage.input, 11u);
    QCOMPARE(outcome.result->tokenUsage.output, 7u);
    QCOMPARE(outcome.result->finishReason, std::string("stop"));
    QCOMPARE(outcome.finishedCount, 1);

    QCOMPARE(m_server->requests().size(), 1u);
    const auto& request = m_server->requests().front();
    QCOMPARE(request.method, QByteArray("POST"));
    QCOMPARE(request.path, QByteArray("/v1/chat/completions"));
    QCOMPARE(request.headers.value("authorization"), QByteArray::fromStdString("Bearer " + kKey));
    QCOMPARE(request.headers.value("content-type"), QByteArray("application/json"));
    const nlohmann::json body = request.json();
    QCOMPARE(body["model"], "gpt-test");
    QCOMPARE(body["stream"], true);
    QCOMPARE(body["stream_options"]["include_usage"], true);
    QCOMPARE(body["messages"].size(), 2u);
    QCOMPARE(body["tools"][0]["function"]["name"], "shell");
}

void TestProvidersHttp::openAiToolCallWithFragmentedArguments() {
    const QStringList fragments{"{\"comm", "and\": ", "\"ls -la", "\", \"timeout_sec\": 5", "}"};
    const QByteArray stream = warren::test::openAiToolCallStream("call_xyz", "shell", fragments, "Listing.");
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(stream)));
    const Outcome outcome = runCall(openAiConfig(*m_server));
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(outcome.deltas, QStringList{"Listing."});
    QCOMPARE(outcome.result->toolCalls.size(), 1u);
    const auto& call = outcome.result->toolCalls.front();
    QCOMPARE(call.id, std::string("call_xyz"));
    QCOMPARE(call.name, std::string("shell"));
    QCOMPARE(call.arguments, (nlohmann::json{{"command", "ls -la"}, {"timeout_sec", 5}}));
    QCOMPARE(outcome.result->finishReason, std::string("tool_calls"));
    QCOMPARE(outcome.result->tokenUsage.input, 30u);
}

void TestProvidersHttp::openAiWithoutKeySendsNoAuthorization() {
    m_server->enqueue(MockResponse::sse({warren::test::openAiTextStream({"ok"})}));
    ProviderConfig config = openAiConfig(*m_server);
    config.name = "ollama";
    config.keyName.clear();
    config.apiKey.clear();
    const Outcome outcome = runCall(config);
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QVERIFY(!m_server->requests().front().headers.contains("authorization"));
}

void TestProvidersHttp::retriesAfter429HonouringRetryAfter() {
    m_server->enqueue(MockResponse::json(429, "Too Many Requests",
                                         "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\"}}",
                                         {{"Retry-After", "1"}}));
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::openAiTextStream({"fine"}))));
    const Outcome outcome = runCall(openAiConfig(*m_server));
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(outcome.retries.size(), 1);
    QCOMPARE(outcome.retries[0][0].toInt(), 1);
    QCOMPARE(outcome.retries[0][1].toLongLong(), 1000); // Retry-After: 1, not the 5 ms backoff
    QVERIFY(outcome.retries[0][2].toString().contains("429"));
    QVERIFY(outcome.retries[0][2].toString().contains("Rate limit reached"));
    QCOMPARE(m_server->requests().size(), 2u);
    QCOMPARE(m_server->requests()[1].body, m_server->requests()[0].body); // the same request again
}

void TestProvidersHttp::retriesAfter500() {
    m_server->enqueue(MockResponse::json(500, "Internal Server Error", "{\"error\":{\"message\":\"boom\"}}"));
    m_server->enqueue(MockResponse::sse({warren::test::openAiTextStream({"after all"})}));
    const Outcome outcome = runCall(openAiConfig(*m_server));
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(outcome.retries.size(), 1);
    QCOMPARE(outcome.retries[0][1].toLongLong(), 5); // the configured base delay
    QCOMPARE(outcome.result->content, std::string("after all"));
}

void TestProvidersHttp::givesUpAfterMaxRetries() {
    for (int i = 0; i < 3; ++i)
        m_server->enqueue(MockResponse::json(503, "Service Unavailable", "{\"error\":{\"message\":\"down\"}}"));
    ProviderConfig config = openAiConfig(*m_server);
    config.maxRetries = 2;
    const Outcome outcome = runCall(config);
    QVERIFY(!outcome.result.ok());
    QCOMPARE(outcome.retries.size(), 2);
    QCOMPARE(outcome.retries[0][1].toLongLong(), 5);
    QCOMPARE(outcome.retries[1][1].toLongLong(), 10); // doubled
    QVERIFY2(outcome.error().contains("answered 503 Service Unavailable 3 times"), qPrintable(outcome.error()));
    QVERIFY(outcome.error().contains("down"));
    QCOMPARE(m_server->requests().size(), 3u);
}

void TestProvidersHttp::unauthorizedIsNotRetriedAndHidesTheKey() {
    // A server that echoes the key back (some proxies do) must not get it into the message.
    m_server->enqueue(MockResponse::json(
        401, "Unauthorized",
        QByteArray::fromStdString("{\"error\":{\"message\":\"Incorrect API key provided: " + kKey +
                                  ".\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}")));
    const Outcome outcome = runCall(openAiConfig(*m_server));
    QVERIFY(!outcome.result.ok());
    QCOMPARE(outcome.retries.size(), 0);
    QCOMPARE(m_server->requests().size(), 1u);
    const QString error = outcome.error();
    QVERIFY2(error.contains("the model server at " + m_server->baseUrl() + "/v1 answered 401 Unauthorized"),
             qPrintable(error));
    QVERIFY(error.contains("Incorrect API key provided"));
    QVERIFY(error.contains("check the API key stored as 'openai'"));
    QVERIFY(!error.contains(QString::fromStdString(kKey)));
}

void TestProvidersHttp::malformedChunkIsAnError() {
    MockResponse response = MockResponse::sse(
        warren::test::splitEvents(warren::test::openAiTextStream({"a"})).mid(0, 2));
    response.chunks.append("data: {not json at all\n\n");
    m_server->enqueue(response);
    const Outcome outcome = runCall(openAiConfig(*m_server));
    QVERIFY(!outcome.result.ok());
    QVERIFY2(outcome.error().contains("not JSON: data: {not json at all"), qPrintable(outcome.error()));
    QCOMPARE(outcome.retries.size(), 0);
}

void TestProvidersHttp::droppedMidReplyIsNotRetried() {
    MockResponse response = MockResponse::sse(
        warren::test::splitEvents(warren::test::openAiTextStream({"first ", "second ", "third"})).mid(0, 3));
    response.dropMidStream = true;
    m_server->enqueue(response);
    m_server->enqueue(MockResponse::sse({warren::test::openAiTextStream({"must not be used"})}));
    const Outcome outcome = runCall(openAiConfig(*m_server));
    QVERIFY(!outcome.result.ok());
    QCOMPARE(outcome.deltas, (QStringList{"first ", "second "}));
    // Qt reports a connection closed between two chunks as an error, or as a stream that just ended.
    QVERIFY2(outcome.error().contains("mid-reply after"), qPrintable(outcome.error()));
    QVERIFY(outcome.error().contains("the partial reply was discarded"));
    QCOMPARE(outcome.retries.size(), 0);
    QCOMPARE(m_server->requests().size(), 1u);
}

void TestProvidersHttp::droppedBeforeAnyTextIsRetried() {
    MockResponse response =
        MockResponse::sse(warren::test::splitEvents(warren::test::openAiTextStream({"x"})).mid(0, 1)); // role only
    response.dropMidStream = true;
    m_server->enqueue(response);
    m_server->enqueue(MockResponse::sse({warren::test::openAiTextStream({"whole reply"})}));
    const Outcome outcome = runCall(openAiConfig(*m_server));
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(outcome.retries.size(), 1);
    QVERIFY2(outcome.retries[0][2].toString().contains("after"), qPrintable(outcome.retries[0][2].toString()));
    QCOMPARE(outcome.result->content, std::string("whole reply"));
}

void TestProvidersHttp::connectionRefusedIsRetriedThenReported() {
    QTcpServer closed;
    QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
    const quint16 port = closed.serverPort();
    closed.close(); // nothing listens there now
    ProviderConfig config = openAiConfig(*m_server);
    config.baseUrl = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    config.maxRetries = 1;
    const Outcome outcome = runCall(config);
    QVERIFY(!outcome.result.ok());
    QCOMPARE(outcome.retries.size(), 1);
    QVERIFY2(outcome.error().contains("could not reach the model server at " + QString::fromStdString(config.baseUrl)),
             qPrintable(outcome.error()));
    QVERIFY(outcome.error().contains("is the server running?"));
}

void TestProvidersHttp::silentServerTimesOut() {
    MockResponse response = MockResponse::sse(warren::test::splitEvents(warren::test::openAiTextStream({"a", "b"})));
    response.chunkIntervalMs = 20000; // the first event, then silence
    m_server->enqueue(response);
    ProviderConfig config = openAiConfig(*m_server);
    config.requestTimeout = std::chrono::milliseconds(300);
    const Outcome outcome = runCall(config);
    QVERIFY(!outcome.result.ok());
    QVERIFY2(outcome.error().contains("sent nothing for 300 ms mid-reply"), qPrintable(outcome.error()));
}

void TestProvidersHttp::streamWithoutDoneIsAnError() {
    QByteArray stream = warren::test::openAiTextStream({"cut"});
    stream.chop(int(QByteArray("data: [DONE]\n\n").size()));
    m_server->enqueue(MockResponse::sse({stream}));
    const Outcome outcome = runCall(openAiConfig(*m_server));
    QVERIFY(!outcome.result.ok());
    QVERIFY2(outcome.error().contains("ended the stream without [DONE]"), qPrintable(outcome.error()));
}

void TestProvidersHttp::abortStopsTheCall() {
    MockResponse response = MockResponse::sse(warren::test::splitEvents(warren::test::openAiTextStream({"a", "b"})));
    response.chunkIntervalMs = 200;
    m_server->enqueue(response);
    QNetworkAccessManager network;
    auto provider = createProvider(openAiConfig(*m_server), &network);
    QVERIFY(provider.ok());
    QObject owner;
    ChatCall* call = provider.value()->chat(conversation(), &owner);
    QObject::connect(call, &ChatCall::delta, call, &ChatCall::abort);
    QSignalSpy deltas(call, &ChatCall::delta);
    QSignalSpy finished(call, &ChatCall::finished);
    QVERIFY(finished.wait(10000));
    QCOMPARE(deltas.count(), 1);
    QCOMPARE(call->result().error().message, std::string("aborted"));
    QTest::qWait(0);
    QCOMPARE(finished.count(), 1);
}

void TestProvidersHttp::anthropicTextAndToolUse() {
    const QByteArray stream = warren::test::anthropicToolUseStream(
        "Let me look.", "toolu_01", "shell", {"", "{\"comm", "and\": \"l", "s\"", "}"}, 40, 21);
    m_server->enqueue(MockResponse::sse(warren::test::splitChunks(stream, 11)));
    const Outcome outcome = runCall(anthropicConfig(*m_server));
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(outcome.deltas.join(""), QString("Let me look."));
    QCOMPARE(outcome.result->content, std::string("Let me look."));
    QCOMPARE(outcome.result->toolCalls.size(), 1u);
    QCOMPARE(outcome.result->toolCalls[0].id, std::string("toolu_01"));
    QCOMPARE(outcome.result->toolCalls[0].arguments, (nlohmann::json{{"command", "ls"}}));
    QCOMPARE(outcome.result->tokenUsage.input, 40u);
    QCOMPARE(outcome.result->tokenUsage.output, 21u);
    QCOMPARE(outcome.result->finishReason, std::string("tool_calls"));

    const auto& request = m_server->requests().front();
    QCOMPARE(request.path, QByteArray("/v1/messages"));
    QCOMPARE(request.headers.value("x-api-key"), QByteArray::fromStdString(kKey));
    QCOMPARE(request.headers.value("anthropic-version"), QByteArray("2023-06-01"));
    QVERIFY(!request.headers.contains("authorization"));
    const nlohmann::json body = request.json();
    QCOMPARE(body["model"], "claude-test");
    QCOMPARE(body["stream"], true);
    QCOMPARE(body["max_tokens"], 4096);
    QCOMPARE(body["system"], "You are Warren.");
    QCOMPARE(body["messages"].size(), 1u);
    QCOMPARE(body["tools"][0]["input_schema"]["type"], "object");
}

void TestProvidersHttp::anthropicErrorEvent() {
    QByteArray stream = warren::test::anthropicTextStream({"Hi"});
    stream = stream.left(stream.indexOf("event: content_block_delta"));
    stream += warren::test::sseEvent(
        "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", "error");
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(stream)));
    const Outcome outcome = runCall(anthropicConfig(*m_server));
    QVERIFY(!outcome.result.ok());
    QVERIFY2(outcome.error().contains("overloaded_error mid-reply: Overloaded"), qPrintable(outcome.error()));
}

void TestProvidersHttp::anthropicOverloaded529IsRetried() {
    m_server->enqueue(MockResponse::json(
        529, "Overloaded", "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"));
    m_server->enqueue(MockResponse::sse({warren::test::anthropicTextStream({"Back."})}));
    const Outcome outcome = runCall(anthropicConfig(*m_server));
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(outcome.retries.size(), 1);
    QVERIFY(outcome.retries[0][2].toString().contains("529"));
    QCOMPARE(outcome.result->content, std::string("Back."));
}

// gpt-5-mini at the official provider: max_completion_tokens (its default 32768), reasoning_effort; a server
// that refuses max_tokens for it as OpenAI does answers the first request.
void TestProvidersHttp::officialOpenAiSendsWhatReasoningModelsTake() {
    m_server->behaveLike(warren::test::RealApi::OpenAi);
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::openAiTextStream({"ok"}))));
    ProviderConfig config = openAiConfig(*m_server);
    config = [&] {
        auto parsed = parseProviderSpec("openai", "gpt-5-mini");
        parsed->baseUrl = config.baseUrl;
        parsed->apiKey = kKey;
        return *parsed;
    }();
    LlmChatParams params = conversation();
    params.reasoningEffort = "high";
    const Outcome outcome = runCall(config, params);
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(m_server->refusals(), 0);
    const nlohmann::json body = m_server->requests().at(0).json();
    QCOMPARE(body.value("max_completion_tokens", 0), 32768);
    QVERIFY(!body.contains("max_tokens"));
    QVERIFY(!body.contains("temperature"));
    QCOMPARE(body.value("reasoning_effort", ""), std::string("high"));
}

// A server reached as openai-compatible (or one Warren guessed wrong about) refuses max_tokens with
// OpenAI's own 400: the provider sends max_completion_tokens instead, and keeps doing so for the task.
void TestProvidersHttp::refusedMaxTokensIsAdaptedOnceForTheTask_data() {
    QTest::addColumn<QString>("spec");
    QTest::newRow("openai-compatible:URL") << "openai-compatible:";
    QTest::newRow("openrouter by name, model with a router prefix") << "openrouter";
}

void TestProvidersHttp::refusedMaxTokensIsAdaptedOnceForTheTask() {
    QFETCH(QString, spec);
    m_server->behaveLike(warren::test::RealApi::OpenAi);
    for (int i = 0; i < 2; ++i)
        m_server->enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::openAiTextStream({"ok"}))));
    const std::string url = m_server->baseUrl().toStdString() + "/v1";
    auto config = parseProviderSpec(spec == "openrouter" ? "openrouter" : "openai-compatible:" + url, "openai/o4-mini");
    QVERIFY(config.ok());
    config->baseUrl = url;
    config->apiKey = kKey;
    config->retryBaseDelay = std::chrono::milliseconds(5);
    LlmChatParams params = conversation();
    params.maxOutputTokens = 5000;

    QNetworkAccessManager network;
    auto provider = createProvider(*config, &network);
    QVERIFY(provider.ok());
    QStringList adaptations;
    for (int call = 0; call < 2; ++call) {
        QObject owner;
        ChatCall* chat = provider.value()->chat(params, &owner);
        QObject::connect(chat, &ChatCall::adapted, [&](const QString& what) { adaptations << what; });
        QSignalSpy finished(chat, &ChatCall::finished);
        QVERIFY(finished.wait(20000));
        QVERIFY2(chat->result().ok(), chat->result().ok() ? "" : chat->result().error().message.c_str());
    }
    // First call: refused once, then adapted; second call: adapted from the start.
    QCOMPARE(m_server->refusals(), 1);
    QCOMPARE(int(m_server->requests().size()), 3);
    QCOMPARE(m_server->requests()[0].json().value("max_tokens", 0), 5000);
    for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
        const nlohmann::json body = m_server->requests()[i].json();
        QCOMPARE(body.value("max_completion_tokens", 0), 5000);
        QVERIFY(!body.contains("max_tokens"));
    }
    QCOMPARE(adaptations.size(), 1);
    QVERIFY2(adaptations[0].contains("max_completion_tokens instead of max_tokens"), qPrintable(adaptations[0]));
    QVERIFY2(adaptations[0].contains("Unsupported parameter"), qPrintable(adaptations[0]));
    QVERIFY(!adaptations[0].contains(QString::fromStdString(kKey)));
}

void TestProvidersHttp::reasoningTokensAreCounted() {
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::openAiToolCallStreamEnding(
        "call_1", "shell", {"{\"command\":", "\"ls\"}"}, "tool_calls", 700, 640))));
    const Outcome outcome = runCall(openAiConfig(*m_server));
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(outcome.result->tokenUsage.output, 700u);
    QCOMPARE(outcome.result->tokenUsage.reasoning, 640u);
}

void TestProvidersHttp::requestsIdentifyThemselves_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("attribution");
    QTest::newRow("openai") << "openai" << false;
    QTest::newRow("anthropic") << "anthropic" << false;
    QTest::newRow("openrouter") << "openrouter" << true;
}

void TestProvidersHttp::requestsIdentifyThemselves() {
    QFETCH(QString, name);
    QFETCH(bool, attribution);
    ProviderConfig config = name == "anthropic" ? anthropicConfig(*m_server) : openAiConfig(*m_server);
    config.name = name.toStdString();
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(
        name == "anthropic" ? warren::test::anthropicTextStream({"ok"}) : warren::test::openAiTextStream({"ok"}))));
    const Outcome outcome = runCall(config);
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    const auto& headers = m_server->requests().at(0).headers;
    QVERIFY2(headers.value("user-agent").startsWith("warren/"), headers.value("user-agent").constData());
    QCOMPARE(headers.value("x-title"), attribution ? QByteArray("Warren") : QByteArray());
    // The referer is the home page the build names, and none when it names none (never a made-up one).
    QCOMPARE(headers.value("http-referer"), attribution ? QByteArray(WARREN_HOMEPAGE) : QByteArray());
    QCOMPARE(headers.contains("http-referer"), attribution && !QByteArray(WARREN_HOMEPAGE).isEmpty());
}

// Extended thinking with a tool call, as the Messages API does it: the reply's thinking block (signed) and
// redacted_thinking block come back in the next request, first in the assistant message, unchanged; a
// server that checks them (as Anthropic does) accepts the request.
void TestProvidersHttp::anthropicThinkingBlocksGoBackWithTheToolResults() {
    m_server->behaveLike(warren::test::RealApi::Anthropic);
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::anthropicThinkingToolUseStream(
        {"I should ", "list the files."}, "REDACTED-DATA", "toolu_1", "shell", {"{\"command\":", "\"ls\"}"}))));
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::anthropicTextStream({"done"}))));
    LlmChatParams params = conversation();
    params.reasoningEffort = "low";
    const Outcome first = runCall(anthropicConfig(*m_server), params);
    QVERIFY2(first.result.ok(), qPrintable(first.error()));
    QCOMPARE(first.result->reasoning.size(), std::size_t{2});
    QCOMPARE(first.result->reasoning[0].text, std::string("I should list the files."));
    QCOMPARE(first.deltas, QStringList{}); // thinking is not the reply's text

    const nlohmann::json firstBody = m_server->requests().at(0).json();
    QCOMPARE(firstBody["thinking"].dump(), std::string(R"({"budget_tokens":4096,"type":"enabled"})"));
    QVERIFY(firstBody.value("max_tokens", 0) > 4096);

    // The agent's next turn: the assistant message with the reasoning, then the tool result.
    params.messages.push_back({"assistant", first.result->content, first.result->toolCalls, std::nullopt,
                               first.result->reasoning});
    params.messages.push_back({"tool", "a.txt", {}, std::string("toolu_1")});
    const Outcome second = runCall(anthropicConfig(*m_server), params);
    QVERIFY2(second.result.ok(), qPrintable(second.error()));
    QCOMPARE(m_server->refusals(), 0);
    const nlohmann::json content = m_server->requests().at(1).json()["messages"][1]["content"];
    QCOMPARE(content[0].value("type", ""), std::string("thinking"));
    QCOMPARE(content[0].value("signature", ""), warren::test::anthropicSignature("I should list the files."));
    QCOMPARE(content[1].dump(), std::string(R"({"data":"REDACTED-DATA","type":"redacted_thinking"})"));
    QCOMPARE(content[2].value("type", ""), std::string("tool_use"));
}

// The mock refuses as Anthropic does when the thinking blocks are missing: proof the check above can fail.
void TestProvidersHttp::anthropicWithoutThinkingBlocksIsRefused() {
    m_server->behaveLike(warren::test::RealApi::Anthropic);
    LlmChatParams params = conversation();
    params.reasoningEffort = "low";
    const warren::protocol::ToolCall call{"toolu_1", "shell", nlohmann::json{{"command", "ls"}}};
    params.messages.push_back(ChatMessage{"assistant", "", {call}, std::nullopt});
    params.messages.push_back({"tool", "a.txt", {}, std::string("toolu_1")});
    const Outcome outcome = runCall(anthropicConfig(*m_server), params);
    QVERIFY(!outcome.result.ok());
    QVERIFY2(outcome.error().contains("400") && outcome.error().contains("Expected `thinking`"), qPrintable(outcome.error()));
    QCOMPARE(m_server->refusals(), 1);
    QCOMPARE(int(m_server->requests().size()), 1); // nothing to adapt: not sent again
}

void TestProvidersHttp::anthropicStatedCeilingIsAdaptedTo() {
    m_server->behaveLike(warren::test::RealApi::Anthropic);
    m_server->setOutputCeiling(8192);
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::anthropicTextStream({"ok"}))));
    LlmChatParams params = conversation();
    params.maxOutputTokens = 16384;
    const Outcome outcome = runCall(anthropicConfig(*m_server), params);
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(int(m_server->requests().size()), 2);
    QCOMPARE(m_server->requests()[0].json().value("max_tokens", 0), 16384);
    QCOMPARE(m_server->requests()[1].json().value("max_tokens", 0), 8192);
}

// A reply the limit stopped in the middle of a call's arguments: finish_reason length, the call counted as
// cut and not returned, so nothing can run it.
void TestProvidersHttp::cutToolCallsAreNotReturned_data() {
    QTest::addColumn<bool>("anthropic");
    QTest::newRow("openai") << false;
    QTest::newRow("anthropic") << true;
}

void TestProvidersHttp::cutToolCallsAreNotReturned() {
    QFETCH(bool, anthropic);
    const QStringList fragments{"{\"path\": \"big.txt\", ", "\"content\": \"line 1\\nline 2"};
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(
        anthropic ? warren::test::anthropicThinkingToolUseStream({"long file"}, {}, "toolu_1", "write_file", fragments,
                                                                 "max_tokens", 4096)
                  : warren::test::openAiToolCallStreamEnding("call_1", "write_file", fragments, "length", 4096, 0))));
    const Outcome outcome = runCall(anthropic ? anthropicConfig(*m_server) : openAiConfig(*m_server));
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(outcome.result->finishReason, std::string("length"));
    QVERIFY(outcome.result->toolCalls.empty());
    QCOMPARE(outcome.result->cutToolCalls, 1u);
}

// warrend's guard on an endpoint a user names (ProviderConfig::access): the host is resolved by the call,
// each address checked, and only a checked address is connected to, with the name kept as Host; an address
// inside that access does not allow gets no connection at all, and a redirect is not followed.
void TestProvidersHttp::aGuardedCallConnectsOnlyWhereAccessAllows_data() {
    QTest::addColumn<QString>("host");    // in the URL
    QTest::addColumn<QString>("allowed"); // the operator's --allow-internal; empty: none
    QTest::addColumn<bool>("reached");
    QTest::newRow("loopback address, nothing allowed") << "127.0.0.1" << "" << false;
    QTest::newRow("localhost, nothing allowed") << "localhost" << "" << false;
    QTest::newRow("loopback, another port allowed") << "127.0.0.1" << "127.0.0.1:1" << false;
    QTest::newRow("loopback address allowed") << "127.0.0.1" << "127.0.0.1:PORT" << true;
    QTest::newRow("localhost, its address allowed") << "localhost" << "127.0.0.1:PORT" << true;
}

void TestProvidersHttp::aGuardedCallConnectsOnlyWhereAccessAllows() {
    QFETCH(QString, host);
    QFETCH(QString, allowed);
    QFETCH(bool, reached);
    const QString port = QString::number(m_server->port());
    ProviderConfig config = openAiConfig(*m_server);
    config.baseUrl = ("http://" + host + ":" + port + "/v1").toStdString();
    config.maxRetries = 0;
    InsideAccess access{true, {}};
    if (!allowed.isEmpty())
        access.allowed = *parseInsideDestinations(QString(allowed).replace("PORT", port).toStdString());
    config.access = access;
    m_server->enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::openAiTextStream({"hi"}))));
    const Outcome outcome = runCall(config);
    if (!reached) {
        QVERIFY(!outcome.result.ok());
        QVERIFY2(outcome.error().contains("inside the server's own host") && outcome.error().contains("--allow-internal"),
                 qPrintable(outcome.error()));
        QCOMPARE(m_server->requests().size(), 0u);
        return;
    }
    QVERIFY2(outcome.result.ok(), qPrintable(outcome.error()));
    QCOMPARE(m_server->requests().size(), 1u);
    QCOMPARE(m_server->requests().front().headers.value("host"), (host + ":" + port).toUtf8());

    // The allowed endpoint redirects to another address inside: the call fails there, nothing follows.
    warren::test::MockLlmServer other;
    QVERIFY(other.listen());
    m_server->enqueue(MockResponse::json(
        307, "Temporary Redirect", "{}",
        {{"Location", "http://127.0.0.1:" + QByteArray::number(other.port()) + "/v1/chat/completions"}}));
    const Outcome redirected = runCall(config);
    QVERIFY(!redirected.result.ok());
    QVERIFY2(redirected.error().contains("307"), qPrintable(redirected.error()));
    QCOMPARE(other.requests().size(), 0u);
}

QTEST_MAIN(TestProvidersHttp)
#include "tst_providers_http.moc"
