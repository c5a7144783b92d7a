// The handoff summary request compaction makes, sent by the real providers to MockLlmServer speaking the
// OpenAI and Anthropic wire formats: the request carries no tools, the instructions as the system
// message and the transcript; the streamed answer passes checkHandoffSummary and is the summary put in
// place. An answer without the headings, or a refused request, is what the loop falls back on.
#include "agent_core/prompt/HandoffPrompt.h"
#include "app/providers/Provider.h"
#include "tests/support/MockLlmServer.h"

#include <QNetworkAccessManager>
#include <QSignalSpy>
#include <QtTest>

using namespace warren::control;
using namespace warren::agent;
using warren::protocol::ChatMessage;
using warren::protocol::LlmChatParams;
using warren::test::MockLlmServer;
using warren::test::MockResponse;

namespace {

const QStringList kNotePieces{"## Goal\nFix the ", "parser.\n## Done\n- read src/parse.c\n## Pend",
                              "ing\n- fix it\n",
                              "## State of the code and tests\nparse.c unchanged; test_parse fails"};

// OpenAI's refusal of a request over the model's window.
const QByteArray kContextLengthRefusal = QByteArray::fromStdString(nlohmann::json{
    {"error",
     {{"message", "This model's maximum context length is 8192 tokens."},
      {"type", "invalid_request_error"},
      {"param", "messages"},
      {"code", "context_length_exceeded"}}}}.dump());

ProviderConfig configFor(bool anthropic, const MockLlmServer& server) {
    ProviderConfig config;
    config.kind = anthropic ? ProviderConfig::Kind::Anthropic : ProviderConfig::Kind::OpenAi;
    config.name = anthropic ? "anthropic" : "openai";
    config.baseUrl = server.baseUrl().toStdString() + (anthropic ? "" : "/v1");
    config.model = anthropic ? "claude-sonnet-4-5" : "gpt-4.1";
    config.keyName = config.name;
    config.apiKey = "sk-test";
    config.maxRetries = 0;
    config.retryBaseDelay = std::chrono::milliseconds(5);
    config.maxRetryDelay = std::chrono::milliseconds(50);
    config.requestTimeout = std::chrono::milliseconds(20000);
    return config;
}

// The request TaskRun sends: the handoff messages, no tools.
LlmChatParams handoffParams() {
    std::vector<ChatMessage> cut;
    cut.push_back(
        {"assistant",
         "Reading the parser.",
         {warren::protocol::ToolCall{"call_1", "read_file", nlohmann::json{{"path", "src/parse.c"}}}},
         std::nullopt});
    cut.push_back(
        {"tool", "int parse(const char* s) {\n  return count(s) - 1;\n}\n", {}, std::string("call_1")});
    return {handoffRequest("Fix the parser.", cut, 8000), {}};
}

warren::Result<warren::protocol::LlmChatResult> call(const ProviderConfig& config,
                                                     const LlmChatParams& params) {
    QNetworkAccessManager network;
    auto provider = createProvider(config, &network);
    if (!provider)
        return provider.error();
    QObject owner;
    ChatCall* chat = provider.value()->chat(params, &owner);
    QSignalSpy finished(chat, &ChatCall::finished);
    if (!finished.wait(30000))
        return warren::makeError(warren::ErrorCode::System, "the call did not finish");
    return chat->result();
}

QByteArray noteStream(bool anthropic, const QStringList& pieces) {
    return anthropic ? warren::test::anthropicTextStream(pieces, 900, 80)
                     : warren::test::openAiTextStream(pieces, 900, 80);
}

} // namespace

class TestHandoffWire : public QObject {
    Q_OBJECT

private slots:
    void theSummaryComesBack_data() {
        QTest::addColumn<bool>("anthropic");
        QTest::newRow("openai") << false;
        QTest::newRow("anthropic") << true;
    }
    void theSummaryComesBack() {
        QFETCH(bool, anthropic);
        MockLlmServer server;
        QVERIFY(server.listen());
        server.behaveLike(anthropic ? warren::test::RealApi::Anthropic : warren::test::RealApi::OpenAi);
        server.enqueue(MockResponse::sse(warren::test::splitChunks(noteStream(anthropic, kNotePieces), 13)));

        const auto reply = call(configFor(anthropic, server), handoffParams());
        QVERIFY2(reply.ok(), reply.ok() ? "" : reply.error().message.c_str());
        const auto verdict = checkHandoffSummary(*reply, 8000);
        QVERIFY2(verdict.summary.has_value(), verdict.problem.c_str());
        QCOMPARE(QString::fromStdString(*verdict.summary), kNotePieces.join(""));
        QCOMPARE(reply->tokenUsage.input, 900u);
        QCOMPARE(reply->tokenUsage.output, 80u);

        // What went over the wire: the instructions, the transcript, and no tools to call.
        QCOMPARE(server.requests().size(), 1u);
        const auto body = server.requests().front().json();
        QVERIFY(!body.contains("tools"));
        const auto& messages = body["messages"];
        std::string system;
        std::string user;
        if (anthropic) {
            system = body.value("system", "");
            QCOMPARE(messages.size(), 1u);
            QCOMPARE(messages[0]["role"], "user");
            user = messages[0]["content"].is_string() ? messages[0]["content"].get<std::string>()
                                                      : messages[0]["content"][0].value("text", "");
        } else {
            QCOMPARE(messages.size(), 2u);
            QCOMPARE(messages[0]["role"], "system");
            system = messages[0].value("content", "");
            user = messages[1].value("content", "");
        }
        QVERIFY2(system.find("## State of the code and tests") != std::string::npos, system.c_str());
        QVERIFY2(user.find("The task:\nFix the parser.") != std::string::npos, user.c_str());
        QVERIFY2(user.find("-> call call_1: read_file {\"path\":\"src/parse.c\"}") != std::string::npos,
                 user.c_str());
        QVERIFY2(user.find("return count(s) - 1;") != std::string::npos, user.c_str());
    }

    void anAnswerWithoutTheHeadingsIsRefused() {
        MockLlmServer server;
        QVERIFY(server.listen());
        server.behaveLike(warren::test::RealApi::OpenAi);
        server.enqueue(
            MockResponse::sse({warren::test::openAiTextStream({"I read parse.c ", "and will fix it."})}));
        const auto reply = call(configFor(false, server), handoffParams());
        QVERIFY2(reply.ok(), reply.ok() ? "" : reply.error().message.c_str());
        const auto verdict = checkHandoffSummary(*reply, 8000);
        QVERIFY(!verdict.summary);
        QCOMPARE(verdict.problem, std::string("the answer lacks the heading \"## Goal\""));
    }

    void aRefusedRequestIsAnError() {
        MockLlmServer server;
        QVERIFY(server.listen());
        server.enqueue(MockResponse::json(400, "Bad Request", kContextLengthRefusal));
        const auto reply = call(configFor(false, server), handoffParams());
        QVERIFY(!reply.ok());
        QVERIFY2(reply.error().message.find("maximum context length") != std::string::npos,
                 reply.error().message.c_str());
    }
};

QTEST_MAIN(TestHandoffWire)
#include "tst_handoff_wire.moc"
