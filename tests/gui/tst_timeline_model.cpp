// TimelineModel from events: what cards a task's events make, in what order, how streamed pieces and
// output chunks grow one card, and that a batch of events costs the view one insertion.
#include "tests/gui/LongTaskEvents.h"
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
    json add(const std::string& type, json data, std::uint64_t step, const std::string& tool = {},
             const std::string& agent = {}) {
        json event{{"seq", ++m_seq}, {"ts", "2026-11-29T10:00:00.000Z"}, {"type", type}, {"step", step},
                   {"data", std::move(data)}};
        if (!tool.empty())
            event["tool"] = tool;
        if (!agent.empty())
            event["agent"] = agent;
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
    void aSubAgentsWorkIsFoldedUntilItsCardIsExpanded();
    void approvalsOfferTheCommandPrefix();
    void networkRequestsAreNotices();
    void anEndedTaskLeavesNoCallRunning();
    void activityIsCounted();
    void pagedInFromTheEndItEqualsOneLoad();
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

// A sub-agent's cards are folded into its Agent card, a nested one's into its parent's too, while its
// questions to the user never are.
void TestTimelineModel::aSubAgentsWorkIsFoldedUntilItsCardIsExpanded() {
    TimelineModel model;
    model.reset("t-1", "p");
    Events events;
    events.add("tool_call", {{"id", "c1"}, {"arguments", {{"brief", "Plan"}}}}, 1, "spawn_agent");
    events.add("agent_started", {{"parent", nullptr}, {"call_id", "c1"}, {"role", "worker"}, {"brief", "Plan"}, {"depth", 1}},
               0, {}, "agent-1");
    events.add("tool_call", {{"id", "c1"}, {"arguments", {{"brief", "Look"}}}}, 1, "spawn_agent", "agent-1");
    events.add("agent_started", {{"parent", "agent-1"}, {"call_id", "c1"}, {"role", "explorer"}, {"brief", "Look"},
                                 {"depth", 2}}, 0, {}, "agent-2");
    events.add("tool_call", {{"id", "c1"}, {"arguments", {{"path", "a"}}}}, 1, "read_file", "agent-2");
    events.add("approval_requested", {{"id", "c2"}, {"arguments", {{"command", "make"}}}, {"reason", "shell"}}, 1,
               "shell", "agent-2");
    events.add("step_started", json::object(), 2);
    model.append(events.take());
    QCOMPARE(model.rowCount(), 8);
    const std::vector<bool> foldedAtFirst = {false, false, false, true, true, true, false, false};
    for (int row = 0; row < model.rowCount(); ++row)
        QVERIFY2(model.folded(row) == foldedAtFirst[static_cast<std::size_t>(row)], qPrintable(model.item(row)->title));
    QCOMPARE(model.item(2)->members, std::size_t(2));
    model.setExpanded(2, true); // agent-1's work shows; agent-2's stays folded into agent-2's card
    QVERIFY(!model.folded(3) && !model.folded(4) && model.folded(5));
    model.setExpanded(4, true);
    QVERIFY(!model.folded(5));
    model.setExpanded(2, false); // folding the parent folds everything under it again
    QVERIFY(model.folded(3) && model.folded(4) && model.folded(5) && !model.folded(6));
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

// A long task opened at its end and paged in towards its start, each page read again with everything
// shown (as the window does), ends with the very cards one load of all its events makes; the counters are
// the whole task's at every point once the earlier events are counted.
void TestTimelineModel::pagedInFromTheEndItEqualsOneLoad() {
    const std::vector<json> all = warren::test::longTaskEvents(1000);
    TimelineModel whole;
    whole.reset("t-1", "p");
    whole.append(all);
    const auto cardsOf = [](const TimelineModel& model, std::uint64_t fromSeq) {
        QStringList cards;
        for (int row = 1; row < model.rowCount(); ++row)
            if (model.item(row)->firstSeq >= fromSeq)
                cards << QString::number(model.item(row)->firstSeq) + " " + model.item(row)->title + " " +
                             model.item(row)->detail + " " + model.item(row)->body.text() + model.item(row)->prose;
        return cards;
    };
    const auto latest = [&](std::uint64_t beforeSeq, std::size_t limit) {
        const auto end = all.begin() + static_cast<std::ptrdiff_t>(beforeSeq - 1);
        const auto begin = end - static_cast<std::ptrdiff_t>(std::min<std::size_t>(limit, beforeSeq - 1));
        return std::vector<json>(begin, end);
    };

    TimelineModel paged;
    paged.reset("t-1", "p");
    const std::size_t page = 150;
    paged.append(latest(1001, page));
    QCOMPARE(paged.firstSeq(), 851u);
    QVERIFY(paged.hasEarlier());
    // 851 is the first output chunk of call_122, whose call is on the page before: its card starts there,
    // with both chunks and the result.
    QCOMPARE(paged.item(1)->firstSeq, 851u);
    QCOMPARE(paged.item(1)->title, QStringLiteral("shell (earlier call)"));
    QCOMPARE(paged.item(1)->body.text(), QStringLiteral("line 851\nline 852\n"));
    QCOMPARE(paged.item(1)->state, State::Succeeded);
    QCOMPARE(paged.item(paged.rowCount() - 1)->kind, Kind::Finished);
    QVERIFY(paged.needsEarlierCounts());
    // Before the earlier events are counted: what the page holds; after: the whole task's.
    QCOMPARE(paged.activity().modelCalls, 21u);
    {
        std::vector<json> earlier = latest(851, 850);
        warren::timeline::TaskCounters counted;
        for (const json& event : earlier)
            if (auto read = warren::timeline::readEvent(event))
                counted.add(read->payload, read->envelope.step, read->envelope.tokenUsage, -1);
        paged.addEarlierCounts(counted, true);
        QVERIFY(!paged.needsEarlierCounts());
        QCOMPARE(paged.activity().modelCalls, whole.activity().modelCalls);
        QCOMPARE(paged.activity().tokensIn, whole.activity().tokensIn);
        QCOMPARE(paged.activity().toolCalls, whole.activity().toolCalls);
        QVERIFY(paged.activity().files == whole.activity().files);
    }

    QSignalSpy resets(&paged, &QAbstractItemModel::modelReset);
    int pages = 0;
    while (paged.hasEarlier() && pages < 20) {
        const std::size_t wanted = paged.eventCount() + page;
        const std::vector<json> events = latest(paged.lastSeq() + 1, wanted);
        const std::uint64_t before = paged.firstSeq();
        paged.prepend(events, events.size() < wanted);
        ++pages;
        QVERIFY(paged.firstSeq() < before);
        // From the first step folded whole, the cards are those of one load.
        const std::uint64_t fromStep = (paged.firstSeq() - 1) / 7 * 7 + 8;
        QCOMPARE(cardsOf(paged, fromStep), cardsOf(whole, fromStep));
        QCOMPARE(paged.activity().tokensIn, whole.activity().tokensIn);
    }
    QCOMPARE(pages, 6); // 850 events before the first page, 150 a page
    QCOMPARE(resets.size(), pages);
    QCOMPARE(paged.rowCount(), whole.rowCount());
    QCOMPARE(cardsOf(paged, 0), cardsOf(whole, 0));
    QCOMPARE(paged.eventCount(), all.size());

    // A page that is not earlier, or does not reach what is shown, changes nothing.
    paged.prepend(latest(500, 10), false);
    QCOMPARE(cardsOf(paged, 0), cardsOf(whole, 0));
    // Live events still append once.
    const auto more = warren::test::longTaskEvents(1002); // 1001: a file change, 1002: the end
    paged.append({more[999], more[1000], more[1000], more[1001]});
    QCOMPARE(paged.lastSeq(), 1002u);
    QCOMPARE(paged.rowCount(), whole.rowCount() + 2); // each once
}

QTEST_MAIN(TestTimelineModel)
#include "tst_timeline_model.moc"
