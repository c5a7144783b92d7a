// TimelineFold: events in, cards and counters out. Which cards a task's events make and in what order,
// how streamed pieces and output chunks grow one card, which earlier cards each event changes, the one
// description of a call, the command prefix an approval offers, and that an event the protocol's readers
// refuse is named by its key.

#include "app/timeline/CallDescription.h"
#include "app/timeline/TimelineFold.h"

#include <QtTest>

using namespace warren;
using namespace warren::timeline;
using nlohmann::json;
using Kind = TimelineCard::Kind;
using State = TimelineCard::State;

Q_DECLARE_METATYPE(std::string)

namespace {

json ev(const std::string& type, json data, std::uint64_t step = 1, const std::string& tool = {},
        json envelope = json::object()) {
    static std::uint64_t seq = 0;
    json event{
        {"seq", ++seq}, {"ts", "2026-11-29T10:00:00.000Z"}, {"type", type}, {"step", step}, {"data", data}};
    if (!tool.empty())
        event["tool"] = tool;
    for (auto it = envelope.begin(); it != envelope.end(); ++it)
        event[it.key()] = it.value();
    return event;
}

// Applies events; returns what each changed of the cards before it.
std::vector<std::vector<std::size_t>> fold(TimelineFold& timeline, const std::vector<json>& events) {
    std::vector<std::vector<std::size_t>> changed;
    for (const json& event : events) {
        auto read = readEvent(event);
        if (!read)
            qFatal("unreadable: %s", read.error().message.c_str());
        changed.push_back(timeline.apply(*read));
    }
    return changed;
}

QString titles(const TimelineFold& timeline) {
    QStringList all;
    for (const auto& card : timeline.cards())
        all << QString::fromStdString(card.title);
    return all.join(QStringLiteral(" | "));
}

} // namespace

class TestTimelineFold : public QObject {
    Q_OBJECT

private slots:
    void subAgentsHaveTheirOwnCardsAndStatus() {
        TimelineFold timeline("Split the work");
        const json sub = {{"agent", "agent-1"}};
        fold(timeline, {ev("step_started", json::object(), 1),
                        ev("tool_call", {{"id", "c1"}, {"arguments", {{"brief", "Write a.txt"}}}}, 1, "spawn_agent"),
                        ev("agent_started", {{"parent", nullptr}, {"call_id", "c1"}, {"role", "worker"},
                                             {"brief", "Write a.txt"}, {"depth", 1}}, 0, {}, sub),
                        ev("step_started", json::object(), 1, {}, sub),
                        // The same call id as the task's agent's: each agent's ids are its own.
                        ev("tool_call", {{"id", "c1"}, {"arguments", {{"path", "a.txt"}, {"content", "x"}}}}, 1,
                           "write_file", sub),
                        ev("tool_result", {{"id", "c1"}, {"exit_code", 0}, {"truncated", false}, {"output", "ok"}}, 1,
                           "write_file", sub)});
        const auto& cards = timeline.cards();
        QCOMPARE(cards.size(), std::size_t(6));
        QCOMPARE(cards[3].kind, Kind::Agent);
        QCOMPARE(cards[3].title, std::string("agent-1 (worker)"));
        QCOMPARE(cards[3].parentCard, std::size_t(2));
        QCOMPARE(cards[3].state, State::Running);
        QCOMPARE(cards[4].title, std::string("agent-1 \xC2\xB7 Step 1"));
        QCOMPARE(cards[4].depth, std::uint64_t(1));
        QCOMPARE(cards[5].agent, std::string("agent-1"));
        QCOMPARE(cards[5].state, State::Succeeded);
        QCOMPARE(cards[2].state, State::Running); // the task's own c1 is still waiting for its result
        // Its work is folded into its card, which says what it is doing; the task's own cards are not.
        QCOMPARE(cards[4].agentCard, std::size_t(3));
        QCOMPARE(cards[5].agentCard, std::size_t(3));
        QCOMPARE(cards[3].members, std::size_t(2));
        QCOMPARE(cards[2].agentCard, std::size_t(0));
        QCOMPARE(cards[3].agentCard, std::size_t(0));
        QCOMPARE(cards[3].detail, std::string("running \xC2\xB7 step 1 \xC2\xB7 1 call \xC2\xB7 last: ") + cards[5].title);
        const auto changed = fold(timeline, {ev("agent_finished", {{"reason", "finished"}, {"summary", "wrote it"},
                                                                    {"files", {"a.txt"}}}, 1, {}, sub)});
        QCOMPARE(changed[0], (std::vector<std::size_t>{3}));
        QCOMPARE(cards[3].state, State::Succeeded);
        QCOMPARE(cards[3].detail, std::string("finished \xC2\xB7 1 call \xC2\xB7 changed a.txt"));
        QCOMPARE(cards[3].prose, std::string("Write a.txt\n\nwrote it"));
        QCOMPARE(timeline.counters().subagents, std::uint64_t(1));
        QCOMPARE(timeline.counters().steps, std::uint64_t(1));
    }

    // A sub-agent started by a sub-agent is part of its parent's work, and its own work is its own.
    void nestedSubAgentsFoldIntoTheirParent() {
        TimelineFold timeline("Split the work twice");
        const json first = {{"agent", "agent-1"}};
        const json second = {{"agent", "agent-2"}};
        fold(timeline, {ev("tool_call", {{"id", "c1"}, {"arguments", {{"brief", "Plan it"}}}}, 1, "spawn_agent"),
                        ev("agent_started", {{"parent", nullptr}, {"call_id", "c1"}, {"role", "worker"},
                                             {"brief", "Plan it"}, {"depth", 1}}, 0, {}, first),
                        ev("tool_call", {{"id", "c1"}, {"arguments", {{"brief", "Look"}}}}, 1, "spawn_agent", first),
                        ev("agent_started", {{"parent", "agent-1"}, {"call_id", "c1"}, {"role", "explorer"},
                                             {"brief", "Look"}, {"depth", 2}}, 0, {}, second),
                        ev("step_started", json::object(), 1, {}, second),
                        ev("step_started", json::object(), 2, {}, first)});
        const auto& cards = timeline.cards();
        QCOMPARE(cards.size(), std::size_t(7));
        QCOMPARE(cards[2].title, std::string("agent-1 (worker)"));
        QCOMPARE(cards[4].title, std::string("agent-2 (explorer)"));
        QCOMPARE(cards[2].agentCard, std::size_t(0));
        QCOMPARE(cards[3].agentCard, std::size_t(2)); // agent-1's call
        QCOMPARE(cards[4].agentCard, std::size_t(2)); // agent-2's card, in agent-1's work
        QCOMPARE(cards[4].parentCard, std::size_t(3));
        QCOMPARE(cards[5].agentCard, std::size_t(4));
        QCOMPARE(cards[6].agentCard, std::size_t(2));
        QCOMPARE(cards[2].members, std::size_t(3));
        QCOMPARE(cards[4].members, std::size_t(1));
        QCOMPARE(cards[4].depth, std::uint64_t(2));
        QCOMPARE(cards[2].detail, std::string("running \xC2\xB7 step 2 \xC2\xB7 1 call \xC2\xB7 last: ") + cards[3].title);
        QCOMPARE(cards[4].detail, std::string("running \xC2\xB7 step 1"));
    }

    void describesCalls_data() {
        QTest::addColumn<std::string>("tool");
        QTest::addColumn<std::string>("arguments");
        QTest::addColumn<QString>("description");

        QTest::newRow("shell") << std::string("shell") << std::string(R"({"command":"ls -la"})")
                               << "$ ls -la";
        QTest::newRow("shell, two lines")
            << std::string("shell") << std::string(R"({"command":"a\nb"})") << "$ a …";
        QTest::newRow("write_file") << std::string("write_file")
                                    << std::string(R"({"path":"a.txt","content":"x"})") << "write a.txt";
        QTest::newRow("edit_file") << std::string("edit_file") << std::string(R"({"path":"a.c"})")
                                   << "edit a.c";
        QTest::newRow("read_file") << std::string("read_file") << std::string(R"({"path":"a.c"})")
                                   << "read a.c";
        QTest::newRow("list_files without a path")
            << std::string("list_files") << std::string("{}") << "list .";
        QTest::newRow("search in a path")
            << std::string("search") << std::string(R"({"pattern":"TODO","path":"src"})")
            << "search TODO in src";
        QTest::newRow("memory_save") << std::string("memory_save")
                                     << std::string(R"({"key":"k","value":"v"})") << "remember k";
        QTest::newRow("memory_load") << std::string("memory_load") << std::string(R"({"key":"k"})")
                                     << "recall k";
        QTest::newRow("spawn_agent") << std::string("spawn_agent")
                                     << std::string(R"({"brief":"Write the tests\nfor the parser"})")
                                     << "start worker: Write the tests \xE2\x80\xA6";
        QTest::newRow("spawn_agent, a role") << std::string("spawn_agent")
                                             << std::string(R"({"brief":"Look","role":"explorer"})")
                                             << "start explorer: Look";
        QTest::newRow("wait_agents") << std::string("wait_agents") << std::string("{}") << "wait for the agents";
        QTest::newRow("wait_agents, named") << std::string("wait_agents")
                                            << std::string(R"({"agents":["agent-1","agent-2"]})")
                                            << "wait for agent-1, agent-2";
        QTest::newRow("send_agent") << std::string("send_agent")
                                    << std::string(R"({"agent":"agent-2","message":"Use pytest"})")
                                    << "tell agent-2: Use pytest";
        QTest::newRow("close_agent") << std::string("close_agent") << std::string(R"({"agent":"agent-2"})")
                                     << "close agent-2";
        QTest::newRow("memory_search") << std::string("memory_search") << std::string(R"({"query":"build"})")
                                       << "search memory for build";
        QTest::newRow("apply_patch names its files")
            << std::string("apply_patch")
            << std::string(R"({"input":"*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** End Patch"})")
            << "patch a, b";
        QTest::newRow("apply_patch past three files")
            << std::string("apply_patch")
            << std::string(R"({"input":"*** Begin Patch\n*** Delete File: a\n*** Delete File: b\n)"
                           R"(*** Delete File: c\n*** Delete File: d\n*** Delete File: e\n*** End Patch"})")
            << "patch a, b, c +2 more";
        QTest::newRow("apply_patch not readable")
            << std::string("apply_patch") << std::string(R"({"input":"diff --git a/x b/x"})")
            << "patch (not readable)";
        QTest::newRow("update_plan") << std::string("update_plan")
                                     << std::string(R"({"plan":[{"step":"a","status":"pending"}]})")
                                     << "update plan (1 step)";
        QTest::newRow("another tool")
            << std::string("deploy") << std::string(R"({"to":"prod"})") << R"(deploy {"to":"prod"})";
        // The coding-agent CLIs' calls (docs/AGENT.md "A CLI agent"), with the names the CLIs give them.
        QTest::newRow("Claude Code's Bash") << std::string("Bash")
                                            << std::string(R"({"command":"make test","description":"tests"})")
                                            << "$ make test";
        QTest::newRow("Claude Code's Edit") << std::string("Edit")
                                            << std::string(R"({"file_path":"/workspace/src/a.c","old_string":"a"})")
                                            << "edit src/a.c";
        QTest::newRow("Claude Code's Write outside the workspace")
            << std::string("Write") << std::string(R"({"file_path":"/tmp/x","content":""})") << "write /tmp/x";
        QTest::newRow("Claude Code's Read") << std::string("Read") << std::string(R"({"file_path":"/workspace/a"})")
                                            << "read a";
        QTest::newRow("Claude Code's Grep") << std::string("Grep")
                                            << std::string(R"({"pattern":"TODO","path":"/workspace/src"})")
                                            << "search TODO in src";
        QTest::newRow("Claude Code's TodoWrite") << std::string("TodoWrite")
                                                 << std::string(R"({"todos":[{"content":"a"},{"content":"b"}]})")
                                                 << "update plan (2 steps)";
        QTest::newRow("Codex's command") << std::string("command_execution")
                                         << std::string(R"({"command":"/bin/bash -lc 'make test'"})")
                                         << "$ /bin/bash -lc 'make test'";
        QTest::newRow("Codex's file change")
            << std::string("file_change")
            << std::string(R"({"changes":[{"path":"/workspace/a.txt","kind":"add"},{"path":"b.txt","kind":"update"}]})")
            << "add a.txt, update b.txt";
        QTest::newRow("a skill") << std::string("skill") << std::string(R"({"name":"run-tests"})") << "use skill run-tests";
        QTest::newRow("a skill's file") << std::string("skill")
                                        << std::string(R"({"name":"run-tests","file":"scripts/check.sh"})")
                                        << "use skill run-tests: scripts/check.sh";
        QTest::newRow("an MCP server's tool") << std::string("mcp__github__create_issue")
                                              << std::string(R"({"title":"Crash on start"})")
                                              << R"(github: create_issue {"title":"Crash on start"})";
        QTest::newRow("an MCP tool without arguments") << std::string("mcp__probe__where") << std::string("{}")
                                                       << "probe: where";
        QTest::newRow("not quite an MCP name") << std::string("mcp__only") << std::string("{}") << "mcp__only {}";
        QTest::newRow("Claude Code's Bash without a command")
            << std::string("Bash") << std::string(R"({"cmd":"ls"})") << R"(Bash {"cmd":"ls"})";
    }

    void describesCalls() {
        QFETCH(std::string, tool);
        QFETCH(std::string, arguments);
        QFETCH(QString, description);
        QCOMPARE(QString::fromStdString(describeCall(tool, json::parse(arguments)).title), description);
    }

    // What the terminal prints after the tool's name, and what a card keeps as its arguments.
    void describesWhatCallsActOn_data() {
        QTest::addColumn<std::string>("tool");
        QTest::addColumn<std::string>("arguments");
        QTest::addColumn<QString>("actedOn");

        QTest::newRow("shell, two lines whole")
            << std::string("shell") << std::string(R"({"command":"cd src\nmake"})") << "cd src\nmake";
        QTest::newRow("shell without a command")
            << std::string("shell") << std::string(R"({"cmd":"ls"})") << R"({"cmd":"ls"})";
        QTest::newRow("read_file, other arguments left out")
            << std::string("read_file") << std::string(R"({"path":"a.c","offset":10})") << "a.c";
        QTest::newRow("write_file counts the bytes it writes")
            << std::string("write_file") << std::string(R"({"path":"a","content":"hi\n"})") << "a (3 bytes)";
        QTest::newRow("write_file of one byte")
            << std::string("write_file") << std::string(R"({"path":"a","content":"x"})") << "a (1 byte)";
        QTest::newRow("write_file of thousands of bytes")
            << std::string("write_file")
            << std::string(R"({"path":"a","content":")" + std::string(1234, 'x') + R"("})")
            << "a (1,234 bytes)";
        QTest::newRow("apply_patch shows the patch")
            << std::string("apply_patch") << std::string(R"({"input":"*** Begin Patch\n*** Delete File: a\n*** End Patch"})")
            << "*** Begin Patch\n*** Delete File: a\n*** End Patch";
        QTest::newRow("write_file without a path")
            << std::string("write_file") << std::string(R"({"content":"x"})") << R"({"content":"x"})";
        QTest::newRow("Claude Code's Bash as shell")
            << std::string("Bash") << std::string(R"({"command":"make test","description":"run the tests"})")
            << "make test";
        QTest::newRow("Claude Code's Write relative to the workspace")
            << std::string("Write") << std::string(R"({"file_path":"/workspace/a.txt","content":"hi\n"})")
            << "a.txt (3 bytes)";
        QTest::newRow("Codex's command")
            << std::string("command_execution") << std::string(R"({"command":"/bin/bash -lc ls"})")
            << "/bin/bash -lc ls";
        QTest::newRow("search in a path")
            << std::string("search") << std::string(R"({"pattern":"TODO","path":"src"})") << "TODO in src";
        QTest::newRow("search without a pattern")
            << std::string("search") << std::string(R"({"path":"src"})") << R"({"path":"src"})";
        QTest::newRow("list_files without arguments")
            << std::string("list_files") << std::string("{}") << ".";
        QTest::newRow("list_files with others but no path")
            << std::string("list_files") << std::string(R"({"depth":2})") << R"({"depth":2})";
        QTest::newRow("skill: its name") << std::string("skill") << std::string(R"({"name":"pdf"})") << "pdf";
        QTest::newRow("skill: one of its files")
            << std::string("skill") << std::string(R"({"name":"pdf","file":"forms.md"})") << "pdf: forms.md";
        QTest::newRow("a memory tool shows its arguments")
            << std::string("memory_save") << std::string(R"({"key":"k","value":"v"})")
            << R"({"key":"k","value":"v"})";
    }

    void describesWhatCallsActOn() {
        QFETCH(std::string, tool);
        QFETCH(std::string, arguments);
        QFETCH(QString, actedOn);
        QCOMPARE(QString::fromStdString(describeCall(tool, json::parse(arguments)).arguments), actedOn);
    }

    void callCardsKeepWhatTheCallActsOn() {
        TimelineFold timeline;
        fold(timeline, {ev("tool_call", {{"id", "c1"}, {"arguments", {{"path", "a"}, {"content", "xy"}}}}, 1,
                           "write_file"),
                        ev("approval_requested",
                           {{"id", "c2"}, {"arguments", {{"command", "rm -r b"}}}, {"reason", "deletes"}}, 1,
                           "shell")});
        QCOMPARE(timeline.cards()[1].arguments, std::string("a (2 bytes)"));
        QCOMPARE(timeline.cards()[2].arguments, std::string("rm -r b"));
    }

    void eventsBecomeCardsInOrder() {
        TimelineFold timeline("Fix it");
        fold(timeline, {ev("task_started", {{"task_id", "t"}, {"prompt", "Fix it"}}, 0),
                        ev("step_started", json::object()), ev("model_delta", {{"text", "Let me "}}),
                        ev("model_delta", {{"text", "look."}}),
                        ev("model_response", {{"content", "Let me look."}, {"tool_calls", json::array()}}, 1,
                           {}, {{"token_usage", {{"input", 120}, {"output", 9}}}}),
                        ev("tool_call", {{"id", "c1"}, {"arguments", {{"command", "ls"}}}}, 1, "shell"),
                        ev("tool_output", {{"id", "c1"}, {"stream", "stdout"}, {"text", "a\n"}}, 1, "shell"),
                        ev("tool_output", {{"id", "c1"}, {"stream", "stderr"}, {"text", "b\n"}}, 1, "shell"),
                        ev("tool_result", {{"id", "c1"}, {"exit_code", 0}, {"output", "a\nb\n"}}, 1, "shell",
                           {{"duration_ms", 2400}}),
                        ev("checkpoint", {{"path", "/state/x"}, {"bytes", 100}}),
                        ev("task_finished", {{"reason", "finished"}, {"summary", "All good"}})});
        QCOMPARE(titles(timeline), QStringLiteral("Task | Step 1 |  | $ ls | checkpoint saved | Finished"));
        const auto& cards = timeline.cards();
        QCOMPARE(cards[0].prose, std::string("Fix it"));
        QCOMPARE(cards[2].kind, Kind::ModelText);
        QCOMPARE(cards[2].prose, std::string("Let me look."));
        QCOMPARE(cards[2].detail, std::string("120 tokens in, 9 out"));
        QCOMPARE(cards[2].state, State::Plain);
        QCOMPARE(cards[3].body, std::string("a\nb\n")); // both streams, in arrival order
        QCOMPARE(cards[3].detail, std::string("exit 0 · 2.4 s"));
        QCOMPARE(cards[3].state, State::Succeeded);
        QCOMPARE(cards[4].detail, std::string("100 bytes"));
        QCOMPARE(cards[5].prose, std::string("All good"));
    }

    // What each event changed of the cards already there: what a Qt model turns into dataChanged.
    void reportsWhatEachEventChanged() {
        TimelineFold timeline;
        const auto changed =
            fold(timeline, {ev("tool_call", {{"id", "c1"}, {"arguments", {{"command", "x"}}}}, 1, "shell"),
                            ev("tool_output", {{"id", "c1"}, {"stream", "stdout"}, {"text", "1"}}),
                            ev("tool_output", {{"id", "c9"}, {"stream", "stdout"}, {"text", "lost"}}),
                            ev("model_delta", {{"text", "Hi"}}), ev("model_delta", {{"text", "!"}}),
                            ev("tool_call", {{"id", "c2"}, {"arguments", {{"command", "y"}}}}, 1, "shell"),
                            ev("task_finished", {{"reason", "cancelled"}, {"summary", nullptr}})});
        // c9's output makes its own card (2): its call is not among the events the fold has seen.
        const std::vector<std::vector<std::size_t>> expected{{}, {1}, {}, {3}, {3}, {}, {1, 4, 2}};
        QCOMPARE(changed, expected);
        QCOMPARE(timeline.cards()[1].state, State::Failed);
        QCOMPARE(timeline.cards()[1].detail, std::string("did not finish"));
        QCOMPARE(timeline.cards()[2].body, std::string("lost"));
        QCOMPARE(timeline.cards()[5].title, std::string("Cancelled"));
    }

    // A window shows a long task from its latest events: folded from any event on, nothing the events
    // say is lost, and each call's output, result and answer stay on one card.
    void startsAnywhereInATask() {
        const std::vector<json> events{
            ev("step_started", json::object(), 1),
            ev("model_delta", {{"text", "Let me "}}),
            ev("model_delta", {{"text", "look."}}),
            ev("model_response", {{"content", "Let me look."}, {"tool_calls", json::array()}}, 1, {},
               {{"token_usage", {{"input", 10}, {"output", 4}}}}),
            ev("tool_call", {{"id", "c1"}, {"arguments", {{"command", "make"}}}}, 1, "shell"),
            ev("tool_output", {{"id", "c1"}, {"stream", "stdout"}, {"text", "one\n"}}, 1, "shell"),
            ev("tool_output", {{"id", "c1"}, {"stream", "stdout"}, {"text", "two\n"}}, 1, "shell"),
            ev("tool_result", {{"id", "c1"}, {"exit_code", 0}, {"output", "one\ntwo\n"}}, 1, "shell",
               {{"duration_ms", 5}}),
            ev("approval_requested", {{"id", "c2"}, {"arguments", {{"command", "rm x"}}}, {"reason", "risky"}}, 2,
               "shell"),
            ev("approval_resolved", {{"id", "c2"}, {"approved", true}, {"note", "ok"}}, 2, "shell"),
            ev("tool_call", {{"id", "c2"}, {"arguments", {{"command", "rm x"}}}}, 2, "shell"),
            ev("tool_result", {{"id", "c2"}, {"exit_code", 1}, {"output", "no x"}}, 2, "shell"),
            ev("task_finished", {{"reason", "finished"}, {"summary", "done"}}, 2)};
        for (std::size_t start = 0; start < events.size(); ++start) {
            TimelineFold timeline;
            fold(timeline, std::vector<json>(events.begin() + static_cast<std::ptrdiff_t>(start), events.end()));
            std::map<std::string, int> callCards;
            std::string bodies, prose, details;
            for (const auto& card : timeline.cards()) {
                if (card.kind == Kind::ToolCall)
                    ++callCards[card.callId];
                bodies += card.body + "|";
                prose += card.prose + "|";
                details += card.detail + "|";
            }
            const QByteArray from = QByteArray::number(static_cast<qulonglong>(start));
            for (const auto& [id, count] : callCards)
                QVERIFY2(count == 1, from + ": two cards for " + QByteArray::fromStdString(id));
            if (start <= 7)
                QVERIFY2(bodies.find("two\n") != std::string::npos, from + ": " + QByteArray::fromStdString(bodies));
            if (start <= 5)
                QVERIFY2(bodies.find("one\ntwo\n") != std::string::npos, from);
            if (start <= 3)
                QVERIFY2(prose.find("Let me look.") != std::string::npos, from);
            if (start <= 9)
                QVERIFY2(details.find("approved \xE2\x80\x94 ok") != std::string::npos,
                         from + ": " + QByteArray::fromStdString(details));
            if (start <= 11) { // c2's result, whatever came before it
                QVERIFY2(details.find("exit 1") != std::string::npos, from);
                QVERIFY2(bodies.find("no x") != std::string::npos, from);
            }
            QCOMPARE(timeline.cards().back().kind, Kind::Finished);
            // The counters count what the fold saw: a window adds what came before (TaskCounters::prepend).
            QCOMPARE(timeline.counters().tokensIn, start <= 3 ? std::uint64_t(10) : std::uint64_t(0));
        }
    }

    void resultsOfCalls_data() {
        QTest::addColumn<std::string>("result");
        QTest::addColumn<std::string>("detail");
        QTest::addColumn<int>("state");

        QTest::newRow("exit 1") << std::string(R"({"id":"c1","exit_code":1})") << std::string("exit 1")
                                << int(State::Failed);
        QTest::newRow("denied") << std::string(R"({"id":"c1","exit_code":null,"denied":true})")
                                << std::string("denied") << int(State::Failed);
        QTest::newRow("timed out") << std::string(R"({"id":"c1","exit_code":124,"timed_out":true})")
                                   << std::string("timed out") << int(State::Failed);
        QTest::newRow("interrupted") << std::string(R"({"id":"c1","exit_code":null,"interrupted":true})")
                                     << std::string("interrupted") << int(State::Failed);
        QTest::newRow("cached") << std::string(R"({"id":"c1","exit_code":0,"cached":true})")
                                << std::string("exit 0 · cached") << int(State::Succeeded);
    }

    void resultsOfCalls() {
        QFETCH(std::string, result);
        QFETCH(std::string, detail);
        QFETCH(int, state);
        TimelineFold timeline;
        fold(timeline, {ev("tool_call", {{"id", "c1"}, {"arguments", {{"path", "a"}}}}, 1, "read_file"),
                        ev("tool_result", json::parse(result), 1, "read_file")});
        QCOMPARE(timeline.cards()[1].detail, detail);
        QCOMPARE(int(timeline.cards()[1].state), state);
    }

    // A tool that printed nothing shows what the model read.
    void aQuietCallShowsItsOutput() {
        TimelineFold timeline;
        fold(timeline,
             {ev("tool_call", {{"id", "c1"}, {"arguments", {{"path", "a"}}}}, 1, "read_file"),
              ev("tool_result", {{"id", "c1"}, {"exit_code", 0}, {"output", "content"}}, 1, "read_file")});
        QCOMPARE(timeline.cards()[1].body, std::string("content"));
    }

    void fileChanges() {
        TimelineFold timeline;
        fold(timeline, {ev("file_changed",
                           {{"path", "a.txt"},
                            {"change", "modified"},
                            {"diff", "-a\n+b\n"},
                            {"added", 1},
                            {"removed", 1},
                            {"diff_truncated", true}},
                           1, "edit_file"),
                        ev("file_changed", {{"path", "b.bin"}, {"change", "created"}, {"binary", true}}),
                        ev("file_changed", {{"path", "a.txt"}, {"change", "deleted"}})});
        const auto& cards = timeline.cards();
        QCOMPARE(cards[1].title, std::string("changed a.txt"));
        QCOMPARE(cards[1].detail, std::string("+1 −1"));
        QCOMPARE(cards[1].bodyKind, TimelineCard::Body::Diff);
        QCOMPARE(cards[1].body, std::string("-a\n+b\n"));
        QVERIFY(cards[1].diffTruncated);
        QCOMPARE(cards[2].title, std::string("created b.bin"));
        QCOMPARE(cards[2].detail, std::string("binary file"));
        QCOMPARE(cards[3].title, std::string("deleted a.txt"));
        QCOMPARE(timeline.lastChangeOf("a.txt"), std::optional<std::size_t>(3));
        QCOMPARE(timeline.lastChangeOf("c.txt"), std::nullopt);
        const auto& files = timeline.counters().files;
        QCOMPARE(files.at("a.txt").change, std::string("deleted"));
        QCOMPARE(files.at("a.txt").added, 1u);
        QCOMPARE(files.at("b.bin").change, std::string("created"));
    }

    void approvals_data() {
        QTest::addColumn<std::string>("tool");
        QTest::addColumn<std::string>("arguments");
        QTest::addColumn<std::string>("title");
        QTest::addColumn<std::string>("prefix");

        QTest::newRow("plain command")
            << std::string("shell") << std::string(R"({"command":"npm test -- -w"})")
            << std::string("$ npm test -- -w") << std::string("npm test");
        QTest::newRow("chained command")
            << std::string("shell") << std::string(R"({"command":"make && make install"})")
            << std::string("$ make && make install") << std::string();
        QTest::newRow("not a shell call") << std::string("write_file") << std::string(R"({"path":"src/a.c"})")
                                          << std::string("write src/a.c") << std::string();
    }

    void approvals() {
        QFETCH(std::string, tool);
        QFETCH(std::string, arguments);
        QFETCH(std::string, title);
        QFETCH(std::string, prefix);
        TimelineFold timeline;
        const auto changed = fold(
            timeline,
            {ev("approval_requested",
                {{"id", "c1"}, {"arguments", json::parse(arguments)}, {"reason", "risky"}}, 1, tool),
             ev("approval_resolved", {{"id", "c1"}, {"approved", false}, {"note", "not now"}}, 1, tool)});
        const TimelineCard& card = timeline.cards()[1];
        QCOMPARE(card.title, title);
        QCOMPARE(card.commandPrefix, prefix);
        QCOMPARE(card.state, State::Denied);
        QCOMPARE(card.detail, std::string("denied — not now"));
        QCOMPARE(changed.back(), std::vector<std::size_t>{1});
    }

    void notices_data() {
        QTest::addColumn<std::string>("type");
        QTest::addColumn<std::string>("data");
        QTest::addColumn<std::string>("title");
        QTest::addColumn<std::string>("detail");
        QTest::addColumn<int>("state");

        QTest::newRow("resumed") << std::string("task_resumed")
                                 << std::string(R"({"from_step":3,"interrupted_tool_call":"c7"})")
                                 << std::string("Resumed from its checkpoint at step 3")
                                 << std::string("the call that was running (c7) is reported to the model as "
                                                "interrupted")
                                 << int(State::Plain);
        QTest::newRow("hook") << std::string("hook")
                              << std::string(R"({"name":"on_low_memory","command":null,"exit_code":null,)"
                                             R"("detail":"rss 500 MB"})")
                              << std::string("hook on_low_memory") << std::string("rss 500 MB")
                              << int(State::Plain);
        QTest::newRow("guard") << std::string("guard")
                               << std::string(R"({"guard":"max_steps","action":"stop","detail":"50 steps"})")
                               << std::string("guard max_steps: stop") << std::string("50 steps")
                               << int(State::Warning);
        QTest::newRow("fatal error") << std::string("error")
                                     << std::string(R"({"message":"gone","fatal":true})")
                                     << std::string("gone") << std::string() << int(State::Failed);
        QTest::newRow("warning log") << std::string("log")
                                     << std::string(R"({"level":"warn","message":"slow"})")
                                     << std::string("slow") << std::string() << int(State::Warning);
        // The run's setup (protocol/SetupNotices.h), in the user's words whatever the level.
        QTest::newRow("skills offered")
            << std::string("log") << std::string(R"({"level":"info","message":"skills offered: pdf, run-tests"})")
            << std::string("2 skills offered: pdf, run-tests")
            << std::string("the agent reads a skill when the task calls for it") << int(State::Plain);
        QTest::newRow("one skill offered")
            << std::string("log") << std::string(R"({"level":"info","message":"skills offered: pdf"})")
            << std::string("1 skill offered: pdf") << std::string("the agent reads a skill when the task calls for it")
            << int(State::Plain);
        QTest::newRow("skills changed")
            << std::string("log")
            << std::string(R"({"level":"info","message":"skills changed: added a, b; changed c; removed d"})")
            << std::string("Skills changed: a, b added; c updated; d removed")
            << std::string("the agent sees the change at its next step") << int(State::Plain);
        QTest::newRow("an info line that only looks like skills")
            << std::string("log") << std::string(R"({"level":"warn","message":"skills offered: Not A Name"})")
            << std::string("skills offered: Not A Name") << std::string() << int(State::Warning);
        QTest::newRow("an MCP server started")
            << std::string("log")
            << json{{"level", "info"}, {"message", "MCP server \"fs\" (secure-filesystem-server 0.2.0) started with 14 tools"}}.dump()
            << std::string("MCP server fs (secure-filesystem-server 0.2.0) started with 14 tools") << std::string()
            << int(State::Plain);
        QTest::newRow("an MCP server left out")
            << std::string("log")
            << json{{"level", "warn"},
                 {"message", "MCP server \"docs\" (http, https://x/mcp) skipped: remote MCP servers are not supported yet"}}
                   .dump()
            << std::string("MCP server docs (http, https://x/mcp) skipped: remote MCP servers are not supported yet")
            << std::string() << int(State::Warning);
        QTest::newRow("an MCP server that failed")
            << std::string("error")
            << json{{"message", "MCP server \"gh\" could not be started: cannot start gh-mcp: No such file or directory"},
                 {"fatal", false}}
                   .dump()
            << std::string("MCP server gh is unavailable")
            << std::string("could not be started: cannot start gh-mcp: No such file or directory; the task goes on "
                           "without its tools")
            << int(State::Warning);
        QTest::newRow("an MCP server that stopped answering")
            << std::string("error")
            << json{{"message", "MCP server \"gh\": its tools could not be listed: timed out"}, {"fatal", false}}.dump()
            << std::string("MCP server gh is unavailable")
            << std::string("its tools could not be listed: timed out; the task goes on without its tools")
            << int(State::Warning);
        QTest::newRow("the workspace's .mcp.json unreadable")
            << std::string("error")
            << std::string(R"({"message":"MCP servers: /workspace/.mcp.json: not JSON; none of its servers was started","fatal":false})")
            << std::string("MCP servers: /workspace/.mcp.json: not JSON; none of its servers was started")
            << std::string() << int(State::Warning);
        QTest::newRow("network allowed")
            << std::string("network_request")
            << std::string(
                   R"({"method":"CONNECT","host":"pypi.org","port":443,"allowed":true,"address":"1.2.3.4"})")
            << std::string("network: CONNECT pypi.org:443") << std::string("1.2.3.4") << int(State::Plain);
        QTest::newRow("network refused")
            << std::string("network_request")
            << std::string(
                   R"({"method":"GET","host":"evil","port":80,"allowed":false,"reason":"not listed"})")
            << std::string("network refused: GET evil:80") << std::string("not listed")
            << int(State::Warning);
        QTest::newRow("model call")
            << std::string("model_call")
            << std::string(R"({"path":"/v1/messages","model":"claude-x","status":200,"input_tokens":1200,)"
                           R"("output_tokens":80,"duration_ms":2300,"first_byte_ms":400})")
            << std::string("model call: claude-x (200)") << std::string("1200 tokens in, 80 out, 2300 ms")
            << int(State::Plain);
        QTest::newRow("model call failed")
            << std::string("model_call")
            << std::string(R"({"path":"/v1/responses","model":"","status":502,"input_tokens":0,"output_tokens":0,)"
                           R"("duration_ms":3,"error":"could not reach the model server"})")
            << std::string("model call: /v1/responses (502)") << std::string("could not reach the model server")
            << int(State::Warning);
    }

    void notices() {
        QFETCH(std::string, type);
        QFETCH(std::string, data);
        QFETCH(std::string, title);
        QFETCH(std::string, detail);
        QFETCH(int, state);
        TimelineFold timeline;
        fold(timeline, {ev(type, json::parse(data))});
        QCOMPARE(timeline.cards().size(), std::size_t(2));
        QCOMPARE(timeline.cards()[1].kind, Kind::Notice);
        QCOMPARE(timeline.cards()[1].title, title);
        QCOMPARE(timeline.cards()[1].detail, detail);
        QCOMPARE(int(timeline.cards()[1].state), state);
    }

    // The user's reply reads as the prompt does: a card of its own, in the order it came.
    void aReplyIsACardLikeThePrompt() {
        TimelineFold timeline("make hello.txt");
        fold(timeline, {ev("task_finished", {{"reason", "finished"}, {"summary", "done"}}, 2),
                        ev("task_resumed", {{"from_step", 2}, {"interrupted_tool_call", nullptr}}, 2),
                        ev("user_message", {{"text", "also bye.txt\nplease"}}, 2)});
        const TimelineCard& reply = timeline.cards().back();
        QCOMPARE(reply.kind, Kind::Task);
        QCOMPARE(reply.title, std::string("Your reply"));
        QCOMPARE(reply.prose, std::string("also bye.txt\nplease"));
        QCOMPARE(reply.step, std::uint64_t{2});
        QCOMPARE(timeline.cards().front().prose, std::string("make hello.txt"));
    }

    // Each plan update is a card: a line per step with its mark, done when every step is completed.
    void planUpdatesAreCards() {
        TimelineFold timeline;
        fold(timeline, {ev("plan_updated", {{"steps", json::array({{{"step", "Read"}, {"status", "completed"}},
                                                                   {{"step", "Fix"}, {"status", "in_progress"}},
                                                                   {{"step", "Test"}, {"status", "pending"}}})},
                                            {"explanation", "found the bug"}}),
                        ev("plan_updated", {{"steps", json::array({{{"step", "Read"}, {"status", "completed"}}})}})});
        QCOMPARE(timeline.cards().size(), std::size_t(3));
        const TimelineCard& first = timeline.cards()[1];
        QCOMPARE(first.kind, Kind::Plan);
        QCOMPARE(first.title, std::string("Plan"));
        QCOMPARE(first.detail, std::string("1 of 3 done"));
        QCOMPARE(first.prose, std::string("found the bug"));
        QCOMPARE(first.body, std::string("✓ Read\n▸ Fix\n○ Test"));
        QCOMPARE(int(first.bodyKind), int(TimelineCard::Body::Plain));
        QCOMPARE(int(first.state), int(State::Running));
        QCOMPARE(int(timeline.cards()[2].state), int(State::Succeeded));
    }

    void silentEventsMakeNoCard() {
        TimelineFold timeline;
        fold(timeline, {ev("log", {{"level", "info"}, {"message", "x"}}),
                        ev("resource_sample", {{"rss_bytes", 1}, {"cpu_ms", 1}}),
                        ev("task_started", {{"task_id", "t"}, {"prompt", "p"}})});
        QCOMPARE(timeline.cards().size(), std::size_t(1));
    }

    void countsActivity() {
        TimelineFold timeline;
        fold(timeline, {ev("resource_sample", {{"rss_bytes", 1000}, {"cpu_ms", 100}}, 1, {},
                           {{"ts", "2026-11-29T10:00:00.000Z"}}),
                        ev("resource_sample", {{"rss_bytes", 3000}, {"cpu_ms", 600}}, 1, {},
                           {{"ts", "2026-11-29T10:00:01.000Z"}}),
                        ev("model_response", {{"content", ""}}, 2, {},
                           {{"token_usage", {{"input", 50}, {"output", 7}}}}),
                        ev("tool_call", {{"id", "c"}, {"arguments", json::object()}}, 3, "shell"),
                        // a new run of the agent: its CPU clock starts again, no sample across the restart
                        ev("resource_sample", {{"rss_bytes", 500}, {"cpu_ms", 10}}, 3, {},
                           {{"ts", "2026-11-29T10:00:02.000Z"}})});
        const TaskCounters& counters = timeline.counters();
        QCOMPARE(counters.memoryBytes, (std::vector<double>{1000, 3000, 500}));
        QCOMPARE(counters.cpuPercent, (std::vector<double>{50.0}));
        QCOMPARE(counters.modelCalls, 1u);
        QCOMPARE(counters.toolCalls, 1u);
        QCOMPARE(counters.steps, 3u);
        QCOMPARE(counters.tokensIn, 50u);
        QCOMPARE(counters.tokensOut, 7u);
    }

    // A CLI agent's calls are counted from the model proxy's events; count_tokens is no model call.
    void countsTheModelProxysCalls() {
        TimelineFold timeline;
        const auto call = [](const char* path, int in, int out) {
            return ev("model_call", {{"path", path}, {"model", "m"}, {"status", 200}, {"input_tokens", in},
                                     {"output_tokens", out}, {"duration_ms", 5}});
        };
        fold(timeline, {call("/v1/messages", 100, 20), call("/v1/messages/count_tokens", 0, 0),
                        call("/v1/messages", 300, 40)});
        QCOMPARE(timeline.counters().modelCalls, 2u);
        QCOMPARE(timeline.counters().tokensIn, 400u);
        QCOMPARE(timeline.counters().tokensOut, 60u);
    }

    // Counted in two parts (the earlier events page by page, the shown ones in the fold) and put together,
    // the counters are those of one run over all the events, wherever the task is cut.
    void countersAddUpAcrossACut() {
        const std::vector<json> events{
            ev("resource_sample", {{"rss_bytes", 1000}, {"cpu_ms", 100}}, 1, {}, {{"ts", "2026-11-29T10:00:00.000Z"}}),
            ev("file_changed", {{"path", "a.txt"}, {"change", "created"}, {"added", 2}}, 1, "write_file"),
            ev("model_response", {{"content", "x"}, {"tool_calls", json::array()}}, 1, {},
               {{"token_usage", {{"input", 50}, {"output", 7}}}}),
            ev("resource_sample", {{"rss_bytes", 3000}, {"cpu_ms", 600}}, 2, {}, {{"ts", "2026-11-29T10:00:01.000Z"}}),
            ev("tool_call", {{"id", "c"}, {"arguments", json::object()}}, 2, "shell"),
            ev("file_changed", {{"path", "a.txt"}, {"change", "modified"}, {"added", 1}, {"removed", 1}}, 3,
               "edit_file"),
            ev("resource_sample", {{"rss_bytes", 2000}, {"cpu_ms", 700}}, 3, {}, {{"ts", "2026-11-29T10:00:03.000Z"}}),
            ev("model_response", {{"content", "y"}, {"tool_calls", json::array()}}, 3, {},
               {{"token_usage", {{"input", 5}, {"output", 1}}}})};
        TimelineFold whole;
        fold(whole, events);
        const TaskCounters& all = whole.counters();
        QCOMPARE(all.cpuPercent, (std::vector<double>{50.0, 5.0}));
        for (std::size_t cut = 0; cut <= events.size(); ++cut) {
            TimelineFold earlier, later;
            const auto at = events.begin() + static_cast<std::ptrdiff_t>(cut);
            fold(earlier, std::vector<json>(events.begin(), at));
            fold(later, std::vector<json>(at, events.end()));
            TaskCounters joined = later.counters();
            joined.prepend(earlier.counters());
            const QByteArray where = "cut at " + QByteArray::number(static_cast<qulonglong>(cut));
            QVERIFY2(joined.memoryBytes == all.memoryBytes, where);
            QVERIFY2(joined.cpuPercent == all.cpuPercent, where);
            QVERIFY2(joined.files == all.files, where);
            QVERIFY2(joined.modelCalls == all.modelCalls && joined.toolCalls == all.toolCalls, where);
            QVERIFY2(joined.steps == all.steps, where);
            QVERIFY2(joined.tokensIn == all.tokensIn && joined.tokensOut == all.tokensOut, where);
            // and once more in front, as a window counting page by page does: nothing counted twice
            TaskCounters again = joined;
            again.prepend(TaskCounters{});
            QVERIFY2(again.cpuPercent == all.cpuPercent && again.tokensIn == all.tokensIn, where);
        }
    }

    void refusesWhatTheProtocolRefuses_data() {
        QTest::addColumn<std::string>("event");
        QTest::addColumn<QString>("message");

        QTest::newRow("not an object") << std::string("[1]") << "event: must be an object, got an array";
        QTest::newRow("no type") << std::string(R"({"data":{}})") << "event.type: missing";
        QTest::newRow("unknown type")
            << std::string(R"({"type":"telepathy"})") << "event.type: unknown event type \"telepathy\"";
        QTest::newRow("negative step") << std::string(R"({"type":"step_started","step":-1,"data":{}})")
                                       << "event.step: must be a non-negative integer, got the integer -1";
        QTest::newRow("data is a string")
            << std::string(R"({"type":"log","data":"x"})") << "event.data: must be an object, got a string";
        QTest::newRow("mistyped field")
            << std::string(R"({"type":"tool_call","data":{"id":"c","arguments":[]}})")
            << "tool_call data.arguments: must be an object, got an array";
    }

    void refusesWhatTheProtocolRefuses() {
        QFETCH(std::string, event);
        QFETCH(QString, message);
        auto read = readEvent(json::parse(event));
        QVERIFY(!read);
        QCOMPARE(QString::fromStdString(read.error().message), message);
    }
};

QTEST_APPLESS_MAIN(TestTimelineFold)
#include "tst_timeline_fold.moc"
