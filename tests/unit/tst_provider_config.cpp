// parseProviderSpec, createProvider's checks, the scripted provider and the text of HTTP failures.
#include "app/providers/HttpFailure.h"
#include "app/providers/Provider.h"
#include "app/providers/ProviderChoice.h"
#include "app/providers/ScriptedProvider.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::control;
using warren::protocol::ChatMessage;
using warren::protocol::LlmChatParams;

namespace {

LlmChatParams withAssistantTurns(int turns) {
    LlmChatParams params;
    params.messages.push_back(ChatMessage{"user", "go", {}, std::nullopt});
    for (int i = 0; i < turns; ++i) {
        params.messages.push_back(ChatMessage{"assistant", "", {}, std::nullopt});
        params.messages.push_back(ChatMessage{"tool", "ok", {}, std::string("call")});
    }
    return params;
}

const char* const kScript = "{\"turns\": ["
                            "{\"content\": \"Listing the files first.\", \"tool_calls\": [{\"name\": \"shell\", "
                            "\"arguments\": {\"command\": \"ls\"}}], \"usage\": {\"input\": 120, \"output\": 14}},"
                            "{\"tool_calls\": [{\"id\": \"mine\", \"name\": \"finish\", \"arguments\": {\"summary\": \"ok\"}}]}"
                            "]}";

} // namespace

class TestProviderConfig : public QObject {
    Q_OBJECT
private slots:
    void parsesSpecs_data();
    void parsesSpecs();
    void keyNamesAreThoseOfTheSpecs();
    void refusesSpecs_data();
    void refusesSpecs();
    void choosesAProvider_data();
    void choosesAProvider();
    void createProviderChecksTheConfig();
    void scriptedTurnFollowsTheConversation();
    void scriptedCallStreamsThenFinishes();
    void scriptedCallCanBeAborted();
    void pacedScriptedCallTakesItsPace();
    void httpFailureText_data();
    void httpFailureText();
};

void TestProviderConfig::parsesSpecs_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("baseUrl");
    QTest::addColumn<QString>("keyName");
    QTest::newRow("openai") << "openai" << "openai" << "https://api.openai.com/v1" << "openai";
    QTest::newRow("anthropic") << "anthropic" << "anthropic" << "https://api.anthropic.com" << "anthropic";
    QTest::newRow("ollama") << "ollama" << "openai" << "http://127.0.0.1:11434/v1" << "";
    QTest::newRow("lmstudio") << "lmstudio" << "openai" << "http://127.0.0.1:1234/v1" << "";
    QTest::newRow("vllm") << "vllm" << "openai" << "http://127.0.0.1:8000/v1" << "";
    QTest::newRow("llamacpp") << "llamacpp" << "openai" << "http://127.0.0.1:8080/v1" << "";
    QTest::newRow("openrouter") << "openrouter" << "openai" << "https://openrouter.ai/api/v1" << "openrouter";
    QTest::newRow("openai-compatible URL, trailing slash dropped")
        << "openai-compatible:http://gpu-box:9000/v1/" << "openai" << "http://gpu-box:9000/v1" << "openai-compatible";
    QTest::newRow("anthropic URL") << "anthropic:https://proxy.example/anthropic" << "anthropic"
                                   << "https://proxy.example/anthropic" << "anthropic";
}

void TestProviderConfig::parsesSpecs() {
    QFETCH(QString, spec);
    QFETCH(QString, kind);
    QFETCH(QString, baseUrl);
    QFETCH(QString, keyName);
    const auto config = parseProviderSpec(spec.toStdString(), "some-model");
    QVERIFY2(config.ok(), config ? "" : config.error().message.c_str());
    QCOMPARE(QString(providerKindName(config->kind)), kind);
    QCOMPARE(QString::fromStdString(config->baseUrl), baseUrl);
    QCOMPARE(QString::fromStdString(config->keyName), keyName);
    QCOMPARE(config->model, std::string("some-model"));
    QVERIFY(config->apiKey.empty());
    const auto names = providerKeyNames(); // what a warrend user may store a key for
    QCOMPARE(std::count(names.begin(), names.end(), config->keyName), keyName.isEmpty() ? 0 : 1);
}

void TestProviderConfig::keyNamesAreThoseOfTheSpecs() {
    QCOMPARE(providerKeyNames(),
             (std::vector<std::string>{"anthropic", "openai", "openai-compatible", "openrouter"}));
}

void TestProviderConfig::refusesSpecs_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("error");
    QTest::newRow("unknown name lists the known ones") << "gemini" << "m" << "unknown provider \"gemini\": use one of scripted:FILE, openai";
    QTest::newRow("model missing") << "openai" << "" << "needs a model: pass --model";
    QTest::newRow("scripted without file") << "scripted:" << "" << "needs the script file";
    QTest::newRow("compatible without URL") << "openai-compatible:" << "m" << "needs an http:// or https:// URL";
    QTest::newRow("compatible with a non-HTTP URL") << "openai-compatible:ftp://x" << "m" << "needs an http://";
}

void TestProviderConfig::refusesSpecs() {
    QFETCH(QString, spec);
    QFETCH(QString, model);
    QFETCH(QString, error);
    const auto config = parseProviderSpec(spec.toStdString(), model.toStdString());
    QVERIFY(!config.ok());
    QVERIFY2(QString::fromStdString(config.error().message).contains(error), config.error().message.c_str());
}

// "scripted:FILE" taken apart and written again in one place: every other choice stays as it was written.
void TestProviderConfig::choosesAProvider_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("scripted");
    QTest::addColumn<QString>("scriptFile");
    QTest::newRow("a script") << "scripted:/tmp/s.json" << true << "/tmp/s.json";
    QTest::newRow("a script with a colon") << "scripted:c:d.json" << true << "c:d.json";
    QTest::newRow("no file after the colon") << "scripted:" << true << "";
    QTest::newRow("a name") << "openai" << false << "";
    QTest::newRow("a URL") << "openai-compatible:http://h:1/v1" << false << "";
    QTest::newRow("the bare name") << "scripted" << false << "";
}

void TestProviderConfig::choosesAProvider() {
    QFETCH(QString, text);
    QFETCH(bool, scripted);
    QFETCH(QString, scriptFile);
    const auto choice = ProviderChoice::parse(text.toStdString());
    QCOMPARE(choice.isScripted(), scripted);
    QCOMPARE(QString::fromStdString(choice.scriptFile()), scriptFile);
    QCOMPARE(QString::fromStdString(choice.toString()), text);
    if (scripted)
        QCOMPARE(ProviderChoice::scripted(scriptFile.toStdString()).toString(), text.toStdString());
}

void TestProviderConfig::createProviderChecksTheConfig() {
    auto openai = parseProviderSpec("openai", "gpt-4o-mini").value();
    auto noKey = createProvider(openai, nullptr);
    QVERIFY(!noKey.ok()); // no network manager
    QNetworkAccessManager* const fakeNetwork = reinterpret_cast<QNetworkAccessManager*>(this); // never used
    noKey = createProvider(openai, fakeNetwork);
    QVERIFY(!noKey.ok());
    QVERIFY2(QString::fromStdString(noKey.error().message).contains("no API key is stored as 'openai'"),
             noKey.error().message.c_str());
    openai.apiKey = "sk-test";
    auto made = createProvider(openai, fakeNetwork);
    QVERIFY(made.ok());
    QCOMPARE(made.value()->describe(), std::string("OpenAI-compatible gpt-4o-mini at https://api.openai.com/v1"));

    const auto ollama = createProvider(parseProviderSpec("ollama", "llama3.2").value(), fakeNetwork);
    QVERIFY(ollama.ok()); // local servers need no key

    const auto missing = createProvider(parseProviderSpec("scripted:/nonexistent/script.json", "").value(), nullptr);
    QVERIFY(!missing.ok());
    QVERIFY(QString::fromStdString(missing.error().message).contains("/nonexistent/script.json"));
}

void TestProviderConfig::scriptedTurnFollowsTheConversation() {
    auto script = warren::protocol::parseScript(kScript, "demo.json");
    QVERIFY(script.ok());
    const ScriptedProvider provider(script.value());
    const auto first = provider.replyTo(withAssistantTurns(0));
    QVERIFY(first.ok());
    QCOMPARE(first->content, std::string("Listing the files first."));
    QCOMPARE(first->toolCalls.at(0).id, std::string("call_0_0"));
    QCOMPARE(first->toolCalls.at(0).arguments["command"], "ls");
    QCOMPARE(first->tokenUsage.input, 120u);
    QCOMPARE(first->finishReason, std::string("tool_calls"));

    // A resumed agent sends its conversation so far: the turn follows from it, not from earlier calls.
    const auto second = provider.replyTo(withAssistantTurns(1));
    QVERIFY(second.ok());
    QCOMPARE(second->toolCalls.at(0).id, std::string("mine"));
    QCOMPARE(second->tokenUsage.output, 0u);

    const auto beyond = provider.replyTo(withAssistantTurns(2));
    QVERIFY(!beyond.ok());
    QVERIFY2(QString::fromStdString(beyond.error().message).contains("demo.json has 2 turns and the agent asked for turn 3"),
             beyond.error().message.c_str());
}

void TestProviderConfig::scriptedCallStreamsThenFinishes() {
    QTemporaryDir dir;
    const QString path = dir.filePath("script.json");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(kScript);
    file.close();
    auto provider = createProvider(parseProviderSpec("scripted:" + path.toStdString(), "").value(), nullptr);
    QVERIFY(provider.ok());
    QObject owner;
    ChatCall* call = provider.value()->chat(withAssistantTurns(0), &owner);
    QSignalSpy deltas(call, &ChatCall::delta);
    QSignalSpy finished(call, &ChatCall::finished);
    QCOMPARE(finished.count(), 0); // asynchronous, like a real call
    QVERIFY(finished.wait(5000));
    QVERIFY(deltas.count() >= 1);
    QString streamed;
    for (const auto& arguments : deltas)
        streamed += arguments.at(0).toString();
    QCOMPARE(streamed, QString("Listing the files first."));
    QVERIFY(call->result().ok());
    QCOMPARE(call->result()->toolCalls.size(), 1u);
    QCOMPARE(finished.count(), 1);
}

void TestProviderConfig::scriptedCallCanBeAborted() {
    auto script = warren::protocol::parseScript(kScript, "demo.json");
    ScriptedProvider provider(script.value());
    QObject owner;
    ChatCall* call = provider.chat(withAssistantTurns(0), &owner);
    QSignalSpy deltas(call, &ChatCall::delta);
    QSignalSpy finished(call, &ChatCall::finished);
    call->abort();
    QCOMPARE(finished.count(), 1);
    QVERIFY(!call->result().ok());
    QCOMPARE(call->result().error().message, std::string("aborted"));
    QCoreApplication::processEvents();
    QCOMPARE(deltas.count(), 0);
    QCOMPARE(finished.count(), 1);
}

// A script with a pace (the demo's) streams each reply over that time: its pieces come apart, the call
// finishes after the last, no sooner than the pace (a timer never fires early by more than Qt's 5%).
void TestProviderConfig::pacedScriptedCallTakesItsPace() {
    auto script = warren::protocol::parseScript(kScript, "demo.json");
    script->pace = std::chrono::milliseconds(400);
    ScriptedProvider provider(script.value());
    QObject owner;
    QElapsedTimer clock;
    clock.start();
    ChatCall* call = provider.chat(withAssistantTurns(0), &owner);
    QSignalSpy deltas(call, &ChatCall::delta);
    QSignalSpy finished(call, &ChatCall::finished);
    QVERIFY(deltas.wait(5000));
    QCOMPARE(finished.count(), 0); // the first piece is not the whole reply
    QVERIFY(finished.wait(5000));
    QVERIFY(deltas.count() >= 2);
    QVERIFY2(clock.elapsed() >= 380, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(call->result().ok());
}

void TestProviderConfig::httpFailureText_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("expected");
    QTest::newRow("401 names the key entry")
        << 401 << QByteArray("{\"error\":{\"message\":\"Incorrect API key provided: sk-secret-123\"}}")
        << "the model server at https://api.openai.com/v1 answered 401 Unauthorized: Incorrect API key provided: "
           "[the API key]; check the API key stored as 'openai' (warren secrets set openai)";
    QTest::newRow("anthropic error shape")
        << 400 << QByteArray("{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"max_tokens too big\"}}")
        << "answered 400 Bad Request: max_tokens too big; the request was refused";
    QTest::newRow("plain text body") << 404 << QByteArray("no such model\n")
                                     << "answered 404 Not Found: no such model; check the URL and that the server has "
                                        "the model 'gpt-x'";
    QTest::newRow("error as a string") << 400 << QByteArray("{\"error\":\"model not loaded\"}")
                                       << "400 Bad Request: model not loaded;";
    QTest::newRow("long message cut at 500 bytes") << 400 << QByteArray(2000, 'y')
                                                   << QString(500, 'y') + "...; the request was refused";
}

void TestProviderConfig::httpFailureText() {
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(QString, expected);
    const ServerContext server{"https://api.openai.com/v1", "openai", "openai", "gpt-x", "sk-secret-123"};
    const QByteArray reason = status == 401 ? "Unauthorized" : status == 404 ? "Not Found" : "Bad Request";
    const QString text = QString::fromStdString(describeHttpStatus(server, status, reason, body, 1));
    QVERIFY2(text.contains(expected), qPrintable(text));
    QVERIFY(!text.contains("sk-secret-123"));
}

QTEST_MAIN(TestProviderConfig)
#include "tst_provider_config.moc"
