// The embedding API (loop/Agent.h): createAgent with presets and overrides, the hook callbacks, a model
// and an approver injected, events collected by the caller's sink. No process is started but the tools'.

#include "agent_core/llm/ScriptedLlm.h"
#include "agent_core/loop/Agent.h"
#include "agent_core/protocol/EventTypes.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <thread>

using namespace warren;
using namespace warren::agent;
namespace et = warren::protocol::event_type;
using nlohmann::json;

namespace {

class CollectingSink : public EventSink {
public:
    std::vector<protocol::Event> events;
    bool write(const protocol::Event& event) override {
        events.push_back(event);
        return true;
    }
    std::size_t count(std::string_view type) const {
        return static_cast<std::size_t>(
            std::count_if(events.begin(), events.end(), [&](const auto& event) { return event.type == type; }));
    }
};

protocol::Script script(std::vector<protocol::ToolCall> calls) {
    protocol::Script out;
    out.origin = "test";
    for (std::size_t i = 0; i < calls.size(); ++i) {
        calls[i].id = "c" + std::to_string(i);
        out.turns.push_back({"", {calls[i]}, std::nullopt});
    }
    return out;
}

// A sink whose reader goes away: once gone, every write is refused, as a closed pipe's would be.
class GoneSink : public EventSink {
public:
    std::vector<protocol::Event> events;
    std::atomic<bool> gone{false};
    bool write(const protocol::Event& event) override {
        if (gone)
            return false;
        events.push_back(event);
        return true;
    }
};

} // namespace

class TestAgentApi : public QObject {
    Q_OBJECT

private slots:
    void hooksAreCalledWithTheirContext() {
        QTemporaryDir workspace;
        auto agent = createAgent({"local-light"}, {{"max_steps", 10}});
        QVERIFY(agent);
        QCOMPARE((*agent)->config().maxSteps, 10u);
        std::vector<std::string> calls;
        auto record = [&](const HookContext& context) {
            calls.push_back(context.hook + ":" + std::to_string(context.step) + ":" + context.detail);
        };
        (*agent)->onTaskStart(record);
        (*agent)->onStep(record);
        (*agent)->onTaskComplete(record);
        (*agent)->setModel(std::make_unique<ScriptedLlm>(
            script({{"", "write_file", {{"path", "a.txt"}, {"content", "a"}}},
                    {"", "finish", {{"summary", "wrote a.txt"}}}})));
        CollectingSink sink;
        EventLog events(sink);
        Cancellation cancellation;
        const auto outcome =
            (*agent)->run({workspace.path().toStdString(), std::nullopt, std::nullopt}, "t", "write a", events,
                          cancellation);
        QCOMPARE(toString(outcome.reason), std::string_view("finished"));
        QCOMPARE(outcome.summary, std::string("wrote a.txt"));
        QCOMPARE(calls, (std::vector<std::string>{"on_task_start:0:", "on_step:1:", "on_step:2:",
                                                  "on_task_complete:2:finished"}));
        QCOMPARE(sink.count(et::kHook), 4u); // an event for each callback that fired
        QVERIFY(QFile::exists(workspace.filePath("a.txt")));
    }

    void theApproverDecides_data() {
        QTest::addColumn<bool>("approve");
        QTest::newRow("approved") << true;
        QTest::newRow("denied") << false;
    }
    void theApproverDecides() {
        QFETCH(bool, approve);
        QTemporaryDir workspace;
        auto agent = createAgent({}, {{"approval_tools", {"write_file"}}, {"memory_backend", "in-memory"}});
        QVERIFY(agent);
        std::vector<protocol::ApprovalRequestParams> asked;
        (*agent)->setApprover([&](const protocol::ApprovalRequestParams& request,
                                  const Cancellation*) -> Result<protocol::ApprovalResult> {
            asked.push_back(request);
            return protocol::ApprovalResult{approve, approve ? std::nullopt : std::optional<std::string>("no")};
        });
        (*agent)->setModel(std::make_unique<ScriptedLlm>(
            script({{"", "write_file", {{"path", "a.txt"}, {"content", "a"}}}, {"", "finish", {{"summary", "s"}}}})));
        CollectingSink sink;
        EventLog events(sink);
        Cancellation cancellation;
        (*agent)->run({workspace.path().toStdString(), std::nullopt, std::nullopt}, "t", "p", events, cancellation);
        QCOMPARE(asked.size(), 1u);
        QCOMPARE(asked[0].tool, std::string("write_file"));
        QCOMPARE(QFile::exists(workspace.filePath("a.txt")), approve);
        QCOMPARE(sink.count(et::kApprovalResolved), 1u);
    }

    // A stop requested from another thread (here: before the run) ends the task as the request says.
    void aStopRequestEndsTheTask_data() {
        QTest::addColumn<int>("request");
        QTest::addColumn<int>("reason");
        QTest::newRow("cancel") << int(StopRequest::Cancel) << int(ExitReason::Cancelled);
        QTest::newRow("pause") << int(StopRequest::Pause) << int(ExitReason::Paused);
        QTest::newRow("host gone") << int(StopRequest::HostGone) << int(ExitReason::Paused);
    }
    void aStopRequestEndsTheTask() {
        QFETCH(int, request);
        QFETCH(int, reason);
        QTemporaryDir workspace;
        auto agent = createAgent({"local-light"}, json::object());
        QVERIFY(agent);
        (*agent)->setModel(std::make_unique<ScriptedLlm>(script({{"", "finish", {{"summary", "s"}}}})));
        CollectingSink sink;
        EventLog events(sink);
        Cancellation cancellation;
        cancellation.request(static_cast<StopRequest>(request));
        const auto outcome =
            (*agent)->run({workspace.path().toStdString(), std::nullopt, std::nullopt}, "t", "p", events, cancellation);
        QCOMPARE(int(outcome.reason), reason);
        QCOMPARE(sink.count(et::kStepStarted), 0u);
    }

    // The control plane goes away while a call runs: the call is stopped and the model told it was
    // interrupted, but that result never reached the control plane. The run that resumes from the checkpoint
    // sends it first, as it was, so the timeline shows what the model was told, then goes on.
    void whatTheControlPlaneMissedIsSentOnResume() {
        QTemporaryDir workspace, state;
        const protocol::Script gated = script(
            {{"", "shell", {{"command", "touch started; while [ ! -e go ]; do sleep 0.05; done"}}},
             {"", "finish", {{"summary", "through"}}}});
        const AgentPaths paths{workspace.path().toStdString(), state.path().toStdString(), std::nullopt};

        auto first = createAgent({"local-light"}, json::object());
        QVERIFY(first);
        (*first)->setModel(std::make_unique<ScriptedLlm>(gated));
        GoneSink gone;
        EventLog firstEvents(gone);
        Cancellation firstStop;
        // As HostChannel does when its pipe closes: the writes fail and the task is asked to stop.
        std::thread host([&] {
            for (int i = 0; i < 600 && !QFile::exists(workspace.filePath("started")); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(50)); // polls a condition
            gone.gone = true;
            firstStop.request(StopRequest::HostGone);
        });
        const auto paused = (*first)->run(paths, "t", "p", firstEvents, firstStop);
        host.join();
        QCOMPARE(int(paused.reason), int(ExitReason::Paused));
        const auto resultOfC0 = [](const std::vector<protocol::Event>& events) {
            return std::find_if(events.begin(), events.end(), [](const protocol::Event& event) {
                return event.type == et::kToolResult && event.data.value("id", "") == "c0";
            });
        };
        QVERIFY(resultOfC0(gone.events) == gone.events.end()); // never reached the control plane

        QVERIFY(QFile(workspace.filePath("go")).open(QIODevice::WriteOnly));
        auto second = createAgent({"local-light"}, json::object());
        QVERIFY(second);
        (*second)->setModel(std::make_unique<ScriptedLlm>(gated));
        CollectingSink sink;
        EventLog events(sink);
        Cancellation stop;
        const auto finished = (*second)->run(paths, "t", "p", events, stop);
        QCOMPARE(int(finished.reason), int(ExitReason::Finished));
        const auto missed = resultOfC0(sink.events);
        QVERIFY(missed != sink.events.end());
        QCOMPARE(missed->data.value("interrupted", false), true);
        const auto resumed = std::find_if(sink.events.begin(), sink.events.end(),
                                          [](const protocol::Event& event) { return event.type == et::kTaskResumed; });
        QVERIFY(resumed != sink.events.end());
        QVERIFY(missed < resumed); // the run before's, before this run's own
        QVERIFY(missed->ts <= resumed->ts);
        for (std::size_t i = 1; i < sink.events.size(); ++i)
            QVERIFY(sink.events[i].seq > sink.events[i - 1].seq);
    }

    void badSettingsAreRefusedByName() {
        QVERIFY(!createAgent({"no-such-preset"}, json::object()));
        const auto bad = createAgent({}, {{"max_steps", "ten"}});
        QVERIFY(!bad);
        QVERIFY(bad.error().message.find("max_steps") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestAgentApi)
#include "tst_agent_api.moc"
