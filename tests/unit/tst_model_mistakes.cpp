// What the loop does with a model that gets things wrong, as local models often do, and with what it is
// told: a bad call (arguments not JSON, no such tool, a missing or mistyped argument) is answered with what
// was wrong and the task goes on, until max_bad_calls in a row stop it; a reply without a tool call is
// nudged max_nudges times before it ends the task, unless a user follows the run (attended), when it ends
// the run waiting for their reply; tool output is cut to its token budget with a hint;
// the system prompt carries the facts of the run and the project's instructions follow it.

#include "agent_core/loop/Agent.h"
#include "tests/support/AgentLoopDoubles.h"
#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <deque>

using namespace warren;
using namespace warren::agent;
namespace et = warren::protocol::event_type;
using nlohmann::json;

Q_DECLARE_METATYPE(json)

using test::CollectingSink;
using test::ListedLlm;

namespace {



protocol::LlmChatResult calling(const std::string& id, const std::string& tool, json arguments) {
    protocol::LlmChatResult reply;
    reply.toolCalls = {{id, tool, std::move(arguments)}};
    reply.finishReason = "tool_calls";
    reply.tokenUsage = {100, 20, 0};
    return reply;
}

protocol::LlmChatResult withBadJson(const std::string& id, const std::string& tool, const std::string& text) {
    auto reply = calling(id, tool, json::object());
    reply.toolCalls[0].invalidArguments = text;
    return reply;
}

protocol::LlmChatResult saying(const std::string& text) {
    protocol::LlmChatResult reply;
    reply.content = text;
    reply.finishReason = "stop";
    reply.tokenUsage = {100, 10, 0};
    return reply;
}

protocol::LlmChatResult finishing(const std::string& summary) {
    return calling("fin", "finish", {{"summary", summary}});
}

struct Ran {
    std::unique_ptr<Agent> agent;
    ListedLlm* model = nullptr;
    TaskOutcome outcome;
    CollectingSink sink;

    // The tool message that answers call id.
    std::string resultOf(const std::string& id) const {
        const auto& history = model->asked.back().messages;
        for (const auto& message : history)
            if (message.role == "tool" && message.toolCallId == id)
                return message.content;
        return "(no result for " + id + ")";
    }
};

// state: the state directory (checkpoints), none by default; reply: the user's, to a task that ended.
std::unique_ptr<Ran> runWith(const json& overrides, const QTemporaryDir& workspace,
                             std::deque<protocol::LlmChatResult> replies, RunFacts facts = {},
                             const QTemporaryDir* state = nullptr,
                             const std::optional<std::string>& reply = std::nullopt) {
    auto agent = createAgent({"local-light"}, overrides);
    if (!agent)
        return nullptr;
    auto ran = std::make_unique<Ran>();
    auto llm = std::make_unique<ListedLlm>();
    llm->replies = std::move(replies);
    ran->model = llm.get();
    (*agent)->setModel(std::move(llm));
    (*agent)->setRunFacts(std::move(facts));
    ran->agent = std::move(agent).value();
    EventLog events(ran->sink);
    Cancellation cancellation;
    std::optional<std::filesystem::path> stateDir;
    if (state)
        stateDir = state->path().toStdString();
    ran->outcome = ran->agent->run({workspace.path().toStdString(), stateDir, std::nullopt}, "t", "do the task",
                                   events, cancellation, reply);
    return ran;
}

} // namespace

class TestModelMistakes : public QObject {
    Q_OBJECT

private slots:
    void aBadCallGoesBackToTheModel_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<json>("arguments");
        QTest::addColumn<QString>("invalid"); // "-": none
        QTest::addColumn<QString>("told");
        QTest::newRow("arguments that are not JSON")
            << "write_file" << json::object() << "{\"path\": \"a.txt\", \"content\": \"x"
            << "Not run: write_file: the arguments are not a JSON object: {\"path\": \"a.txt\", \"content\": \"x";
        QTest::newRow("no such tool") << "read" << json{{"path", "a.txt"}} << "-"
                                      << R"(Not run: there is no tool "read"; did you mean read_file?)";
        QTest::newRow("a tool this task does not have")
            << "search" << json{{"pattern", "x"}} << "-" << R"(there is no tool "search")";
        QTest::newRow("missing argument") << "write_file" << json{{"path", "a.txt"}} << "-"
                                          << R"(Not run: write_file: missing required argument "content")";
        QTest::newRow("mistyped argument") << "read_file" << json{{"path", "a.txt"}, {"limit", "5"}} << "-"
                                           << R"(read_file: argument "limit" must be an integer)";
        QTest::newRow("unknown argument") << "shell" << json{{"cmd", "ls"}} << "-"
                                          << R"(shell: missing required argument "command")";
        QTest::newRow("finish without its summary") << "finish" << json::object() << "-"
                                                    << R"(finish: missing required argument "summary")";
    }
    void aBadCallGoesBackToTheModel() {
        QFETCH(QString, tool);
        QFETCH(json, arguments);
        QFETCH(QString, invalid);
        QFETCH(QString, told);
        QTemporaryDir workspace;
        auto bad = calling("bad", tool.toStdString(), arguments);
        if (invalid != "-")
            bad.toolCalls[0].invalidArguments = invalid.toStdString();
        auto ran = runWith(json::object(), workspace,
                           {bad, calling("good", "write_file", {{"path", "a.txt"}, {"content", "ok\n"}}), finishing("done")});
        QVERIFY(ran);
        QCOMPARE(toString(ran->outcome.reason), std::string_view("finished"));
        QCOMPARE(ran->outcome.summary, std::string("done"));
        const std::string result = ran->resultOf("bad");
        QVERIFY2(result.find(told.toStdString()) != std::string::npos, result.c_str());
        QVERIFY(QFile::exists(workspace.filePath("a.txt")));
        // The timeline shows the call and its refusal.
        const auto results = ran->sink.ofType(et::kToolResult);
        QVERIFY(!results.empty());
        const auto first = protocol::ToolResultData::fromJson(results.front().data).value();
        QCOMPARE(first.id, std::string("bad"));
        QCOMPARE(first.exitCode.value_or(-1), std::int64_t{1});
    }

    void aRunOfBadCallsStopsTheTask() {
        QTemporaryDir workspace;
        auto ran = runWith({{"max_bad_calls", 3}}, workspace,
                           {withBadJson("b1", "shell", "{"), calling("b2", "shel", {{"command", "ls"}}),
                            withBadJson("b3", "shell", "{\"command\": ls}"), finishing("never reached")});
        QVERIFY(ran);
        QCOMPARE(toString(ran->outcome.reason), std::string_view("guard"));
        QVERIFY2(ran->outcome.summary.find("3 tool calls in a row the model got wrong (max_bad_calls)") !=
                     std::string::npos,
                 ran->outcome.summary.c_str());
        QVERIFY2(ran->outcome.summary.find("the arguments are not a JSON object: {\"command\": ls}") != std::string::npos,
                 ran->outcome.summary.c_str());
        const auto guards = ran->sink.ofType(et::kGuard);
        QCOMPARE(guards.size(), std::size_t{1});
        QCOMPARE(protocol::GuardData::fromJson(guards[0].data).value().guard, std::string("max_bad_calls"));
        QCOMPARE(ran->model->asked.size(), std::size_t{3});
    }

    void aGoodCallStartsTheCountAgain() {
        QTemporaryDir workspace;
        auto ran = runWith({{"max_bad_calls", 2}}, workspace,
                           {withBadJson("b1", "shell", "{"), calling("g1", "list_files", json::object()),
                            withBadJson("b2", "shell", "{"), calling("g2", "list_files", json::object()),
                            finishing("done")});
        QVERIFY(ran);
        QCOMPARE(toString(ran->outcome.reason), std::string_view("finished"));
    }

    void aReplyWithoutACallIsNudged_data() {
        QTest::addColumn<int>("maxNudges");
        QTest::addColumn<int>("textReplies"); // before the finish call
        QTest::addColumn<QString>("summary");
        QTest::addColumn<int>("nudges");
        QTest::newRow("nudged, then finishes") << 2 << 1 << "done" << 1;
        QTest::newRow("nudged twice, then finishes") << 2 << 2 << "done" << 2;
        QTest::newRow("past the nudges the reply ends the task") << 2 << 3 << "reply 3" << 2;
        QTest::newRow("no nudges: the reply is the last word") << 0 << 1 << "reply 1" << 0;
    }
    void aReplyWithoutACallIsNudged() {
        QFETCH(int, maxNudges);
        QFETCH(int, textReplies);
        QFETCH(QString, summary);
        QFETCH(int, nudges);
        QTemporaryDir workspace;
        std::deque<protocol::LlmChatResult> replies;
        for (int i = 1; i <= textReplies; ++i)
            replies.push_back(saying("reply " + std::to_string(i)));
        replies.push_back(finishing("done"));
        auto ran = runWith({{"max_nudges", maxNudges}}, workspace, replies);
        QVERIFY(ran);
        QCOMPARE(toString(ran->outcome.reason), std::string_view("finished"));
        QCOMPARE(QString::fromStdString(ran->outcome.summary), summary);
        const auto guards = ran->sink.ofType(et::kGuard);
        QCOMPARE(int(guards.size()), nudges);
        for (const auto& guard : guards) {
            const auto data = protocol::GuardData::fromJson(guard.data).value();
            QCOMPARE(data.guard, std::string("max_nudges"));
            QCOMPARE(std::string(toString(data.action)), std::string("warn"));
        }
        if (nudges) {
            // The model was told, after its reply, to go on or finish.
            const auto& history = ran->model->asked[1].messages;
            QCOMPARE(history.back().role, std::string("user"));
            QVERIFY(history.back().content.find("call finish") != std::string::npos);
            QCOMPARE(history[history.size() - 2].content, std::string("reply 1"));
        }
    }

    void anAttendedReplyWaitsForTheUser() {
        QTemporaryDir workspace;
        QTemporaryDir state;
        RunFacts attended;
        attended.attended = true;
        auto ran = runWith({{"max_nudges", 2}}, workspace,
                           {calling("l1", "list_files", json::object()), saying("Which file should I fix?")},
                           attended, &state);
        QVERIFY(ran);
        QCOMPARE(toString(ran->outcome.reason), std::string_view("waiting"));
        QCOMPARE(ran->outcome.summary, std::string("Which file should I fix?"));
        QVERIFY(ran->sink.ofType(et::kGuard).empty()); // not nudged
        QCOMPARE(ran->model->asked.size(), std::size_t{2});
        const auto finished = ran->sink.ofType(et::kTaskFinished);
        QCOMPARE(finished.size(), std::size_t{1});
        const auto data = protocol::TaskFinishedData::fromJson(finished[0].data).value();
        QCOMPARE(std::string(toString(data.reason)), std::string("waiting"));
        QCOMPARE(data.summary, std::string("Which file should I fix?"));
        QVERIFY(QFile::exists(state.filePath("checkpoint.json")));
        // The model was told it may ask.
        QVERIFY(ran->model->asked[0].messages[0].content.find("the developer follows this run") != std::string::npos);

        // A plain resume has nothing to do; the user's reply continues the whole conversation.
        auto resumed = runWith({{"max_nudges", 2}}, workspace, {finishing("fixed a.txt")}, attended, &state);
        QVERIFY(resumed);
        QCOMPARE(toString(resumed->outcome.reason), std::string_view("failed"));
        QVERIFY2(resumed->outcome.summary.find("reply to it") != std::string::npos, resumed->outcome.summary.c_str());
        auto replied = runWith({{"max_nudges", 2}}, workspace, {finishing("fixed a.txt")}, attended, &state,
                               std::string("a.txt"));
        QVERIFY(replied);
        QCOMPARE(toString(replied->outcome.reason), std::string_view("finished"));
        QCOMPARE(replied->outcome.summary, std::string("fixed a.txt"));
        const auto& history = replied->model->asked[0].messages;
        QCOMPARE(history.back().role, std::string("user"));
        QCOMPARE(history.back().content, std::string("a.txt"));
        QCOMPARE(history[history.size() - 2].role, std::string("assistant"));
        QCOMPARE(history[history.size() - 2].content, std::string("Which file should I fix?"));
        QVERIFY(std::any_of(history.begin(), history.end(),
                            [](const auto& message) { return message.toolCallId == std::optional<std::string>("l1"); }));
    }

    void anUnattendedOrEmptyReplyIsNudged_data() {
        QTest::addColumn<bool>("attended");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("told");
        QTest::newRow("unattended") << false << "I think it is done." << "This run is unattended";
        QTest::newRow("attended, empty") << true << " \n" << "Your reply was empty";
    }
    void anUnattendedOrEmptyReplyIsNudged() {
        QFETCH(bool, attended);
        QFETCH(QString, text);
        QFETCH(QString, told);
        QTemporaryDir workspace;
        RunFacts facts;
        facts.attended = attended;
        auto ran = runWith({{"max_nudges", 2}}, workspace, {saying(text.toStdString()), finishing("done")}, facts);
        QVERIFY(ran);
        QCOMPARE(toString(ran->outcome.reason), std::string_view("finished"));
        QCOMPARE(ran->sink.ofType(et::kGuard).size(), std::size_t{1});
        const auto& history = ran->model->asked[1].messages;
        QVERIFY(history.back().content.find(told.toStdString()) != std::string::npos);
        // Only an attended run tells the model that someone answers.
        QCOMPARE(history[0].content.find("the developer follows this run") != std::string::npos, attended);
    }

    void toolOutputIsCutToItsBudget() {
        QTemporaryDir workspace;
        auto ran = runWith({{"tool_output_limit_tokens", 100}}, workspace,
                           {calling("s", "shell", {{"command", "seq 1 5000"}}), finishing("done")});
        QVERIFY(ran);
        const std::string result = ran->resultOf("s");
        QVERIFY2(result.starts_with("1\n2\n3\n"), result.c_str());
        QVERIFY2(result.find("4999\n5000") != std::string::npos, result.c_str());
        QVERIFY2(result.find("tokens) cut. To see what was cut, narrow the command: pipe it through head, tail or grep") !=
                     std::string::npos,
                 result.c_str());
        QVERIFY(result.size() < 100 * 4 + 300);
        // The events keep the whole output.
        std::string streamed;
        for (const auto& event : ran->sink.ofType(et::kToolOutput))
            streamed += protocol::ToolOutputData::fromJson(event.data).value().text;
        QVERIFY(streamed.find("\n2500\n") != std::string::npos);
        const auto results = ran->sink.ofType(et::kToolResult);
        QVERIFY(protocol::ToolResultData::fromJson(results.front().data).value().truncated);
    }

    void thePromptCarriesTheRunAndTheProjectsInstructions() {
        QTemporaryDir workspace;
        {
            QFile agents(workspace.filePath("AGENTS.md"));
            QVERIFY(agents.open(QIODevice::WriteOnly));
            agents.write("Run the tests with ./check.sh\n");
        }
        auto ran = runWith({{"max_steps", 9}}, workspace, {finishing("done")},
                           RunFacts{"bwrap", "allow:pypi.org", "anthropic", "claude-sonnet-4-5"});
        QVERIFY(ran);
        const auto& messages = ran->model->asked[0].messages;
        QCOMPARE(messages.size(), std::size_t{3});
        QCOMPARE(messages[0].role, std::string("system"));
        for (const char* fact : {"bubblewrap", "only these hosts", "pypi.org", "at most 9 steps",
                                 "Tools: shell, read_file, write_file, edit_file, list_files, finish.",
                                 "call them together in one reply"})
            QVERIFY2(messages[0].content.find(fact) != std::string::npos, fact);
        QCOMPARE(messages[1].role, std::string("user"));
        QVERIFY(messages[1].content.find("## AGENTS.md\n\nRun the tests with ./check.sh") != std::string::npos);
        QCOMPARE(messages[2].content, std::string("do the task"));
        const auto shown = ran->sink.ofType(et::kProjectInstructions);
        QCOMPARE(shown.size(), std::size_t{1});
        const auto data = protocol::ProjectInstructionsData::fromJson(shown[0].data).value();
        QCOMPARE(data.path, std::string("AGENTS.md"));
        QCOMPARE(data.text, std::string("Run the tests with ./check.sh\n"));
        QCOMPARE(data.bytes, std::uint64_t{30});
    }

    void withoutInstructionsTheTaskFollowsTheSystemPrompt() {
        QTemporaryDir workspace;
        auto ran = runWith(json::object(), workspace, {finishing("done")});
        QVERIFY(ran);
        const auto& messages = ran->model->asked[0].messages;
        QCOMPARE(messages.size(), std::size_t{2});
        QCOMPARE(messages[1].content, std::string("do the task"));
        QVERIFY(ran->sink.ofType(et::kProjectInstructions).empty());
    }
};

QTEST_GUILESS_MAIN(TestModelMistakes)
#include "tst_model_mistakes.moc"
