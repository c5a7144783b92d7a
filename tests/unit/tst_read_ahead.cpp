// The loop with a reply of several read-only calls: they run at the same time (ConcurrentCalls) and are
// answered as if they had run one after another. Each call's tool_call, its output and its tool_result
// come before the next call's, the model reads the results one per call in the order of the calls, a call
// with effects between reads keeps its place (a read after a write sees the write), a stop mid-run leaves
// the calls not yet answered for the resumed run, and a crash mid-run is resumed with every call answered.
// A real agent on a real workspace, with a listed model.

#include "agent_core/loop/Agent.h"
#include "tests/support/AgentLoopDoubles.h"
#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <deque>
#include <filesystem>
#include <functional>

using namespace warren;
using namespace warren::agent;
namespace et = warren::protocol::event_type;
using nlohmann::json;

using test::ListedLlm;

namespace {

class CollectingSink : public test::CollectingSink {
public:
    // "tool_call c1", "tool_result c1", ... for the events of the calls, in order.
    std::vector<std::string> callEvents() const {
        std::vector<std::string> out;
        for (const auto& event : events)
            if (event.type == et::kToolCall || event.type == et::kToolResult || event.type == et::kToolOutput)
                out.push_back(event.type + " " + event.data.value("id", std::string()));
        return out;
    }
    const protocol::Event* first(std::string_view type) const {
        for (const auto& event : events)
            if (event.type == type)
                return &event;
        return nullptr;
    }
};


protocol::LlmChatResult callingAll(std::vector<protocol::ToolCall> calls) {
    protocol::LlmChatResult reply;
    reply.toolCalls = std::move(calls);
    reply.finishReason = "tool_calls";
    reply.tokenUsage = {100, 20, 0};
    return reply;
}

protocol::LlmChatResult finishing() {
    return callingAll({{"fin", "finish", {{"summary", "done"}}}});
}

protocol::ToolCall reading(const std::string& id, const std::string& path) {
    return {id, "read_file", {{"path", path}}};
}

const json kTools = {"read_file", "list_files", "search", "write_file", "shell"};

struct Run {
    std::unique_ptr<Agent> agent; // owns the model
    ListedLlm* model = nullptr;
    TaskOutcome outcome;
    CollectingSink sink;
    Cancellation cancellation;

    // The tool messages of the conversation the model was last asked with: "id: content".
    std::vector<std::string> answers() const {
        std::vector<std::string> out;
        for (const auto& message : model->asked.back().messages)
            if (message.role == "tool")
                out.push_back(message.toolCallId.value_or("?") + ": " + message.content);
        return out;
    }
    std::string answerOf(const std::string& id) const {
        for (const auto& message : model->asked.back().messages)
            if (message.role == "tool" && message.toolCallId == id)
                return message.content;
        return "(no answer for " + id + ")";
    }
};

void runIn(Run& run, const QTemporaryDir& workspace, std::optional<std::filesystem::path> state,
           std::deque<protocol::LlmChatResult> replies, json overrides = json::object()) {
    overrides["tools"] = kTools;
    auto agent = createAgent({"local-light"}, overrides);
    QVERIFY2(agent, agent ? "" : agent.error().message.c_str());
    auto llm = std::make_unique<ListedLlm>();
    llm->replies = std::move(replies);
    run.model = llm.get();
    (*agent)->setModel(std::move(llm));
    run.agent = std::move(agent).value();
    EventLog events(run.sink);
    run.outcome = run.agent->run({workspace.path().toStdString(), std::move(state), std::nullopt}, "t",
                                 "look around", events, run.cancellation);
}

void writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content) {
    QFile file(dir.filePath(name));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

class TestReadAhead : public QObject {
    Q_OBJECT

private slots:
    void readsComeBackInCallOrder() {
        QTemporaryDir workspace;
        for (int i = 1; i <= 6; ++i)
            writeFile(workspace, QString("f%1.txt").arg(i),
                      QByteArray("content of file ") + QByteArray::number(i));
        std::vector<protocol::ToolCall> calls;
        for (int i = 1; i <= 6; ++i)
            calls.push_back(reading("r" + std::to_string(i), "f" + std::to_string(i) + ".txt"));
        calls.push_back({"ls", "list_files", json::object()});
        calls.push_back({"grep", "search", {{"pattern", "file 3"}}});
        calls.push_back(reading("missing", "nowhere.txt"));
        Run run;
        runIn(run, workspace, std::nullopt, {callingAll(calls), finishing()});
        QCOMPARE(toString(run.outcome.reason), std::string_view("finished"));

        // One answer per call, in the order of the calls, each its own call's.
        const auto answers = run.answers();
        QCOMPARE(answers.size(), calls.size());
        for (std::size_t i = 0; i < calls.size(); ++i)
            QVERIFY2(answers[i].starts_with(calls[i].id + ": "), answers[i].c_str());
        for (int i = 1; i <= 6; ++i)
            QVERIFY2(contains(run.answerOf("r" + std::to_string(i)), "content of file " + std::to_string(i)),
                     run.answerOf("r" + std::to_string(i)).c_str());
        QVERIFY(contains(run.answerOf("ls"), "f6.txt"));
        QVERIFY(contains(run.answerOf("grep"), "f3.txt:1: content of file 3"));
        // A failing read is its own error and touches none of the others.
        QVERIFY(contains(run.answerOf("missing"), "no such file: nowhere.txt"));

        // The timeline reads as if the calls ran one after another.
        std::vector<std::string> expected;
        for (const auto& call : calls) {
            expected.push_back("tool_call " + call.id);
            expected.push_back("tool_result " + call.id);
        }
        expected.push_back("tool_call fin");
        expected.push_back("tool_result fin");
        QCOMPARE(run.sink.callEvents(), expected);
    }

    void repeatedIdsAreAnsweredInTurn() {
        // Local models reuse ids ("call_0" for every call): each call still gets its own result, in order.
        QTemporaryDir workspace;
        for (const char* name : {"a", "b", "c", "d"})
            writeFile(workspace, QString(name) + ".txt", QByteArray("file ") + name);
        const std::vector<protocol::ToolCall> calls = {reading("call_0", "a.txt"), reading("call_0", "b.txt"),
                                                       reading("call_1", "c.txt"),
                                                       reading("call_0", "d.txt")};
        Run run;
        runIn(run, workspace, std::nullopt, {callingAll(calls), finishing()});
        QCOMPARE(toString(run.outcome.reason), std::string_view("finished"));
        std::vector<std::string> files;
        for (const auto& answer : run.answers())
            files.push_back(answer.substr(0, answer.find(':')) + " " +
                            answer.substr(answer.find("file "), 6));
        QCOMPARE(files, (std::vector<std::string>{"call_0 file a", "call_0 file b", "call_1 file c",
                                                  "call_0 file d"}));
    }

    void aCallWithEffectsKeepsItsPlace() {
        QTemporaryDir workspace;
        writeFile(workspace, "a.txt", "old a\n");
        writeFile(workspace, "b.txt", "old b\n");
        const std::vector<protocol::ToolCall> calls = {
            reading("a1", "a.txt"),
            reading("b1", "b.txt"),
            {"w", "write_file", {{"path", "a.txt"}, {"content", "new a\n"}}},
            reading("a2", "a.txt"),
            reading("b2", "b.txt"),
            {"sh", "shell", {{"command", "echo shell b > b.txt; echo ran"}}},
            reading("b3", "b.txt"),
            reading("a3", "a.txt"),
        };
        Run run;
        runIn(run, workspace, std::nullopt, {callingAll(calls), finishing()});
        QCOMPARE(toString(run.outcome.reason), std::string_view("finished"));
        QVERIFY(contains(run.answerOf("a1"), "old a"));
        QVERIFY(contains(run.answerOf("b1"), "old b"));
        QVERIFY(contains(run.answerOf("a2"), "new a"));
        QVERIFY(contains(run.answerOf("b2"), "old b"));
        QVERIFY(contains(run.answerOf("b3"), "shell b"));
        QVERIFY(contains(run.answerOf("a3"), "new a"));
        std::vector<std::string> expected;
        for (const auto& call : calls) {
            expected.push_back("tool_call " + call.id);
            if (call.id == "sh")
                expected.push_back("tool_output sh"); // the shell's live output, between its call and result
            expected.push_back("tool_result " + call.id);
        }
        expected.push_back("tool_call fin");
        expected.push_back("tool_result fin");
        QCOMPARE(run.sink.callEvents(), expected);
    }

    void aStopMidRunLeavesTheRestForTheResumedRun() {
        QTemporaryDir workspace, state;
        for (int i = 1; i <= 3; ++i)
            writeFile(workspace, QString("f%1.txt").arg(i),
                      QByteArray("content of file ") + QByteArray::number(i));
        const std::vector<protocol::ToolCall> calls = {reading("r1", "f1.txt"), reading("r2", "f2.txt"),
                                                       reading("r3", "f3.txt")};
        Run paused;
        paused.sink.onEvent = [&](const protocol::Event& event) {
            if (event.type == et::kToolResult && event.data.value("id", "") == "r1")
                paused.cancellation.request(StopRequest::Pause);
        };
        runIn(paused, workspace, state.path().toStdString(), {callingAll(calls)});
        QCOMPARE(toString(paused.outcome.reason), std::string_view("paused"));
        // r1 was answered; r2 and r3 may have run ahead, but nothing of them was told or recorded.
        QCOMPARE(paused.sink.callEvents(), (std::vector<std::string>{"tool_call r1", "tool_result r1"}));

        Run resumed;
        runIn(resumed, workspace, state.path().toStdString(), {finishing()});
        QCOMPARE(toString(resumed.outcome.reason), std::string_view("finished"));
        QCOMPARE(resumed.sink.callEvents(),
                 (std::vector<std::string>{"tool_call r2", "tool_result r2", "tool_call r3", "tool_result r3",
                                           "tool_call fin", "tool_result fin"}));
        const auto answers = resumed.answers();
        QCOMPARE(answers.size(), std::size_t{3});
        QVERIFY(answers[0].starts_with("r1: ") && contains(answers[0], "content of file 1"));
        QVERIFY(answers[1].starts_with("r2: ") && contains(answers[1], "content of file 2"));
        QVERIFY(answers[2].starts_with("r3: ") && contains(answers[2], "content of file 3"));
    }

    void aCancelMidRunEndsWithNothingRunning() {
        // run() returns only once the calls run ahead have ended: none outlives the task.
        QTemporaryDir workspace;
        std::vector<protocol::ToolCall> calls;
        for (int i = 1; i <= 6; ++i) {
            writeFile(workspace, QString("f%1.txt").arg(i), "some content\n");
            calls.push_back({"s" + std::to_string(i), "search", {{"pattern", "content"}}});
        }
        Run cancelled;
        cancelled.sink.onEvent = [&](const protocol::Event& event) {
            if (event.type == et::kToolResult && event.data.value("id", "") == "s2")
                cancelled.cancellation.request(StopRequest::Cancel);
        };
        runIn(cancelled, workspace, std::nullopt, {callingAll(calls), finishing()});
        QCOMPARE(toString(cancelled.outcome.reason), std::string_view("cancelled"));
        QCOMPARE(cancelled.sink.callEvents(), (std::vector<std::string>{"tool_call s1", "tool_result s1",
                                                                        "tool_call s2", "tool_result s2"}));
    }

    void aCrashMidRunIsResumedWithEveryCallAnswered() {
        // The state as a kill would leave it while r1's result is being recorded and r2, r3 run ahead: the
        // checkpoint written before r1 ran, copied at that moment.
        QTemporaryDir workspace, state, crashed;
        for (int i = 1; i <= 3; ++i)
            writeFile(workspace, QString("f%1.txt").arg(i),
                      QByteArray("content of file ") + QByteArray::number(i));
        const std::vector<protocol::ToolCall> calls = {reading("r1", "f1.txt"), reading("r2", "f2.txt"),
                                                       reading("r3", "f3.txt")};
        Run first;
        first.sink.onEvent = [&](const protocol::Event& event) {
            if (event.type == et::kToolResult && event.data.value("id", "") == "r1")
                std::filesystem::copy(state.path().toStdString(), crashed.path().toStdString(),
                                      std::filesystem::copy_options::recursive |
                                          std::filesystem::copy_options::overwrite_existing);
        };
        runIn(first, workspace, state.path().toStdString(), {callingAll(calls), finishing()});
        QCOMPARE(toString(first.outcome.reason), std::string_view("finished"));

        Run resumed;
        runIn(resumed, workspace, crashed.path().toStdString(), {finishing()});
        QCOMPARE(toString(resumed.outcome.reason), std::string_view("finished"));
        const auto* resumedEvent = resumed.sink.first(et::kTaskResumed);
        QVERIFY(resumedEvent);
        QCOMPARE(resumedEvent->data.value("interrupted_tool_call", json()), json("r1"));
        // r1, the call the checkpoint names, is answered interrupted; r2 and r3 are read-only and not yet
        // answered, so they run again.
        QCOMPARE(resumed.sink.callEvents(),
                 (std::vector<std::string>{"tool_result r1", "tool_call r2", "tool_result r2", "tool_call r3",
                                           "tool_result r3", "tool_call fin", "tool_result fin"}));
        const auto answers = resumed.answers();
        QCOMPARE(answers.size(), std::size_t{3});
        QVERIFY2(answers[0].starts_with("r1: ") && contains(answers[0], "interrupted"), answers[0].c_str());
        QVERIFY(answers[1].starts_with("r2: ") && contains(answers[1], "content of file 2"));
        QVERIFY(answers[2].starts_with("r3: ") && contains(answers[2], "content of file 3"));
    }
};

QTEST_GUILESS_MAIN(TestReadAhead)
#include "tst_read_ahead.moc"
