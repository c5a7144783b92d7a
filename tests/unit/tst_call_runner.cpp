// CallRunner, a reply's tool calls without the rest of the loop: what each call is answered (approved,
// denied, refused, in conflict over a path), when the calls end the task's step (finish, loop_detection,
// max_bad_calls, a stop cutting an approval short), what a stop leaves pending, the state written before a
// call runs, and how long each seat holds the paths its calls wrote. The tools are the test's own.

#include "agent_core/loop/CallRunner.h"
#include "agent_core/protocol/EventTypes.h"
#include "tests/support/AgentLoopDoubles.h"

#include <QTemporaryDir>
#include <QtTest>
#include <thread>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// Counts its runs and says what it was given; "ran out of time" when the deadline it was given had passed.
class CountingTool : public Tool {
public:
    explicit CountingTool(int& runs) : m_runs(runs) {}
    ToolOutcome run(const json& arguments, const ToolEnv& env) override {
        ++m_runs;
        if (std::chrono::steady_clock::now() >= env.deadline)
            return {false, "ran out of time"};
        return {true, "ran with " + arguments.dump()};
    }

private:
    int& m_runs;
};

protocol::ToolSpec spec(const std::string& name, const std::vector<std::string>& arguments) {
    json properties = json::object();
    for (const auto& argument : arguments)
        properties[argument] = {{"type", "string"}};
    return {name, name + " for the test", {{"type", "object"}, {"properties", properties}}};
}

protocol::ToolCall call(const std::string& id, const std::string& name, json arguments = json::object()) {
    return {id, name, std::move(arguments)};
}

struct Answer {
    std::string id;
    std::string content;
    protocol::ToolResultData data;
};

enum class Decision { None, Yes, NoWithNote, StopsTheTask }; // what the test's approver answers

// One CallRunner over the test's tools (echo; write_file, whose path a writer claims), with what it
// recorded and wrote before each call.
struct Harness {
    QTemporaryDir workspace;
    AgentConfig config;
    AgentSettings settings;
    RunFacts facts;
    Hooks hooks;
    test::ListedLlm model;
    agent::Approver approver;
    HostCall hostCall;
    test::CollectingSink sink;
    EventLog events{sink};
    Cancellation cancellation;
    AgentState state;
    PathClaims claims;
    Deadline deadline = Deadline::max();
    std::set<std::string> filesChanged;
    int runs = 0;
    std::vector<Answer> answers;
    std::vector<std::optional<protocol::ToolCall>> runningAtSave;
    std::unique_ptr<ToolRegistry> tools;
    std::unique_ptr<RunContext> context;
    std::unique_ptr<CallRunner> runner;

    explicit Harness(AgentSeat seat = {}, Decision approves = Decision::None) {
        events.begin(1, nullptr);
        if (approves != Decision::None)
            approver = [this, approves](const protocol::ApprovalRequestParams&,
                                        const Cancellation*) -> Result<protocol::ApprovalResult> {
                if (approves == Decision::StopsTheTask) {
                    cancellation.request(StopRequest::Pause);
                    return makeError(ErrorCode::System, "the wait was cut short");
                }
                if (approves == Decision::Yes)
                    return protocol::ApprovalResult{true, std::nullopt};
                return protocol::ApprovalResult{false, std::string("not that file")};
            };
        start(std::move(seat));
    }

    // Made once the test has set config: CallRunner reads the loop settings when it is made.
    void start(AgentSeat seat = {}) {
        std::vector<ToolEntry> entries;
        entries.push_back({spec("echo", {"text"}), [this] {
                               return std::make_unique<CountingTool>(runs);
                           }});
        entries.push_back({spec("write_file", {"path", "content"}), [this] {
                               return std::make_unique<CountingTool>(runs);
                           }});
        tools = std::make_unique<ToolRegistry>(std::move(entries),
                                               std::vector<std::string>{"echo", "write_file"}, false);
        context = std::make_unique<RunContext>(
            RunContext{config, settings, facts, hooks, model, approver, hostCall,
                       AgentPaths{workspace.path().toStdString(), {}, {}}, events, cancellation});
        CallRunner::Host host{[this] { runningAtSave.push_back(state.runningCall); },
                              [this](const protocol::ToolCall& call, std::string content,
                                     protocol::ToolResultData data, std::optional<std::uint64_t>) {
                                  answers.push_back({call.id, std::move(content), std::move(data)});
                              }};
        runner = std::make_unique<CallRunner>(*context, seat, state, *tools, claims, deadline, filesChanged,
                                              std::move(host));
    }

    std::optional<CallRunner::End> run(std::vector<protocol::ToolCall> calls) {
        state.pendingCalls = std::move(calls);
        return runner->runPending();
    }

    std::vector<std::string> guards() const {
        std::vector<std::string> out;
        for (const auto& event : sink.ofType(protocol::event_type::kGuard))
            out.push_back(event.data.value("guard", "") + " " + event.data.value("action", ""));
        return out;
    }
};

} // namespace

Q_DECLARE_METATYPE(Decision)

class TestCallRunner : public QObject {
    Q_OBJECT

private slots:
    void approval_data() {
        QTest::addColumn<Decision>("decision");
        QTest::addColumn<QString>("answerStart");
        QTest::addColumn<bool>("denied");
        QTest::addColumn<int>("runs");
        QTest::newRow("no approver: denied")
            << Decision::None << "Denied: the user did not approve" << true << 0;
        QTest::newRow("approved: runs") << Decision::Yes << "ran with" << false << 1;
        QTest::newRow("denied: the note is told")
            << Decision::NoWithNote
            << "Denied: the user did not approve this call. Their note: "
               "not that file"
            << true << 0;
    }
    void approval() {
        QFETCH(Decision, decision);
        QFETCH(QString, answerStart);
        QFETCH(bool, denied);
        QFETCH(int, runs);
        Harness harness({}, decision);
        harness.config.approvalTools = {"echo"};
        harness.start();
        QVERIFY(!harness.run({call("c1", "echo", {{"text", "hi"}})}));
        QCOMPARE(harness.runs, runs);
        QCOMPARE(harness.answers.size(), std::size_t(1));
        QVERIFY2(harness.answers[0].content.starts_with(answerStart.toStdString()),
                 harness.answers[0].content.c_str());
        QCOMPARE(harness.answers[0].data.denied, denied);
        QCOMPARE(harness.sink.ofType(protocol::event_type::kApprovalRequested).size(), std::size_t(1));
        QCOMPARE(harness.sink.ofType(protocol::event_type::kApprovalResolved).size(), std::size_t(1));
    }

    // Waiting for the user is not working: the time an approval took moves the step's deadline by as much,
    // so the approved call still has the step's time to run (safe-mode's 30 s step once ran out while the
    // user read the card, and the approved command was reported not run).
    void waitingForAnApprovalDoesNotSpendTheStep() {
        using namespace std::chrono_literals;
        Harness harness;
        harness.config.approvalTools = {"echo"};
        harness.deadline = Clock::now() + 200ms;
        const auto given = harness.deadline;
        // A user who answers after the step's time: what is tested is time passing, not an event awaited.
        harness.approver = [given](const protocol::ApprovalRequestParams&,
                                   const Cancellation*) -> Result<protocol::ApprovalResult> {
            while (Clock::now() < given + 100ms)
                std::this_thread::sleep_for(10ms);
            return protocol::ApprovalResult{true, std::nullopt};
        };
        harness.start();
        QVERIFY(!harness.run({call("c1", "echo", {{"text", "hi"}})}));
        QCOMPARE(harness.runs, 1);
        QCOMPARE(harness.answers.size(), std::size_t(1));
        QVERIFY2(harness.answers[0].content.starts_with("ran with"), harness.answers[0].content.c_str());
        QVERIFY(harness.deadline >= given + 100ms); // moved by the wait, which ended past the deadline given
    }

    void aStopDuringTheApprovalKeepsTheCallFirst() {
        Harness harness({}, Decision::StopsTheTask);
        harness.config.approvalTools = {"echo"};
        harness.start();
        const auto end = harness.run({call("c1", "echo"), call("c2", "echo")});
        QVERIFY(end);
        QCOMPARE(end->kind, CallRunner::End::Kind::StopRequested);
        QCOMPARE(harness.runs, 0);
        QVERIFY(harness.answers.empty());
        QCOMPARE(harness.state.pendingCalls.size(), std::size_t(2));
        QCOMPARE(harness.state.pendingCalls[0].id, std::string("c1"));
    }

    void aStopLeavesTheCallsNotStarted() {
        Harness harness;
        harness.cancellation.request(StopRequest::Cancel);
        QVERIFY(!harness.run({call("c1", "echo"), call("c2", "echo")}));
        QCOMPARE(harness.runs, 0);
        QCOMPARE(harness.state.pendingCalls.size(), std::size_t(2));
    }

    void theStateIsWrittenWithTheCallBeforeItRuns() {
        Harness harness;
        QVERIFY(!harness.run({call("c1", "echo")}));
        QCOMPARE(harness.runningAtSave.size(), std::size_t(1));
        QVERIFY(harness.runningAtSave[0]);
        QCOMPARE(harness.runningAtSave[0]->id, std::string("c1"));
        QVERIFY(!harness.state.runningCall); // cleared once answered
        QCOMPARE(harness.state.counters.toolCalls["echo"], std::uint64_t(1));
    }

    void finishEndsTheCalls() {
        Harness harness;
        const auto end = harness.run({call("c1", "finish", {{"summary", "done"}}), call("c2", "echo")});
        QVERIFY(end);
        QCOMPARE(end->kind, CallRunner::End::Kind::Finish);
        QCOMPARE(end->detail, std::string("done"));
        QCOMPARE(harness.runs, 0);
        QVERIFY(harness.state.pendingCalls.empty());
        QCOMPARE(harness.answers.size(), std::size_t(1));
        QCOMPARE(harness.answers[0].content, std::string("The task is finished."));
    }

    void badCallsInARowStopTheTask() {
        Harness harness;
        harness.config.maxBadCalls = 2;
        harness.start();
        QVERIFY(!harness.run({call("c1", "ehco")})); // one bad call: answered, the step goes on
        QVERIFY(harness.answers.back().content.starts_with("Not run: "));
        const auto end = harness.run({call("c2", "ehco"), call("c3", "echo")});
        QVERIFY(end);
        QCOMPARE(end->kind, CallRunner::End::Kind::Guard);
        QVERIFY(end->detail.find("max_bad_calls") != std::string::npos);
        QVERIFY(harness.state.pendingCalls.empty());
        QCOMPARE(harness.guards(), std::vector<std::string>{"max_bad_calls stop"});
    }

    void aGoodCallStartsTheBadCountAgain() {
        Harness harness;
        harness.config.maxBadCalls = 2;
        harness.start();
        QVERIFY(!harness.run({call("c1", "ehco"), call("c2", "echo"), call("c3", "ehco")}));
        QVERIFY(harness.guards().empty());
    }

    void aRepeatedCallIsWarnedThenStopped() {
        Harness harness;
        harness.config.loopDetection = true;
        harness.config.loopThreshold = 2;
        harness.start();
        const auto same = call("c", "echo", {{"text", "again"}});
        QVERIFY(!harness.run({same}));
        QVERIFY(!harness.run({same}));
        QVERIFY(harness.answers.back().content.find("[warning: this exact call") != std::string::npos);
        const auto end = harness.run({same});
        QVERIFY(end);
        QCOMPARE(end->kind, CallRunner::End::Kind::Guard);
        QCOMPARE(harness.runs, 2);
        QCOMPARE(harness.guards(), (std::vector<std::string>{"loop_detection warn", "loop_detection stop"}));
    }

    void aPathAnotherAgentWritesIsAConflict() {
        Harness harness;
        QVERIFY(!harness.claims.claim("agent-1", "a.txt"));
        QVERIFY(!harness.run({call("c1", "write_file", {{"path", "a.txt"}, {"content", "x"}})}));
        QCOMPARE(harness.runs, 0);
        QVERIFY2(
            harness.answers[0].content.starts_with("Not run: conflict: a.txt is being written by agent-1"),
            harness.answers[0].content.c_str());
    }

    void howLongAWrittenPathIsHeld_data() {
        QTest::addColumn<QString>("seat");
        QTest::addColumn<QStringList>("heldAfter");
        QTest::newRow("the task's own agent: while its call writes") << "" << QStringList{};
        QTest::newRow("a sub-agent: until it ends") << "agent-1" << QStringList{"a.txt"};
    }
    void howLongAWrittenPathIsHeld() {
        QFETCH(QString, seat);
        QFETCH(QStringList, heldAfter);
        Harness harness(
            AgentSeat{seat.toStdString(), seat.isEmpty() ? "" : "worker", seat.isEmpty() ? 0u : 1u});
        QVERIFY(!harness.run({call("c1", "write_file", {{"path", "a.txt"}, {"content", "x"}})}));
        QCOMPARE(harness.runs, 1);
        QStringList held;
        for (const auto& path : harness.claims.heldBy(seat.toStdString()))
            held << QString::fromStdString(path);
        QCOMPARE(held, heldAfter);
    }
};

QTEST_GUILESS_MAIN(TestCallRunner)
#include "tst_call_runner.moc"
