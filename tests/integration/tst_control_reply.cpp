// `warren reply` end to end: a task that finished goes on with the user's message, through the real CLI, a
// sandboxed agent and an OpenAI-compatible or Anthropic server (MockLlmServer, in this process). The model is
// asked again with the whole conversation and the message last; the agent works in the same workspace;
// the timeline records the message once. Replies that cannot be taken are refused with what to do. A task
// run on a terminal (attended) whose model replies without a tool call ends waiting for the user, not
// nudged, and the reply continues it; run by a script (--json) it is nudged as before.
#include "tests/support/MockLlmServer.h"
#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

using nlohmann::json;
using warren::test::MockLlmServer;
using warren::test::MockResponse;
using warren::test::WarrenResult;

namespace {

const char* kReply = "Also write bye.txt, please.";

struct Provider {
    bool anthropic = false;
    QString spec; // --provider
    QString keyVariable;
    QString key;
};

Provider providerFor(bool anthropic, const MockLlmServer& server) {
    Provider provider;
    provider.anthropic = anthropic;
    provider.spec = anthropic ? "anthropic:" + server.baseUrl() : "openai-compatible:" + server.baseUrl() + "/v1";
    provider.keyVariable = anthropic ? "ANTHROPIC_API_KEY" : "WARREN_OPENAI_COMPATIBLE_API_KEY";
    provider.key = "sk-reply-" + QString::number(QRandomGenerator::global()->generate64(), 16);
    return provider;
}

// One model turn with one tool call, its arguments in two fragments, as the provider's API streams it.
void enqueueCall(MockLlmServer& server, const Provider& provider, const QString& id, const QString& tool,
                 const json& arguments) {
    const QString text = QString::fromStdString(arguments.dump());
    const QStringList fragments{text.left(7), text.mid(7)};
    const QByteArray stream = provider.anthropic
                                  ? warren::test::anthropicToolUseStream("Next.", id, tool, fragments)
                                  : warren::test::openAiToolCallStream(id, tool, fragments, "Next.");
    server.enqueue(MockResponse::sse(warren::test::splitChunks(stream, 61)));
}

// One model turn of text only: no tool call.
void enqueueText(MockLlmServer& server, const Provider& provider, const QString& text) {
    const QStringList pieces{text.left(9), text.mid(9)};
    const QByteArray stream =
        provider.anthropic ? warren::test::anthropicTextStream(pieces) : warren::test::openAiTextStream(pieces);
    server.enqueue(MockResponse::sse(warren::test::splitChunks(stream, 61)));
}

QProcessEnvironment environmentFor(const QString& dataDir, const Provider& provider) {
    QProcessEnvironment environment = warren::test::warrenEnvironment(dataDir);
    for (const char* name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "WARREN_OPENAI_COMPATIBLE_API_KEY"})
        environment.remove(name);
    if (!provider.key.isEmpty())
        environment.insert(provider.keyVariable, provider.key);
    return environment;
}

QString describe(const WarrenResult& result) {
    return QString::fromUtf8("exit " + QByteArray::number(result.exitCode) + "\nstderr:\n" + result.err.right(3000) +
                             "\nstdout (tail):\n" + result.out.right(3000));
}

std::vector<json> ofType(const std::vector<json>& events, const char* type) {
    std::vector<json> found;
    for (const auto& event : events)
        if (event.value("type", "") == type)
            found.push_back(event);
    return found;
}

// The text of a provider message's content: a string, or (Anthropic) its text blocks.
std::string contentText(const json& message) {
    const json content = message.value("content", json());
    if (content.is_string())
        return content.get<std::string>();
    std::string text;
    for (const auto& block : content.is_array() ? content : json::array())
        if (block.value("type", "") == "text")
            text += block.value("text", "");
    return text;
}

json onlyTask(const QString& dataDir) {
    const auto tasks = warren::test::jsonLines(warren::test::runWarren({"tasks", "--json"}, dataDir).out);
    return tasks.size() == 1 ? tasks.front() : json();
}

} // namespace

class TestControlReply : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (warren::test::warrenBinary().isEmpty())
            QSKIP("WARREN_CLI is not set: run through ctest");
    }

    void aFinishedTaskGoesOnWithTheReply_data() {
        QTest::addColumn<bool>("anthropic");
        QTest::newRow("openai-compatible") << false;
        QTest::newRow("anthropic") << true;
    }

    void aFinishedTaskGoesOnWithTheReply() {
        QFETCH(bool, anthropic);
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QString workspace = root.filePath("workspace");
        const QString dataDir = root.filePath("data");
        QVERIFY(QDir().mkpath(workspace));
        MockLlmServer server;
        QVERIFY(server.listen());
        const Provider provider = providerFor(anthropic, server);
        const QProcessEnvironment environment = environmentFor(dataDir, provider);

        enqueueCall(server, provider, "call_hello", "write_file", {{"path", "hello.txt"}, {"content", "hello\n"}});
        enqueueCall(server, provider, "call_done_1", "finish", {{"summary", "wrote hello.txt"}});
        const WarrenResult ran = warren::test::runWarren({"run", "--json", "--approve", "auto", "--provider",
                                                          provider.spec, "--model", "mock-1", "--workspace",
                                                          workspace, "make hello.txt"},
                                                         dataDir, environment);
        QVERIFY2(ran.exitCode == 0, qPrintable(describe(ran)));
        const QString id = QString::fromStdString(onlyTask(dataDir).value("id", ""));
        QVERIFY(!id.isEmpty());
        QCOMPARE(onlyTask(dataDir).value("status", ""), std::string("succeeded"));
        const auto lastSeq = warren::test::jsonLines(ran.out).back().value("seq", std::uint64_t{0});

        enqueueCall(server, provider, "call_bye", "write_file", {{"path", "bye.txt"}, {"content", "bye\n"}});
        enqueueCall(server, provider, "call_done_2", "finish", {{"summary", "wrote bye.txt too"}});
        const WarrenResult replied = warren::test::runWarren({"reply", id, kReply, "--json"}, dataDir, environment);
        QVERIFY2(replied.exitCode == 0, qPrintable(describe(replied)));

        // The same workspace: what the first run wrote is there, and what the reply asked for.
        QVERIFY(QFile::exists(workspace + "/hello.txt"));
        QFile bye(workspace + "/bye.txt");
        QVERIFY2(bye.open(QIODevice::ReadOnly), "the reply's write_file did not reach the workspace");
        QCOMPARE(bye.readAll(), QByteArray("bye\n"));

        // The continued run's events follow the first run's; the message is recorded once, before the
        // model is asked again, and the task ends as the model said.
        const auto events = warren::test::jsonLines(replied.out);
        QVERIFY(!events.empty());
        QCOMPARE(events.front().value("seq", std::uint64_t{0}), lastSeq + 1);
        const auto said = ofType(events, "user_message");
        QCOMPARE(said.size(), std::size_t{1});
        QCOMPARE(said.front()["data"].value("text", ""), std::string(kReply));
        QVERIFY(said.front().value("seq", 0u) < ofType(events, "step_started").front().value("seq", 0u));
        QCOMPARE(ofType(events, "task_resumed").size(), std::size_t{1});
        QCOMPARE(events.back().value("type", ""), std::string("task_finished"));
        QCOMPARE(events.back()["data"].value("summary", ""), std::string("wrote bye.txt too"));
        const json task = onlyTask(dataDir);
        QCOMPARE(task.value("status", ""), std::string("succeeded"));
        QCOMPARE(task.value("summary", ""), std::string("wrote bye.txt too"));
        const auto stored = warren::test::jsonLines(warren::test::runWarren({"show", id, "--json"}, dataDir).out);
        QCOMPARE(ofType(stored, "user_message").size(), std::size_t{1});
        QVERIFY(!QFile::exists(dataDir + "/tasks/" + id + "/reply")); // taken by the agent, not kept

        // The model got the whole conversation, the reply last: the first run's calls and their results,
        // then the user's message.
        QCOMPARE(int(server.requests().size()), 4);
        const json third = server.requests()[2].json();
        const json& messages = third["messages"];
        QVERIFY(messages.is_array() && !messages.empty());
        QCOMPARE(messages.back().value("role", ""), std::string("user"));
        QCOMPARE(contentText(messages.back()), std::string(kReply));
        const QByteArray body = server.requests()[2].body;
        QVERIFY(body.contains("call_hello") && body.contains("call_done_1") && body.contains("make hello.txt"));
        QVERIFY(messages.size() > server.requests()[1].json()["messages"].size());
    }

    void anAttendedTaskWaitsForTheUsersReply_data() {
        QTest::addColumn<bool>("anthropic");
        QTest::newRow("openai-compatible") << false;
        QTest::newRow("anthropic") << true;
    }

    void anAttendedTaskWaitsForTheUsersReply() {
        QFETCH(bool, anthropic);
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QString workspace = root.filePath("workspace");
        const QString dataDir = root.filePath("data");
        QVERIFY(QDir().mkpath(workspace));
        MockLlmServer server;
        QVERIFY(server.listen());
        const Provider provider = providerFor(anthropic, server);
        const QProcessEnvironment environment = environmentFor(dataDir, provider);
        const QString question = "I wrote hello.txt. Should bye.txt say bye or goodbye?";

        enqueueCall(server, provider, "call_hello", "write_file", {{"path", "hello.txt"}, {"content", "hello\n"}});
        enqueueText(server, provider, question);
        const WarrenResult ran = warren::test::runWarrenOnTerminal(
            {"run", "--approve", "auto", "--provider", provider.spec, "--model", "mock-1", "--workspace", workspace,
             "make hello.txt and bye.txt"},
            dataDir, environment);
        QVERIFY2(ran.exitCode == 0, qPrintable(describe(ran)));
        json task = onlyTask(dataDir);
        const QString id = QString::fromStdString(task.value("id", ""));
        QCOMPARE(task.value("status", ""), std::string("waiting"));
        QCOMPARE(task.value("summary", ""), question.toStdString());
        QVERIFY2(ran.out.contains("waits for your reply"), qPrintable(describe(ran)));
        QVERIFY2(ran.err.contains("warren reply " + id.toUtf8() + " \""), qPrintable(describe(ran)));
        QCOMPARE(int(server.requests().size()), 2); // not nudged
        QVERIFY(QFile::exists(dataDir + "/tasks/" + id + "/state/checkpoint.json"));
        const auto stored = warren::test::jsonLines(warren::test::runWarren({"show", id, "--json"}, dataDir).out);
        QVERIFY(ofType(stored, "guard").empty());
        QCOMPARE(ofType(stored, "task_finished").back()["data"].value("reason", ""), std::string("waiting"));
        // Nothing to resume: the turn is the user's.
        const WarrenResult resumed = warren::test::runWarren({"resume", id}, dataDir, environment);
        QCOMPARE(resumed.exitCode, 2);
        QVERIFY2(resumed.err.contains("waiting for your reply"), resumed.err.constData());

        enqueueCall(server, provider, "call_bye", "write_file", {{"path", "bye.txt"}, {"content", "goodbye\n"}});
        enqueueCall(server, provider, "call_done", "finish", {{"summary", "wrote both"}});
        const WarrenResult replied = warren::test::runWarren({"reply", id, "goodbye", "--json"}, dataDir, environment);
        QVERIFY2(replied.exitCode == 0, qPrintable(describe(replied)));
        task = onlyTask(dataDir);
        QCOMPARE(task.value("status", ""), std::string("succeeded"));
        QCOMPARE(task.value("summary", ""), std::string("wrote both"));
        QFile bye(workspace + "/bye.txt");
        QVERIFY(bye.open(QIODevice::ReadOnly));
        QCOMPARE(bye.readAll(), QByteArray("goodbye\n"));

        // The model was asked again with the whole conversation: its question, then the user's answer.
        QCOMPARE(int(server.requests().size()), 4);
        const json third = server.requests()[2].json();
        const json& messages = third["messages"];
        QVERIFY(messages.is_array() && messages.size() >= 2);
        QCOMPARE(messages.back().value("role", ""), std::string("user"));
        QCOMPARE(contentText(messages.back()), std::string("goodbye"));
        const json& asked = messages[messages.size() - 2];
        QCOMPARE(asked.value("role", ""), std::string("assistant"));
        QCOMPARE(contentText(asked), question.toStdString());
        QVERIFY(server.requests()[2].body.contains("call_hello"));
    }

    void anUnattendedTaskIsNudged() {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QString workspace = root.filePath("workspace");
        const QString dataDir = root.filePath("data");
        QVERIFY(QDir().mkpath(workspace));
        MockLlmServer server;
        QVERIFY(server.listen());
        const Provider provider = providerFor(false, server);
        enqueueText(server, provider, "Should I write hello.txt?");
        enqueueCall(server, provider, "call_done", "finish", {{"summary", "nothing to do"}});
        const WarrenResult ran = warren::test::runWarrenOnTerminal(
            {"run", "--json", "--provider", provider.spec, "--model", "mock-1", "--workspace", workspace, "look"},
            dataDir, environmentFor(dataDir, provider));
        QVERIFY2(ran.exitCode == 0, qPrintable(describe(ran)));
        QCOMPARE(onlyTask(dataDir).value("status", ""), std::string("succeeded"));
        QCOMPARE(int(server.requests().size()), 2);
        const auto guards = ofType(warren::test::jsonLines(ran.out), "guard");
        QCOMPARE(guards.size(), std::size_t{1});
        QCOMPARE(guards.front()["data"].value("guard", ""), std::string("max_nudges"));
    }

    void repliesThatCannotBeTakenAreRefused() {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QString workspace = root.filePath("workspace");
        const QString dataDir = root.filePath("data");
        QVERIFY(QDir().mkpath(workspace));
        MockLlmServer server;
        QVERIFY(server.listen());
        Provider provider = providerFor(false, server);
        provider.key.clear(); // no key: the launch fails before the agent runs a step
        const WarrenResult ran = warren::test::runWarren({"run", "--json", "--provider", provider.spec, "--model",
                                                          "mock-1", "--workspace", workspace, "make hello.txt"},
                                                         dataDir, environmentFor(dataDir, provider));
        QVERIFY2(ran.exitCode == 1, qPrintable(describe(ran)));
        const QString id = QString::fromStdString(onlyTask(dataDir).value("id", ""));
        QCOMPARE(onlyTask(dataDir).value("status", ""), std::string("failed"));

        const WarrenResult noCheckpoint = warren::test::runWarren({"reply", id, "go on"}, dataDir);
        QCOMPARE(noCheckpoint.exitCode, 2);
        QVERIFY2(noCheckpoint.err.contains("task " + id.toUtf8() + " cannot be continued: its agent left no "
                                                                   "checkpoint"),
                 noCheckpoint.err.constData());
        const WarrenResult empty = warren::test::runWarren({"reply", id, " "}, dataDir);
        QCOMPARE(empty.exitCode, 2);
        QVERIFY2(empty.err.contains("MESSAGE is missing"), empty.err.constData());
        const WarrenResult unknown = warren::test::runWarren({"reply", "t-000000000000", "go on"}, dataDir);
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("no task t-000000000000"), unknown.err.constData());
        QVERIFY(server.requests().empty());
        QCOMPARE(onlyTask(dataDir).value("status", ""), std::string("failed")); // as it was
        QVERIFY(!QFile::exists(dataDir + "/tasks/" + id + "/reply"));
    }
};

QTEST_GUILESS_MAIN(TestControlReply)
#include "tst_control_reply.moc"
