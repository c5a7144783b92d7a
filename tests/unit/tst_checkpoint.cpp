// Checkpoint: the agent's state survives the round trip through its JSON form unchanged, and the strict
// reader refuses every deviation (unknown key, wrong type, another format version) naming the key.

#include "agent_core/state/Checkpoint.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;

namespace {

protocol::ToolCall call(std::string id, std::string name, json arguments) {
    return protocol::ToolCall{std::move(id), std::move(name), std::move(arguments)};
}

// A state with every field set to something other than its default.
AgentState fullState() {
    AgentState state;
    state.taskId = "task-7";
    state.prompt = "Fix the build\nand add a test";
    state.presets = {"safe-mode", "long-term-memory"};
    state.overrides = {{"max_steps", 20}, {"tools", {"shell", "read_file"}}};
    state.step = 4;
    state.nextSeq = 58;
    state.messages = {
        {"system", "You are an agent.", {}, std::nullopt},
        {"user", "Fix the build", {}, std::nullopt},
        {"assistant", "Looking.", {call("call_0_0", "shell", {{"command", "make"}})}, std::nullopt},
        {"tool", "make: *** [all] Error 2", {}, std::string("call_0_0")},
    };
    state.pendingCalls = {call("call_3_1", "read_file", {{"path", "Makefile"}}),
                          call("call_3_2", "list_files", json::object())};
    state.runningCall = call("call_3_0", "shell", {{"command", "make -j2"}, {"timeout_sec", 60}});
    state.recentCallKeys = {"shell:{\"command\":\"make\"}", "read_file:{\"path\":\"Makefile\"}"};
    state.loopWarned = true;
    state.askedCall = "call_3_1";
    state.counters.steps = 4;
    state.counters.modelCalls = 5;
    state.counters.tokensIn = 12000;
    state.counters.tokensOut = 800;
    state.counters.cacheHits = 2;
    state.counters.checkpoints = 4;
    state.counters.bytesWritten = 1234;
    state.counters.resumes = 1;
    state.counters.interruptedCalls = 1;
    state.counters.wallMs = 65000;
    state.counters.cpuMs = 3100;
    state.counters.peakRssBytes = 52428800;
    state.counters.toolCalls = {{"shell", 3}, {"read_file", 1}};
    state.extra = {{"script", {{"next_turn", 5}}}};
    return state;
}

} // namespace

class TestCheckpoint : public QObject {
    Q_OBJECT

private slots:
    void roundTrips_data() {
        QTest::addColumn<int>("which");
        QTest::newRow("every field set") << 0;
        QTest::newRow("a fresh task's state") << 1;
        QTest::newRow("no running call, counters near the 64-bit limit") << 2;
        QTest::newRow("unicode and empty strings") << 3;
    }

    void roundTrips() {
        QFETCH(int, which);
        AgentState state;
        if (which == 0) {
            state = fullState();
        } else if (which == 2) {
            state = fullState();
            state.runningCall.reset();
            state.counters.tokensIn = std::numeric_limits<std::uint64_t>::max();
            state.nextSeq = std::numeric_limits<std::uint64_t>::max() - 1;
        } else if (which == 3) {
            state.taskId = "";
            state.prompt = "Grüße, 世界 — \"quoted\" \\ \t";
            state.messages = {{"assistant", "", {}, std::nullopt}};
            state.counters.toolCalls = {{"memory_save", 0}};
        }
        // Through text, as on disk.
        const auto text = toJson(state).dump();
        const auto read = agentStateFromJson(json::parse(text));
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QVERIFY(read.value() == state);
    }

    void writesFormatVersion() {
        const json written = toJson(AgentState{});
        QCOMPARE(written.at("format").get<std::uint64_t>(), kCheckpointFormat);
        QCOMPARE(kCheckpointFormat, std::uint64_t(1));
        QVERIFY(written.at("running_call").is_null());
        QVERIFY(!written.contains("asked_call")); // written only when there is one: older agents read it
    }

    void countersHaveSnakeCaseKeys() {
        const json written = toJson(fullState().counters);
        QStringList keys;
        for (const auto& item : written.items())
            keys << QString::fromStdString(item.key());
        QCOMPARE(keys, (QStringList{"bytes_written", "cache_hits", "checkpoints", "cpu_ms",
                                    "interrupted_calls", "model_calls", "peak_rss_bytes", "resumes", "steps",
                                    "tokens_in", "tokens_out", "tool_calls", "wall_ms"}));
        QCOMPARE(written.at("tool_calls").dump(), std::string(R"({"read_file":1,"shell":3})"));
    }

    // Each row changes one place of a valid checkpoint: pointer (JSON pointer) set to replacement (JSON
    // text), or removed when replacement is empty.
    void refusesBadCheckpoints_data() {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("replacement");
        QTest::addColumn<QString>("message");

        QTest::newRow("not an object") << ""
                                       << "[]"
                                       << "checkpoint: must be an object, got an array";
        QTest::newRow("format missing") << "/format"
                                        << ""
                                        << "checkpoint.format: missing";
        QTest::newRow("format 2") << "/format"
                                  << "2"
                                  << "checkpoint.format: 2 is not supported (this agent reads 1)";
        QTest::newRow("format 0") << "/format"
                                  << "0"
                                  << "checkpoint.format: 0 is not supported (this agent reads 1)";
        QTest::newRow("format as string")
            << "/format"
            << "\"1\""
            << "checkpoint.format: must be a non-negative integer, got a string";
        QTest::newRow("unknown key") << "/bogus"
                                     << "1"
                                     << "checkpoint: unknown key \"bogus\"";
        QTest::newRow("task_id missing") << "/task_id"
                                         << ""
                                         << "checkpoint.task_id: missing";
        QTest::newRow("prompt not a string") << "/prompt"
                                             << "null"
                                             << "checkpoint.prompt: must be a string, got null";
        QTest::newRow("presets not an array") << "/presets"
                                              << "\"safe-mode\""
                                              << "checkpoint.presets: must be an array, got a string";
        QTest::newRow("preset not a string") << "/presets/1"
                                             << "3"
                                             << "checkpoint.presets[1]: must be a string, got the integer 3";
        QTest::newRow("overrides not an object") << "/overrides"
                                                 << "[]"
                                                 << "checkpoint.overrides: must be an object, got an array";
        QTest::newRow("step negative")
            << "/step"
            << "-1"
            << "checkpoint.step: must be a non-negative integer, got the integer -1";
        QTest::newRow("next_seq fractional")
            << "/next_seq"
            << "1.5"
            << "checkpoint.next_seq: must be a non-negative integer, got the number 1.5";
        QTest::newRow("messages missing") << "/messages"
                                          << ""
                                          << "checkpoint.messages: missing";
        QTest::newRow("message role unknown")
            << "/messages/0/role"
            << "\"robot\""
            << "checkpoint.messages[0].role: must be system, user, assistant or tool, got \"robot\"";
        QTest::newRow("message unknown key") << "/messages/3/name"
                                             << "\"x\""
                                             << "checkpoint.messages[3]: unknown key \"name\"";
        QTest::newRow("message tool call arguments not an object")
            << "/messages/2/tool_calls/0/arguments"
            << "\"make\""
            << "checkpoint.messages[2].tool_calls[0].arguments: must be an object, got a string";
        QTest::newRow("pending call id missing") << "/pending_calls/0/id"
                                                 << ""
                                                 << "checkpoint.pending_calls[0].id: missing";
        QTest::newRow("running_call missing") << "/running_call"
                                              << ""
                                              << "checkpoint.running_call: missing";
        QTest::newRow("running_call a string") << "/running_call"
                                               << "\"shell\""
                                               << "checkpoint.running_call: must be an object, got a string";
        QTest::newRow("running_call unknown key") << "/running_call/started"
                                                  << "true"
                                                  << "checkpoint.running_call: unknown key \"started\"";
        QTest::newRow("recent call key not a string")
            << "/recent_call_keys/0"
            << "{}"
            << "checkpoint.recent_call_keys[0]: must be a string, got an object";
        QTest::newRow("loop_warned a number")
            << "/loop_warned"
            << "1"
            << "checkpoint.loop_warned: must be true or false, got the integer 1";
        QTest::newRow("counters missing") << "/counters"
                                          << ""
                                          << "checkpoint.counters: missing";
        QTest::newRow("counters an array") << "/counters"
                                           << "[]"
                                           << "checkpoint.counters: must be an object, got an array";
        QTest::newRow("counter missing") << "/counters/peak_rss_bytes"
                                         << ""
                                         << "checkpoint.counters.peak_rss_bytes: missing";
        QTest::newRow("counter unknown") << "/counters/gpu_ms"
                                         << "5"
                                         << "checkpoint.counters: unknown key \"gpu_ms\"";
        QTest::newRow("counter negative")
            << "/counters/steps"
            << "-4"
            << "checkpoint.counters.steps: must be a non-negative integer, got the integer -4";
        QTest::newRow("tool_calls missing") << "/counters/tool_calls"
                                            << ""
                                            << "checkpoint.counters.tool_calls: missing";
        QTest::newRow("tool call count not a number")
            << "/counters/tool_calls/shell"
            << "\"3\""
            << "checkpoint.counters.tool_calls.shell: must be a non-negative integer, got a string";
        QTest::newRow("extra missing") << "/extra"
                                       << ""
                                       << "checkpoint.extra: missing";
        QTest::newRow("extra not an object") << "/extra"
                                             << "null"
                                             << "checkpoint.extra: must be an object, got null";
        QTest::newRow("asked_call a number") << "/asked_call"
                                             << "3"
                                             << "checkpoint.asked_call: must be a string, got the integer 3";
    }

    void refusesBadCheckpoints() {
        QFETCH(QString, pointer);
        QFETCH(QString, replacement);
        QFETCH(QString, message);
        json document = toJson(fullState());
        const json::json_pointer at(pointer.toStdString());
        if (replacement.isEmpty())
            document.at(at.parent_pointer()).erase(at.back());
        else
            document[at] = json::parse(replacement.toStdString());
        const auto read = agentStateFromJson(document);
        QVERIFY(!read.ok());
        QCOMPARE(QString::fromStdString(read.error().message), message);
        QVERIFY(read.error().code == ErrorCode::InvalidArgument);
    }
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
