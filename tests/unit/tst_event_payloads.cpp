// The typed data of every event type: what the writers send reads back as the same value and is written
// again as the same JSON, fields a writer may leave out read as empty, and a mistyped field, an unknown key
// or a value outside a field's set is refused with a message naming the type and the key.

#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"

#include <QtTest>
#include <set>

using namespace warren;
using namespace warren::protocol;
using nlohmann::json;

Q_DECLARE_METATYPE(std::string)

namespace {

// The JSON a payload of type reads from, written again; or the error message.
std::string roundTrip(const std::string& type, const json& data) {
    auto read = payloadFromJson(type, data);
    if (!read)
        return "error: " + read.error().message;
    return std::visit([](const auto& payload) { return payload.toJson().dump(); }, read.value());
}

} // namespace

class TestEventPayloads : public QObject {
    Q_OBJECT

private slots:
    // What the agent and the control plane write: read and written again byte for byte.
    void roundTrips_data() {
        QTest::addColumn<std::string>("type");
        QTest::addColumn<std::string>("data");

        QTest::newRow("task_started") << std::string("task_started")
                                      << std::string(R"({"config":{"max_steps":50},"presets":["safe-mode"],)"
                                                     R"("prompt":"Fix it","task_id":"t-1"})");
        QTest::newRow("task_resumed, nothing interrupted")
            << std::string("task_resumed") << std::string(R"({"from_step":3,"interrupted_tool_call":null})");
        QTest::newRow("task_resumed, a call interrupted")
            << std::string("task_resumed")
            << std::string(R"({"from_step":3,"interrupted_tool_call":"call_2_0"})");
        QTest::newRow("step_started") << std::string("step_started") << std::string("{}");
        QTest::newRow("model_delta") << std::string("model_delta") << std::string(R"({"text":"Hel"})");
        QTest::newRow("model_response")
            << std::string("model_response")
            << std::string(R"({"content":"Listing","finish_reason":"tool_calls","tool_calls":[{"arguments":)"
                           R"({"command":"ls"},"id":"call_0_0","name":"shell"}]})");
        QTest::newRow("tool_call") << std::string("tool_call")
                                   << std::string(R"({"arguments":{"command":"ls -la"},"id":"c1"})");
        QTest::newRow("tool_output stderr")
            << std::string("tool_output") << std::string(R"({"id":"c1","stream":"stderr","text":"oops\n"})");
        QTest::newRow("tool_result ran")
            << std::string("tool_result")
            << std::string(R"({"exit_code":0,"id":"c1","output":"ok","truncated":false})");
        QTest::newRow("tool_result cached")
            << std::string("tool_result")
            << std::string(R"({"cached":true,"exit_code":0,"id":"c1","output":"ok","truncated":true})");
        QTest::newRow("tool_result denied")
            << std::string("tool_result")
            << std::string(
                   R"({"denied":true,"exit_code":null,"id":"c1","output":"Denied","truncated":false})");
        QTest::newRow("tool_result timed out and interrupted")
            << std::string("tool_result")
            << std::string(R"({"exit_code":-9,"id":"c1","interrupted":true,"output":"","timed_out":true,)"
                           R"("truncated":false})");
        QTest::newRow("file_changed from a shell command")
            << std::string("file_changed") << std::string(R"({"change":"deleted","path":"a.txt"})");
        QTest::newRow("file_changed with a diff")
            << std::string("file_changed")
            << std::string(
                   R"({"added":1,"change":"modified","diff":"--- a/a\n+++ b/a\n","path":"a","removed":2})");
        QTest::newRow("file_changed with a cut diff")
            << std::string("file_changed")
            << std::string(
                   R"({"added":1,"change":"created","diff":"x","diff_truncated":true,"path":"a","removed":0})");
        QTest::newRow("file_changed binary")
            << std::string("file_changed")
            << std::string(R"({"binary":true,"change":"created","path":"a.bin"})");
        QTest::newRow("approval_requested")
            << std::string("approval_requested")
            << std::string(R"({"arguments":{"command":"rm -rf build"},"id":"c1","reason":"shell is risky"})");
        QTest::newRow("approval_resolved without a note")
            << std::string("approval_resolved") << std::string(R"({"approved":true,"id":"c1","note":null})");
        QTest::newRow("approval_resolved with a note and who")
            << std::string("approval_resolved")
            << std::string(R"({"approved":false,"decided_by":"rule","id":"c1","note":"no"})");
        QTest::newRow("plan_updated") << std::string("plan_updated")
                                      << std::string(R"({"steps":[{"status":"completed","step":"Read"},)"
                                                     R"({"status":"in_progress","step":"Fix"},)"
                                                     R"({"status":"pending","step":"Test"}]})");
        QTest::newRow("plan_updated with why") << std::string("plan_updated")
                                               << std::string(R"({"explanation":"tests first","steps":[)"
                                                              R"({"status":"pending","step":"Test"}]})");
        QTest::newRow("user_message") << std::string("user_message")
                                      << std::string(R"({"text":"also update the README"})");
        QTest::newRow("checkpoint") << std::string("checkpoint")
                                    << std::string(R"({"bytes":512,"path":"/state/checkpoint.json"})");
        QTest::newRow("resource_sample")
            << std::string("resource_sample") << std::string(R"({"cpu_ms":12,"rss_bytes":1048576})");
        QTest::newRow("hook callback only")
            << std::string("hook") << std::string(R"({"command":null,"exit_code":null,"name":"on_step"})");
        QTest::newRow("hook with detail and a command")
            << std::string("hook")
            << std::string(
                   R"({"command":"make lint","detail":"rss 500 MB","exit_code":2,"name":"on_low_memory",)"
                   R"("output":"bad"})");
        QTest::newRow("hook whose command could not run")
            << std::string("hook")
            << std::string(R"({"command":"x","error":"no /bin/sh","exit_code":null,"name":"on_step"})");
        QTest::newRow("guard") << std::string("guard")
                               << std::string(R"({"action":"stop","detail":"50 steps","guard":"max_steps"})");
        QTest::newRow("error") << std::string("error") << std::string(R"({"fatal":true,"message":"gone"})");
        QTest::newRow("log") << std::string("log") << std::string(R"({"level":"warn","message":"slow"})");
        QTest::newRow("network_request allowed")
            << std::string("network_request")
            << std::string(
                   R"({"address":"1.2.3.4:443","allowed":true,"host":"pypi.org","method":"CONNECT","port":443})");
        QTest::newRow("network_request refused")
            << std::string("network_request")
            << std::string(R"({"allowed":false,"host":"evil","method":"","port":80,"reason":"not listed"})");
        QTest::newRow("model_call")
            << std::string("model_call")
            << std::string(R"({"duration_ms":2300,"first_byte_ms":410,"input_tokens":1200,"model":"claude-sonnet-4-5",)"
                           R"("output_tokens":80,"path":"/v1/messages","status":200})");
        QTest::newRow("model_call refused before an answer")
            << std::string("model_call")
            << std::string(R"({"duration_ms":3,"error":"could not reach the model server","input_tokens":0,"model":"",)"
                           R"("output_tokens":0,"path":"/v1/responses","status":502})");
        QTest::newRow("limits_applied")
            << std::string("limits_applied")
            << std::string(R"({"decided_by":{"memory_mb":"tenant","pids":"request"},"limits":{"memory_mb":512,"pids":64}})");
        QTest::newRow("limits_applied with nothing limited")
            << std::string("limits_applied") << std::string(R"({"decided_by":{},"limits":{}})");
        QTest::newRow("agent_started by the task's own agent")
            << std::string("agent_started")
            << std::string(R"({"brief":"Write a.txt","call_id":"s1","depth":1,"parent":null,"role":"worker"})");
        QTest::newRow("agent_started by a sub-agent")
            << std::string("agent_started")
            << std::string(R"({"brief":"Look","call_id":"c","depth":2,"parent":"agent-1","role":"explorer"})");
        QTest::newRow("agent_finished")
            << std::string("agent_finished") << std::string(R"({"files":["a.txt"],"reason":"finished","summary":"done"})");
        QTest::newRow("task_finished") << std::string("task_finished")
                                       << std::string(R"({"reason":"finished","summary":"Wrote hello.txt"})");
    }

    void roundTrips() {
        QFETCH(std::string, type);
        QFETCH(std::string, data);
        QCOMPARE(QString::fromStdString(roundTrip(type, json::parse(data))), QString::fromStdString(data));
    }

    // Every type of the catalog has a payload, and its kType names it.
    void everyTypeHasAPayload() {
        std::set<std::string> covered;
        for (const auto& info : eventTypeCatalog()) {
            auto read = payloadFromJson(info.name, json::object());
            if (!read) // missing fields, but not an unknown type
                QVERIFY2(!QString::fromStdString(read.error().message).contains("unknown event type"),
                         read.error().message.c_str());
            covered.insert(std::string(info.name));
        }
        QCOMPARE(covered.size(), std::variant_size_v<EventPayload>);
        QCOMPARE(QString::fromStdString(payloadFromJson("telepathy", json::object()).error().message),
                 QStringLiteral("event.type: unknown event type \"telepathy\""));
    }

    // What a writer may leave out reads as its empty value.
    void readsOptionalFieldsAsEmpty() {
        auto result = ToolResultData::fromJson(json{{"id", "c1"}}).value();
        QVERIFY(!result.exitCode);
        QVERIFY(!result.truncated && !result.cached && !result.denied && !result.timedOut &&
                !result.interrupted);
        QCOMPARE(QString::fromStdString(result.output), QString());
        auto finished =
            TaskFinishedData::fromJson(json{{"reason", "cancelled"}, {"summary", nullptr}}).value();
        QVERIFY(!finished.summary);
        auto started = TaskStartedData::fromJson(json{{"task_id", "t"}, {"prompt", "p"}}).value();
        QVERIFY(started.presets.empty());
        QCOMPARE(started.config, json::object());
        auto error = ErrorData::fromJson(json{{"message", "m"}}).value();
        QVERIFY(!error.fatal);
    }

    void refuses_data() {
        QTest::addColumn<std::string>("type");
        QTest::addColumn<std::string>("data");
        QTest::addColumn<QString>("message");

        QTest::newRow("not an object")
            << std::string("log") << std::string(R"("x")") << "log data: must be an object, got a string";
        QTest::newRow("unknown key") << std::string("tool_call")
                                     << std::string(R"({"id":"c1","arguments":{},"argumnets":{}})")
                                     << "tool_call data: unknown key \"argumnets\"";
        QTest::newRow("plan step status outside its set")
            << std::string("plan_updated") << std::string(R"({"steps":[{"step":"a","status":"done"}]})")
            << "plan_updated data.steps[0].status: must be pending, in_progress or completed, got \"done\"";
        QTest::newRow("user_message without text") << std::string("user_message") << std::string(R"({})")
                                                   << "user_message data.text: missing";
        QTest::newRow("plan without steps") << std::string("plan_updated") << std::string(R"({})")
                                            << "plan_updated data.steps: missing";
        QTest::newRow("step_started with data") << std::string("step_started") << std::string(R"({"step":1})")
                                                << "step_started data: unknown key \"step\"";
        QTest::newRow("missing field") << std::string("tool_call") << std::string(R"({"id":"c1"})")
                                       << "tool_call data.arguments: missing";
        QTest::newRow("arguments not an object")
            << std::string("approval_requested") << std::string(R"({"id":"c1","arguments":[],"reason":""})")
            << "approval_requested data.arguments: must be an object, got an array";
        QTest::newRow("text is a number") << std::string("model_delta") << std::string(R"({"text":5})")
                                          << "model_delta data.text: must be a string, got the integer 5";
        QTest::newRow("negative count")
            << std::string("file_changed") << std::string(R"({"path":"a","change":"modified","added":-1})")
            << "file_changed data.added: must be a non-negative integer, got the integer -1";
        QTest::newRow("unknown change")
            << std::string("file_changed") << std::string(R"({"path":"a","change":"renamed"})")
            << "file_changed data.change: must be created, modified or deleted, got "
               "\"renamed\"";
        QTest::newRow("unknown stream")
            << std::string("tool_output") << std::string(R"({"id":"c1","stream":"stdin","text":"x"})")
            << "tool_output data.stream: must be stdout or stderr, got \"stdin\"";
        QTest::newRow("exit code is a string")
            << std::string("tool_result") << std::string(R"({"id":"c1","exit_code":"0"})")
            << "tool_result data.exit_code: must be an integer or null, got a "
               "string";
        QTest::newRow("exit code is a fraction")
            << std::string("hook") << std::string(R"({"name":"on_step","exit_code":1.5})")
            << "hook data.exit_code: must be an integer or null, got the "
               "number 1.5";
        QTest::newRow("flag is null")
            << std::string("tool_result") << std::string(R"({"id":"c1","exit_code":0,"truncated":null})")
            << "tool_result data.truncated: must be true or false, got null";
        QTest::newRow("approved missing") << std::string("approval_resolved") << std::string(R"({"id":"c1"})")
                                          << "approval_resolved data.approved: missing";
        QTest::newRow("allowed missing")
            << std::string("network_request") << std::string(R"({"method":"GET","host":"a","port":80})")
            << "network_request data.allowed: missing";
        QTest::newRow("model_call without its status")
            << std::string("model_call")
            << std::string(R"({"path":"/v1/messages","model":"m","input_tokens":1,"output_tokens":1,"duration_ms":1})")
            << "model_call data.status: missing";
        QTest::newRow("model_call with negative tokens")
            << std::string("model_call")
            << std::string(R"({"path":"/","model":"m","status":200,"input_tokens":-5,"output_tokens":1,"duration_ms":1})")
            << "model_call data.input_tokens: must be a non-negative integer, got the integer -5";
        QTest::newRow("port is negative")
            << std::string("network_request")
            << std::string(R"({"method":"GET","host":"a","port":-1,"allowed":true})")
            << "network_request data.port: must be a non-negative integer, got the integer -1";
        QTest::newRow("preset not a string")
            << std::string("task_started") << std::string(R"({"task_id":"t","prompt":"p","presets":[1]})")
            << "task_started data.presets[0]: must be a string, got the integer 1";
        QTest::newRow("tool call in a response")
            << std::string("model_response") << std::string(R"({"content":"","tool_calls":[{"id":"c"}]})")
            << "model_response data.tool_calls[0].name: missing";
        QTest::newRow("summary is a number")
            << std::string("task_finished") << std::string(R"({"reason":"failed","summary":3})")
            << "task_finished data.summary: must be a string, got the integer 3";
        QTest::newRow("limit is negative")
            << std::string("limits_applied") << std::string(R"({"limits":{"pids":-1},"decided_by":{}})")
            << "limits_applied data.limits.pids: must be a non-negative integer, got -1";
        QTest::newRow("decided_by a limit not set")
            << std::string("limits_applied")
            << std::string(R"({"limits":{"pids":1},"decided_by":{"memory_mb":"tenant"}})")
            << "limits_applied data.decided_by.memory_mb: must name who decided a limit in limits, got \"tenant\"";
        QTest::newRow("error without a message")
            << std::string("error") << std::string(R"({"fatal":true})") << "error data.message: missing";
        QTest::newRow("guard action outside its set")
            << std::string("guard") << std::string(R"({"guard":"max_steps","action":"halt","detail":""})")
            << "guard data.action: must be warn or stop, got \"halt\"";
        QTest::newRow("log level outside its set") << std::string("log")
                                                   << std::string(R"({"level":"loud","message":"m"})")
                                                   << "log data.level: must be debug, info, warn or error, got \"loud\"";
        QTest::newRow("finish reason outside its set")
            << std::string("task_finished") << std::string(R"({"reason":"timeout","summary":null})")
            << "task_finished data.reason: must be finished, failed, cancelled, paused, guard or waiting, got \"timeout\"";
    }

    // Each closed set's names read back as the member they name; "warning", which the faces always took as
    // a warning, reads as warn.
    void namesTheClosedSets() {
        for (auto reason : {FinishReason::Finished, FinishReason::Failed, FinishReason::Cancelled,
                            FinishReason::Paused, FinishReason::Guard, FinishReason::Waiting})
            QVERIFY(finishReasonFromName(toString(reason)) == reason);
        for (auto action : {GuardAction::Warn, GuardAction::Stop})
            QVERIFY(guardActionFromName(toString(action)) == action);
        for (auto level : {LogLevel::Debug, LogLevel::Info, LogLevel::Warn, LogLevel::Error})
            QVERIFY(logLevelFromName(toString(level)) == level);
        QVERIFY(logLevelFromName("warning") == LogLevel::Warn);
        QVERIFY(!finishReasonFromName("Finished") && !guardActionFromName("") && !logLevelFromName("trace"));
    }

    void refuses() {
        QFETCH(std::string, type);
        QFETCH(std::string, data);
        QFETCH(QString, message);
        auto read = payloadFromJson(type, json::parse(data));
        QVERIFY(!read);
        QCOMPARE(QString::fromStdString(read.error().message), message);
    }

    // Values built in C++ are signed integers; they read like parsed ones.
    void readsValuesBuiltInCode() {
        auto sample = ResourceSampleData::fromJson(json{{"rss_bytes", 10}, {"cpu_ms", 0}}).value();
        QCOMPARE(sample.rssBytes, std::uint64_t(10));
        auto result = ToolResultData::fromJson(json{{"id", "c"}, {"exit_code", -1}}).value();
        QCOMPARE(result.exitCode.value(), std::int64_t(-1));
    }
};

QTEST_APPLESS_MAIN(TestEventPayloads)
#include "tst_event_payloads.moc"
