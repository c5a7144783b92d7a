// ModelUsage: a call's tokens read from the answer as it passes, for each wire format the CLIs speak,
// streamed (in pieces cut anywhere) and whole; and the request's model, read without building the
// conversation.

#include "app/modelproxy/ModelUsage.h"
#include "tests/support/MockLlmServer.h"

#include <QtTest>

using namespace warren::control;

class TestModelUsage : public QObject {
    Q_OBJECT

private slots:
    void usageOfEachFormat_data() {
        QTest::addColumn<QByteArray>("answer");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<int>("input");
        QTest::addColumn<int>("output");
        QTest::addColumn<QString>("model");
        using namespace warren::test;
        QTest::newRow("anthropic messages stream") << anthropicTextStream({"Hel", "lo"}, 25, 9) << true << 25 << 9
                                                   << "claude-mock";
        QTest::newRow("anthropic tool use stream")
            << anthropicToolUseStream("x", "t1", "Bash", {"{\"a\":", "1}"}, 40, 21) << true << 40 << 21 << "claude-mock";
        QTest::newRow("anthropic with cache") << sseEvent(R"({"type":"message_start","message":{"model":"c","usage":{"input_tokens":3,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":1}}})",
                                                          "message_start") +
                                                     sseEvent(R"({"type":"message_delta","usage":{"output_tokens":42}})",
                                                              "message_delta")
                                              << true << 1103 << 42 << "c";
        QTest::newRow("responses stream") << openAiResponsesStream({"a", "b"}, 13, 5) << true << 13 << 5 << "gpt-mock";
        QTest::newRow("chat completions stream") << openAiTextStream({"a", "b"}, 11, 7) << true << 11 << 7 << "mock-model";
        QTest::newRow("chat completions stream without usage")
            << sseEvent(R"({"choices":[{"delta":{"content":"x"}}],"model":"m"})") + "data: [DONE]\n\n" << true << 0 << 0
            << "m";
        QTest::newRow("anthropic json") << QByteArray(R"({"type":"message","model":"claude-x","content":[],
            "usage":{"input_tokens":7,"output_tokens":3}})") << false << 7 << 3 << "claude-x";
        QTest::newRow("responses json") << QByteArray(R"({"object":"response","model":"gpt-x",
            "usage":{"input_tokens":8,"output_tokens":4,"total_tokens":12}})") << false << 8 << 4 << "gpt-x";
        QTest::newRow("chat completions json") << QByteArray(R"({"object":"chat.completion","model":"gpt-y",
            "usage":{"prompt_tokens":9,"completion_tokens":2}})") << false << 9 << 2 << "gpt-y";
        QTest::newRow("count tokens counts nothing") << QByteArray(R"({"input_tokens":1234})") << false << 0 << 0 << "";
        QTest::newRow("an error") << QByteArray(R"({"type":"error","error":{"type":"overloaded_error"}})") << false << 0
                                  << 0 << "";
        QTest::newRow("not json") << QByteArray("<html>502</html>") << false << 0 << 0 << "";
        QTest::newRow("usage of the wrong type") << QByteArray(R"({"usage":{"input_tokens":-1,"output_tokens":"9"}})")
                                                 << false << 0 << 0 << "";
    }
    void usageOfEachFormat() {
        QFETCH(QByteArray, answer);
        QFETCH(bool, stream);
        QFETCH(int, input);
        QFETCH(int, output);
        QFETCH(QString, model);
        for (const int piece : {1, 7, 64, int(answer.size()) + 1}) {
            ModelUsageReader reader(stream);
            for (qsizetype at = 0; at < answer.size(); at += piece)
                reader.feed(std::string_view(answer.constData() + at, std::size_t(std::min<qsizetype>(piece, answer.size() - at))));
            reader.finish();
            QCOMPARE(reader.usage().inputTokens, std::uint64_t(input));
            QCOMPARE(reader.usage().outputTokens, std::uint64_t(output));
            QCOMPARE(QString::fromStdString(reader.usage().model), model);
        }
    }

    void requestModel_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("model");
        QTest::newRow("first") << QByteArray(R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"x"}]})")
                               << "claude-sonnet-4-5";
        QTest::newRow("after the messages")
            << QByteArray(R"({"messages":[{"model":"inner","content":[{"model":"deeper"}]}],"model":"gpt-5"})") << "gpt-5";
        QTest::newRow("only nested") << QByteArray(R"({"input":[{"model":"inner"}]})") << "";
        QTest::newRow("not a string") << QByteArray(R"({"model":5})") << "";
        QTest::newRow("not json") << QByteArray("model=x") << "";
        QTest::newRow("an array") << QByteArray(R"([{"model":"x"}])") << "";
        QTest::newRow("empty") << QByteArray() << "";
    }
    void requestModel() {
        QFETCH(QByteArray, body);
        QFETCH(QString, model);
        QCOMPARE(QString::fromStdString(warren::control::requestModel(std::string_view(body.constData(), std::size_t(body.size())))),
                 model);
    }
};

QTEST_GUILESS_MAIN(TestModelUsage)
#include "tst_model_usage.moc"
