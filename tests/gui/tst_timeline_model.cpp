// TimelineModel from events: what cards a task's events make, in what order, how streamed pieces and
// output chunks grow one card, and that a batch of events costs the view one insertion.
#include "ui/models/TimelineModel.h"

#include <QSignalSpy>
#include <QtTest>

using nlohmann::json;
using warren::ui::TimelineItem;
using warren::ui::TimelineModel;
using Kind = TimelineItem::Kind;
using State = TimelineItem::State;

namespace {

class Events {
public:
    json add(const std::string& type, json data, std::uint64_t step, const std::string& tool = {}) {
        json event{{"seq", ++m_seq}, {"ts", "2026-11-29T10:00:00.000Z"}, {"type", type}, {"step", step},
                   {"data", std::move(data)}};
        if (!tool.empty())
            event["tool"] = tool;
        m_all.push_back(event);
        return event;
    }
    std::vector<json> take() { return std::exchange(m_all, {}); }

private:
    std::uint64_t m_seq = 0;
    std::vector<json> m_all;
};

std::vector<Kind> kinds(const TimelineModel& model) {
    std::vector<Kind> all;
    for (int row = 0; row < model.rowCount(); ++row)
        all.push_back(model.item(row)->kind);
    return all;
}

} // namespace

class TestTimelineModel : public QObject {
    Q_OBJECT
private slots:
    void eventsBecomeCardsInOrder();
    void aBatchIsOneInsertion();
    void outputChunksGrowOneCard();
    void eventsAreTakenOnce();
    void diffLinesAreColoured();
    void approvalIsResolvedInPlace();
    void approvalsOfferTheCommandPrefix();
    void networkRequestsAreNotices();
    void anEndedTaskLeavesNoCallRunning();
    void activityIsCounted();
};

void TestTimelineModel::eventsBecomeCardsInOrder() {
    TimelineModel model;
    model.reset("t-1", "Fix it");
    Events events;
    events.add("task_started", {{"prompt", "Fix it"}}, 0);
    events.add("step_started", json::object(), 1);
    events.add("model_delta", {{"text", "Let me "}}, 1);
    events.add("model_delta", {{"text", "look."}}, 1);
    events.add("model_response", {{"content", "Let me look."}, {"tool_calls", json::array()}}, 1);
    events.add("tool_call", {{"id", "c1"}, {"arguments", {{"command", "ls -la"}}}}, 1, "shell");
    events.add("tool_result", {{"id", "c1"}, {"exit_code", 0}, {"truncated", false}, {"output", ""}}, 1, "shell");
    events.add("checkpoint", {{"path", "/state/x"}, {"bytes", 100}}, 1);
    events.add("task_finished", {{"reason", "finished"}, {"summary", "All good"}}, 1);
    model.append(events.take());

    const std::vector<Kind> expected = {Kind::Task,     Kind::Step,   Kind::ModelText,
                                        Kind::ToolCall, Kind::Notice, Kind::Finished};
    QCOMPARE(kinds(model), expected);
    QCOMPARE(model.item(2)->prose, QStringLiteral("Let me look."));
    QCOMPARE(model.item(3)->title, QStringLiteral("$ ls -la"));
    QCOMPARE(model.item(3)->state, State::Succeeded);
    QCOMPARE(model.item(5)->prose, QStringLiteral("All good"));
    QCOMPARE(model.item(5)->state, State::Succeeded);
}

void TestTimelineModel::aBatchIsOneInsertion() {
    TimelineModel model;
    model.reset("t-1", "p");
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    Events events;
    events.add("step_started", json::object(), 1);
    events.add("tool_call", {{"id", "c1"}, {"arguments", {{"command", "make"}}}}, 1, "shell");
    for (int i = 0; i < 500; ++i)
        events.add("tool_output", {{"id", "c1"}, {"stream", "stdout"}, {"text", "line " + std::to_string(i) + "\n"}}, 1);
    model.append(events.take());
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(changed.size(), 0); // new cards are inserted complete
    QCOMPARE(model.item(2)->body.lineCount(), 500);

    // More output for a card the view has: one change, no insertion.
    for (int i = 0; i < 100; ++i)
        events.add("tool_output", {{"id", "c1"}, {"stream", "stdout"}, {"text", "more\n"}}, 1);
    model.append(events.take());
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.item(2)->body.lineCount(), 600);
}

void TestTimelineModel::outputChunksGrowOneCard() {
    TimelineModel model;
    model.reset("t-1", "p");
    Events events;
    events.add("tool_call", {{"id", "c1"}, {"arguments", {{"command", "test"}}}}, 1, "shell");
    // A colour sequence cut between two chunks, a line cut between two chunks.
    events.add("tool_output", {{"id", "c1"}, {"stream", "stdout"}, {"text", "ok\n\x1b[3"}}, 1);
    events.add("tool_output", {{"id", "c1"}, {"stream", "stdout"}, {"text", "2mpas"}}, 1);
    events.add("tool_output", {{"id", "c1"}, {"stream", "stdout"}, {"text", "sed\x1b[0m\n"}}, 1);
    model.append(events.take());
    const TimelineItem& call = *model.item(1);
    QCOMPARE(call.body.lineCount(), 2);
    QCOMPARE(call.body.line(1).text.toString(), QStringLiteral("passed"));
    QCOMPARE(call.body.line(1).spans.size(), 1u);
    QCOMPARE(call.body.line(1).spans.front().style.fg, 2);
    QCOMPARE(call.state, State::Running);
}

void TestTimelineModel::eventsAreTakenOnce() {
    TimelineModel model;
    model.reset("t-1", "p");
    Events events;
    events.add("tool_call", {{"id", "c1"}, {"arguments", {{"command", "x"}}}}, 1, "shell");
    events.add("tool_output", {{"id", "c1"}, {"stream", "stdout"}, {"text", "once\n"}}, 1);
    const auto all = events.take();
    model.append(all);
    model.append(all); // the same events again: a live signal racing the initial load
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.item(1)->body.lineCount(), 1);
    QCOMPARE(model.lastSeq(), 2u);
}

void TestTimelineModel::diffLinesAreColoured() {
    TimelineModel model;
    model.reset("t-1", "p");
    Events events;
    events.add("file_changed",
               {{"path", "a.txt"}, {"change", "modified"}, {"added", 1}, {"removed", 1},
                {"diff", "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"}},
               1, "edit_file");
    model.append(events.take());
    const TimelineItem& change = *model.item(1);
    QCOMPARE(change.kind, Kind::FileChange);
    QCOMPARE(change.title, QStringLiteral("changed a.txt"));
    QCOMPARE(change.detail, QStringLiteral("+1 −1"));
    QCOMPARE(change.body.lineCount(), 6);
    QCOMPARE(change.body.line(2).spans.front().style.fg, 6); // @@
    QVERIFY(change.body.line(3).spans.empty());               // context
    QCOMPARE(change.body.line(4).spans.front().style.fg, 1); // -
    QCOMPARE(change.body.line(5).spans.front().style.fg, 2); // +
    QCOMPARE(model.lastChangeOf("a.txt"), 1);
    QCOMPARE(model.lastChangeOf("b.txt"), -1);
}

void TestTimelineModel::approvalIsResolvedInPlace() {
    TimelineModel model;
    model.reset("t-1", "p");
    Events events;
    events.add("approval_requested", {{"id", "c9"}, {"arguments", {{"command", "rm -rf build"}}}, {"reason", "deletes"}},
               2, "shell");
    model.append(events.take());
    QCOMPARE(model.item(1)->state, State::Waiting);
    QCOMPARE(model.item(1)->title, QStringLiteral("$ rm -rf build"));
    QCOMPARE(model.item(1)->detail, QStringLiteral("deletes"));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    events.add("approval_resolved", {{"id", "c9"}, {"approved", false}, {"note", "not now"}}, 2);
    model.append(events.take());
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.item(1)->state, State::Denied);
    QVERIFY(model.item(1)->detail.contains("not now"));
    QCOMPARE(changed.size(), 1);
}

// "Always allow commands like this" is offered with exactly the prefix it would allow, and only where one is
// plain; the egress proxy's decisions are notices, a refusal with its reason.
void TestTimelineModel::approvalsOfferTheCommandPrefix() {
    TimelineModel model;
    model.reset("t-1", "p");
    Events events;
    events.add("approval_requested", {{"id", "c1"}, {"arguments", {{"command", "npm test -- --watch"}}}}, 1, "shell");
    events.add("approval_requested", {{"id", "c2"}, {"arguments", {{"command", "make && make install"}}}}, 1,
               "shell");
    events.add("approval_requested", {{"id", "c3"}, {"arguments", {{"path", "src/a.c"}}}}, 1, "write_file");
    model.append(events.take());
    QCOMPARE(model.item(1)->commandPrefix, QStringLiteral("npm test"));
    QVERIFY(model.item(2)->commandPrefix.isEmpty());
    QVERIFY(model.item(3)->commandPrefix.isEmpty());
}

void TestTimelineModel::networkRequestsAreNotices() {
    TimelineModel model;
    model.reset("t-1", "p");
    Events events;
    events.add("network_request",
               {{"method", "CONNECT"}, {"host", "pypi.org"}, {"port", 443u}, {"allowed", true}, {"address", "1.2.3.4"}},
               1);
    events.add("network_request",
               {{"method", "GET"}, {"host", "evil.example"}, {"port", 80u}, {"allowed", false},
                {"reason", "evil.example:80 is not in this task's network allow-list (pypi.org)"}},
               1);
    model.append(events.take());
    QCOMPARE(model.item(1)->kind, Kind::Notice);
    QCOMPARE(model.item(1)->state, State::Plain);
    QCOMPARE(model.item(1)->title, QStringLiteral("network: CONNECT pypi.org:443"));
    QCOMPARE(model.item(2)->state, State::Warning);
    QCOMPARE(model.item(2)->title, QStringLiteral("network refused: GET evil.example:80"));
    QVERIFY(model.item(2)->detail.contains("allow-list"));
}

void TestTimelineModel::anEndedTaskLeavesNoCallRunning() {
    TimelineModel model;
    model.reset("t-1", "p");
    Events events;
    events.add("tool_call", {{"id", "c1"}, {"arguments", {{"command", "sleep 100"}}}}, 1, "shell");
    events.add("task_finished", {{"reason", "cancelled"}, {"summary", ""}}, 1);
    model.append(events.take());
    QCOMPARE(model.item(1)->state, State::Failed);
    QCOMPARE(model.item(2)->title, QStringLiteral("Cancelled"));
}

void TestTimelineModel::activityIsCounted() {
    TimelineModel model;
    model.reset("t-1", "p");
    Events events;
    json first{{"seq", 1}, {"ts", "2026-11-29T10:00:00.000Z"}, {"type", "resource_sample"}, {"step", 1},
               {"data", {{"rss_bytes", 1000}, {"cpu_ms", 100}}}};
    json second{{"seq", 2}, {"ts", "2026-11-29T10:00:01.000Z"}, {"type", "resource_sample"}, {"step", 1},
                {"data", {{"rss_bytes", 3000}, {"cpu_ms", 600}}}};
    json response{{"seq", 3}, {"ts", "2026-11-29T10:00:01.000Z"}, {"type", "model_response"}, {"step", 2},
                  {"token_usage", {{"input", 50}, {"output", 7}}}, {"data", {{"content", ""}}}};
    model.append({first, second, response});
    const auto& activity = model.activity();
    QCOMPARE(activity.memoryBytes, (std::vector<double>{1000, 3000}));
    QCOMPARE(activity.cpuPercent, (std::vector<double>{50.0})); // 500 ms of CPU in 1 s
    QCOMPARE(activity.modelCalls, 1u);
    QCOMPARE(activity.tokensIn, 50u);
    QCOMPARE(activity.tokensOut, 7u);
    QCOMPARE(activity.steps, 2u);
}

QTEST_MAIN(TestTimelineModel)
#include "tst_timeline_model.moc"
