// `warren reply` end to end: a task that finished goes on with the user's message, through the real CLI, a
// sandboxed agent and an OpenAI-compatible or Anthropic server (MockLlmServer, in this process). The model is
// asked again with the whole conversation and the message last; the agent works in the same workspace;
// the timeline records the message once. Replies that cannot be taken are refused with what to do. A task
// run on a terminal (attended) whose model replies without a tool call ends waiting for the user, not
// nudged, and the reply continues it; run by a script (--json) it is nudged as before.
#include "tests/integration/ModelRunFixture.h"

#include <QFile>
#include <QtTest>

using nlohmann::json;
using warren::test::describe;
using warren::test::ModelRunFixture;
using warren::test::ofType;
using warren::test::WarrenResult;

namespace {

const char* kReply = "Also write bye.txt, please.";

// One model turn with one tool call, its arguments in two fragments, as the provider's API streams it.
void enqueueCall(ModelRunFixture& fixture, const QString& id, const QString& tool, const json& arguments) {
    const QString text = QString::fromStdString(arguments.dump());
    const QStringList fragments{text.left(7), text.mid(7)};
    fixture.enqueueStream(fixture.anthropic()
                              ? warren::test::anthropicToolUseStream("Next.", id, tool, fragments)
                              : warren::test::openAiToolCallStream(id, tool, fragments, "Next."));
}

// One model turn of text only: no tool call.
void enqueueText(ModelRunFixture& fixture, const QString& text) {
    const QStringList pieces{text.left(9), text.mid(9)};
    fixture.enqueueStream(fixture.anthropic() ? warren::test::anthropicTextStream(pieces)
                                              : warren::test::openAiTextStream(pieces));
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

} // namespace

class TestControlReply : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (warren::test::warrenBinary().isEmpty())
            QSKIP("WARREN_CLI is not set: run through ctest");
    }

    void aFinishedTaskGoesOnWithTheReply_data() { warren::test::addApiRows(); }

    void aFinishedTaskGoesOnWithTheReply() {
        QFETCH(bool, anthropic);
        ModelRunFixture fixture(anthropic);
        QVERIFY(fixture.ready());

        enqueueCall(fixture, "call_hello", "write_file", {{"path", "hello.txt"}, {"content", "hello\n"}});
        enqueueCall(fixture, "call_done_1", "finish", {{"summary", "wrote hello.txt"}});
        const WarrenResult ran = fixture.run("make hello.txt");
        QVERIFY2(ran.exitCode == 0, qPrintable(describe(ran)));
        const QString id = QString::fromStdString(fixture.onlyTask().value("id", ""));
        QVERIFY(!id.isEmpty());
        QCOMPARE(fixture.onlyTask().value("status", ""), std::string("succeeded"));
        const auto lastSeq = warren::test::jsonLines(ran.out).back().value("seq", std::uint64_t{0});

        enqueueCall(fixture, "call_bye", "write_file", {{"path", "bye.txt"}, {"content", "bye\n"}});
        enqueueCall(fixture, "call_done_2", "finish", {{"summary", "wrote bye.txt too"}});
        const WarrenResult replied = fixture.warren({"reply", id, kReply, "--json"});
        QVERIFY2(replied.exitCode == 0, qPrintable(describe(replied)));

        // The same workspace: what the first run wrote is there, and what the reply asked for.
        QVERIFY(QFile::exists(fixture.workspace() + "/hello.txt"));
        QFile bye(fixture.workspace() + "/bye.txt");
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
        const json task = fixture.onlyTask();
        QCOMPARE(task.value("status", ""), std::string("succeeded"));
        QCOMPARE(task.value("summary", ""), std::string("wrote bye.txt too"));
        const auto stored = fixture.storedEvents(id);
        QCOMPARE(ofType(stored, "user_message").size(), std::size_t{1});
        QVERIFY(
            !QFile::exists(fixture.dataDir() + "/tasks/" + id + "/reply")); // taken by the agent, not kept

        // The model got the whole conversation, the reply last: the first run's calls and their results,
        // then the user's message.
        QCOMPARE(int(fixture.server().requests().size()), 4);
        const json third = fixture.server().requests()[2].json();
        const json& messages = third["messages"];
        QVERIFY(messages.is_array() && !messages.empty());
        QCOMPARE(messages.back().value("role", ""), std::string("user"));
        QCOMPARE(contentText(messages.back()), std::string(kReply));
        const QByteArray body = fixture.server().requests()[2].body;
        QVERIFY(body.contains("call_hello") && body.contains("call_done_1") && body.contains("make hello.txt"));
        QVERIFY(messages.size() > fixture.server().requests()[1].json()["messages"].size());
    }

    void anAttendedTaskWaitsForTheUsersReply_data() { warren::test::addApiRows(); }

    void anAttendedTaskWaitsForTheUsersReply() {
        QFETCH(bool, anthropic);
        ModelRunFixture fixture(anthropic);
        QVERIFY(fixture.ready());
        const QString question = "I wrote hello.txt. Should bye.txt say bye or goodbye?";

        enqueueCall(fixture, "call_hello", "write_file", {{"path", "hello.txt"}, {"content", "hello\n"}});
        enqueueText(fixture, question);
        const WarrenResult ran = fixture.warrenOnTerminal(QStringList{"run", "--approve", "auto"} +
                                                          fixture.task("make hello.txt and bye.txt"));
        QVERIFY2(ran.exitCode == 0, qPrintable(describe(ran)));
        json task = fixture.onlyTask();
        const QString id = QString::fromStdString(task.value("id", ""));
        QCOMPARE(task.value("status", ""), std::string("waiting"));
        QCOMPARE(task.value("summary", ""), question.toStdString());
        QVERIFY2(ran.out.contains("waits for your reply"), qPrintable(describe(ran)));
        QVERIFY2(ran.err.contains("warren reply " + id.toUtf8() + " \""), qPrintable(describe(ran)));
        QCOMPARE(int(fixture.server().requests().size()), 2); // not nudged
        QVERIFY(QFile::exists(fixture.dataDir() + "/tasks/" + id + "/state/checkpoint.json"));
        const auto stored = fixture.storedEvents(id);
        QVERIFY(ofType(stored, "guard").empty());
        QCOMPARE(ofType(stored, "task_finished").back()["data"].value("reason", ""), std::string("waiting"));
        // Nothing to resume: the turn is the user's.
        const WarrenResult resumed = fixture.warren({"resume", id});
        QCOMPARE(resumed.exitCode, 2);
        QVERIFY2(resumed.err.contains("waiting for your reply"), resumed.err.constData());

        enqueueCall(fixture, "call_bye", "write_file", {{"path", "bye.txt"}, {"content", "goodbye\n"}});
        enqueueCall(fixture, "call_done", "finish", {{"summary", "wrote both"}});
        const WarrenResult replied = fixture.warren({"reply", id, "goodbye", "--json"});
        QVERIFY2(replied.exitCode == 0, qPrintable(describe(replied)));
        task = fixture.onlyTask();
        QCOMPARE(task.value("status", ""), std::string("succeeded"));
        QCOMPARE(task.value("summary", ""), std::string("wrote both"));
        QFile bye(fixture.workspace() + "/bye.txt");
        QVERIFY(bye.open(QIODevice::ReadOnly));
        QCOMPARE(bye.readAll(), QByteArray("goodbye\n"));

        // The model was asked again with the whole conversation: its question, then the user's answer.
        QCOMPARE(int(fixture.server().requests().size()), 4);
        const json third = fixture.server().requests()[2].json();
        const json& messages = third["messages"];
        QVERIFY(messages.is_array() && messages.size() >= 2);
        QCOMPARE(messages.back().value("role", ""), std::string("user"));
        QCOMPARE(contentText(messages.back()), std::string("goodbye"));
        const json& asked = messages[messages.size() - 2];
        QCOMPARE(asked.value("role", ""), std::string("assistant"));
        QCOMPARE(contentText(asked), question.toStdString());
        QVERIFY(fixture.server().requests()[2].body.contains("call_hello"));
    }

    void anUnattendedTaskIsNudged() {
        ModelRunFixture fixture(false);
        QVERIFY(fixture.ready());
        enqueueText(fixture, "Should I write hello.txt?");
        enqueueCall(fixture, "call_done", "finish", {{"summary", "nothing to do"}});
        const WarrenResult ran =
            fixture.warrenOnTerminal(QStringList{"run", "--json"} + fixture.task("look"));
        QVERIFY2(ran.exitCode == 0, qPrintable(describe(ran)));
        QCOMPARE(fixture.onlyTask().value("status", ""), std::string("succeeded"));
        QCOMPARE(int(fixture.server().requests().size()), 2);
        const auto guards = ofType(warren::test::jsonLines(ran.out), "guard");
        QCOMPARE(guards.size(), std::size_t{1});
        QCOMPARE(guards.front()["data"].value("guard", ""), std::string("max_nudges"));
    }

    void repliesThatCannotBeTakenAreRefused() {
        ModelRunFixture fixture(false);
        QVERIFY(fixture.ready());
        fixture.dropKey(); // no key: the launch fails before the agent runs a step
        const WarrenResult ran =
            fixture.warren(QStringList{"run", "--json"} + fixture.task("make hello.txt"));
        QVERIFY2(ran.exitCode == 1, qPrintable(describe(ran)));
        const QString id = QString::fromStdString(fixture.onlyTask().value("id", ""));
        QCOMPARE(fixture.onlyTask().value("status", ""), std::string("failed"));

        const WarrenResult noCheckpoint = fixture.warren({"reply", id, "go on"});
        QCOMPARE(noCheckpoint.exitCode, 2);
        QVERIFY2(noCheckpoint.err.contains("task " + id.toUtf8() + " cannot be continued: its agent left no "
                                                                   "checkpoint"),
                 noCheckpoint.err.constData());
        const WarrenResult empty = fixture.warren({"reply", id, " "});
        QCOMPARE(empty.exitCode, 2);
        QVERIFY2(empty.err.contains("MESSAGE is missing"), empty.err.constData());
        const WarrenResult unknown = fixture.warren({"reply", "t-000000000000", "go on"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("no task t-000000000000"), unknown.err.constData());
        QVERIFY(fixture.server().requests().empty());
        QCOMPARE(fixture.onlyTask().value("status", ""), std::string("failed")); // as it was
        QVERIFY(!QFile::exists(fixture.dataDir() + "/tasks/" + id + "/reply"));
    }
};

QTEST_GUILESS_MAIN(TestControlReply)
#include "tst_control_reply.moc"
