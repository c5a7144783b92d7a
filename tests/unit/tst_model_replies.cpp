// What the loop does with the model's reply beyond its tool calls: the output limit and reasoning settings
// reach every llm.chat, a reply cut by the output limit is never run (asked again with room, then the
// model told, then the task stopped), and a reply's thinking blocks stay in the history to go back with
// the tool results.

#include "agent_core/context/CutReply.h"
#include "agent_core/loop/Agent.h"
#include "tests/support/AgentLoopDoubles.h"
#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"

#include <QTemporaryDir>
#include <QtTest>

#include <deque>

using namespace warren;
using namespace warren::agent;
namespace et = warren::protocol::event_type;
using nlohmann::json;

Q_DECLARE_METATYPE(json)

using test::ListedLlm;

namespace {

class CollectingSink : public test::CollectingSink {
public:
    std::vector<protocol::GuardData> guards() const {
        std::vector<protocol::GuardData> out;
        for (const auto& event : ofType(et::kGuard))
            out.push_back(protocol::GuardData::fromJson(event.data).value());
        return out;
    }
};


protocol::LlmChatResult cutReply(std::uint64_t outputTokens) {
    protocol::LlmChatResult reply;
    reply.content = "Writing the file.";
    reply.finishReason = "length";
    reply.cutToolCalls = 1;
    reply.tokenUsage = {100, outputTokens, 0};
    return reply;
}

protocol::LlmChatResult calling(const std::string& id, const std::string& tool, json arguments) {
    protocol::LlmChatResult reply;
    reply.toolCalls = {{id, tool, std::move(arguments)}};
    reply.finishReason = "tool_calls";
    reply.tokenUsage = {100, 50, 20};
    return reply;
}

struct Ran {
    std::unique_ptr<Agent> agent; // owns the model
    TaskOutcome outcome;
    CollectingSink sink;
};

std::unique_ptr<Ran> runWith(const json& overrides, ListedLlm*& model, const QTemporaryDir& workspace,
                             std::deque<protocol::LlmChatResult> replies) {
    auto agent = createAgent({"local-light"}, overrides);
    if (!agent)
        return nullptr;
    auto llm = std::make_unique<ListedLlm>();
    llm->replies = std::move(replies);
    model = llm.get();
    (*agent)->setModel(std::move(llm));
    auto ran = std::make_unique<Ran>();
    ran->agent = std::move(agent).value();
    EventLog events(ran->sink);
    Cancellation cancellation;
    ran->outcome = ran->agent->run({workspace.path().toStdString(), std::nullopt, std::nullopt}, "t", "write big.txt",
                                 events, cancellation);
    return ran;
}

} // namespace

class TestModelReplies : public QObject {
    Q_OBJECT

private slots:
    void plansForCutReplies_data() {
        QTest::addColumn<quint64>("outputTokens");
        QTest::addColumn<quint64>("askedLimit");
        QTest::addColumn<int>("cutsInARow");
        QTest::addColumn<int>("action");
        QTest::addColumn<quint64>("room");
        using A = CutReplyPlan::Action;
        QTest::newRow("first cut: twice the room") << quint64(4096) << quint64(4096) << 1 << int(A::AskAgain) << quint64(8192);
        QTest::newRow("first cut, provider's limit: twice what it used") << quint64(16384) << quint64(0) << 1 << int(A::AskAgain) << quint64(32768);
        QTest::newRow("room is capped") << quint64(100000) << quint64(0) << 1 << int(A::AskAgain) << quint64(kMaxOutputRoom);
        QTest::newRow("already at the cap: tell the model") << quint64(kMaxOutputRoom) << quint64(0) << 1 << int(A::TellModel) << quint64(0);
        QTest::newRow("nothing counted: tell the model") << quint64(0) << quint64(0) << 1 << int(A::TellModel) << quint64(0);
        QTest::newRow("second cut in a row: tell the model") << quint64(8192) << quint64(8192) << 2 << int(A::TellModel) << quint64(0);
        QTest::newRow("third cut in a row: stop") << quint64(8192) << quint64(8192) << 3 << int(A::Stop) << quint64(0);
    }
    void plansForCutReplies() {
        QFETCH(quint64, outputTokens);
        QFETCH(quint64, askedLimit);
        QFETCH(int, cutsInARow);
        QFETCH(int, action);
        QFETCH(quint64, room);
        const auto plan = planForCutReply(outputTokens, askedLimit, unsigned(cutsInARow));
        QCOMPARE(int(plan.action), action);
        QCOMPARE(quint64(plan.room), room);
    }

    void settingsReachEveryModelCall_data() {
        QTest::addColumn<json>("overrides");
        QTest::addColumn<qint64>("maxOutputTokens"); // -1: not sent
        QTest::addColumn<QString>("effort");         // empty: not sent
        QTest::newRow("defaults send neither") << json::object() << qint64(-1) << "";
        QTest::newRow("max_output_tokens") << json{{"max_output_tokens", 64000}} << qint64(64000) << "";
        QTest::newRow("reasoning_effort") << json{{"reasoning_effort", "high"}} << qint64(-1) << "high";
        QTest::newRow("both") << json{{"max_output_tokens", 2048}, {"reasoning_effort", "minimal"}} << qint64(2048)
                              << "minimal";
    }
    void settingsReachEveryModelCall() {
        QFETCH(json, overrides);
        QFETCH(qint64, maxOutputTokens);
        QFETCH(QString, effort);
        QTemporaryDir workspace;
        ListedLlm* model = nullptr;
        auto ran = runWith(overrides, model, workspace,
                           {calling("c1", "list_files", json::object()), calling("c2", "finish", {{"summary", "ok"}})});
        QVERIFY(ran);
        QCOMPARE(toString(ran->outcome.reason), std::string_view("finished"));
        QCOMPARE(model->asked.size(), std::size_t{2});
        for (const auto& params : model->asked) {
            QCOMPARE(params.maxOutputTokens ? qint64(*params.maxOutputTokens) : qint64(-1), maxOutputTokens);
            QCOMPARE(QString::fromStdString(params.reasoningEffort.value_or("")), effort);
        }
    }

    void aCutCallIsNeverRunAndIsAskedAgainWithRoom() {
        QTemporaryDir workspace;
        ListedLlm* model = nullptr;
        auto whole = calling("c1", "write_file", {{"path", "big.txt"}, {"content", "all of it\n"}});
        whole.reasoning = {{"thinking", "The file is long; write it whole.", "sig-1", ""}};
        auto ran = runWith({{"max_output_tokens", 4096}}, model, workspace,
                           {cutReply(4096), whole, calling("c2", "finish", {{"summary", "wrote big.txt"}})});
        QVERIFY(ran);
        QCOMPARE(toString(ran->outcome.reason), std::string_view("finished"));
        QCOMPARE(model->asked.size(), std::size_t{3});
        // Asked again with the same conversation and twice the room.
        QCOMPARE(model->asked[1].maxOutputTokens.value_or(0), std::uint64_t{8192});
        QCOMPARE(model->asked[1].messages, model->asked[0].messages);
        // Back to the setting once a reply came whole.
        QCOMPARE(model->asked[2].maxOutputTokens.value_or(0), std::uint64_t{4096});
        const auto guards = ran->sink.guards();
        QCOMPARE(guards.size(), std::size_t{1});
        QCOMPARE(guards[0].guard, std::string("max_output_tokens"));
        QCOMPARE(std::string(toString(guards[0].action)), std::string("warn"));
        QVERIFY2(guards[0].detail.find("middle of a tool call") != std::string::npos, guards[0].detail.c_str());
        QVERIFY2(guards[0].detail.find("8192") != std::string::npos, guards[0].detail.c_str());
        // One write_file ran: the whole one.
        std::size_t toolCalls = 0;
        for (const auto& event : ran->sink.events)
            toolCalls += event.type == et::kToolCall && event.tool == "write_file";
        QCOMPARE(toolCalls, std::size_t{1});
        QFile big(workspace.filePath("big.txt"));
        QVERIFY(big.open(QIODevice::ReadOnly));
        QCOMPARE(big.readAll(), QByteArray("all of it\n"));
        // The thinking block went back, with its signature, in the assistant message the result answers.
        const auto& history = model->asked[2].messages;
        const auto assistant = std::find_if(history.begin(), history.end(), [](const protocol::ChatMessage& m) {
            return m.role == "assistant" && !m.toolCalls.empty() && m.toolCalls[0].id == "c1";
        });
        QVERIFY(assistant != history.end());
        QCOMPARE(assistant->reasoning, whole.reasoning);
        QCOMPARE((assistant + 1)->toolCallId.value_or(""), std::string("c1"));
        // And the timeline has the thought and its reasoning tokens.
        bool shown = false;
        for (const auto& event : ran->sink.events) {
            if (event.type != et::kModelResponse || !event.tokenUsage || event.tokenUsage->reasoning != 20)
                continue;
            shown = shown || protocol::ModelResponseData::fromJson(event.data).value().reasoning ==
                                 "The file is long; write it whole.";
        }
        QVERIFY(shown);
    }

    void cutAgainTellsTheModelThenStops() {
        QTemporaryDir workspace;
        ListedLlm* model = nullptr;
        auto ran = runWith({{"max_output_tokens", 1000}}, model, workspace,
                           {cutReply(1000), cutReply(2000), cutReply(1000)});
        QVERIFY(ran);
        QCOMPARE(toString(ran->outcome.reason), std::string_view("guard"));
        QCOMPARE(model->asked.size(), std::size_t{3});
        // After the second cut the model reads why; the cut text stays, its calls do not.
        const auto& told = model->asked[2].messages;
        QVERIFY(told.size() >= 2);
        QCOMPARE(told[told.size() - 2].role, std::string("assistant"));
        QVERIFY(told[told.size() - 2].toolCalls.empty());
        QCOMPARE(told.back().role, std::string("user"));
        QVERIFY2(told.back().content.find("cut off at the output token limit") != std::string::npos,
                 told.back().content.c_str());
        const auto guards = ran->sink.guards();
        QCOMPARE(guards.size(), std::size_t{3});
        QCOMPARE(std::string(toString(guards.back().action)), std::string("stop"));
        for (const auto& event : ran->sink.events)
            QVERIFY(event.type != et::kToolCall);
    }
};

QTEST_GUILESS_MAIN(TestModelReplies)
#include "tst_model_replies.moc"
