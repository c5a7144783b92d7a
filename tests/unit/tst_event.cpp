// Event: the schema is strict (unknown keys, unknown types and wrong JSON types are refused, naming the
// key), events round-trip through the event notification, seq must increase; timestamps are RFC 3339 UTC
// with milliseconds across leap years and month ends, truncated rather than rounded, and anything else is
// refused.

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventTypes.h"
#include "agent_core/protocol/JsonRpc.h"

#include <QtTest>
#include <set>

using namespace warren;
using namespace warren::protocol;
using nlohmann::json;

class TestEvent : public QObject {
    Q_OBJECT

private slots:
    void formatsTimestamps_data() {
        QTest::addColumn<qint64>("millis");
        QTest::addColumn<QString>("text");

        QTest::newRow("epoch") << qint64(0) << "1970-01-01T00:00:00.000Z";
        QTest::newRow("example from the design") << qint64(1795949523123) << "2026-11-29T10:52:03.123Z";
        QTest::newRow("leap day 2024") << qint64(1709164800000) << "2024-02-29T00:00:00.000Z";
        QTest::newRow("end of leap day 2000") << qint64(951868799999) << "2000-02-29T23:59:59.999Z";
        QTest::newRow("march 1 1900 (not leap)") << qint64(-2203891200000) << "1900-03-01T00:00:00.000Z";
        QTest::newRow("end of year") << qint64(1767225599999) << "2025-12-31T23:59:59.999Z";
        QTest::newRow("end of april") << qint64(1777593599001) << "2026-04-30T23:59:59.001Z";
        QTest::newRow("before the epoch") << qint64(-1) << "1969-12-31T23:59:59.999Z";
        QTest::newRow("year 0 clamp") << std::numeric_limits<qint64>::min() << "0000-01-01T00:00:00.000Z";
        QTest::newRow("year 9999 clamp") << std::numeric_limits<qint64>::max() << "9999-12-31T23:59:59.999Z";
    }

    void formatsTimestamps() {
        QFETCH(qint64, millis);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatTimestamp(millis)), text);
        if (millis != std::numeric_limits<qint64>::min() && millis != std::numeric_limits<qint64>::max())
            QCOMPARE(parseTimestamp(text.toStdString()).value(), millis);
    }

    // 10:52:03.1239999 is still 10:52:03.123: truncation never carries into the next second, day or year.
    void formatTruncatesToMillis() {
        using namespace std::chrono;
        const system_clock::time_point almostNewYear{microseconds(1767225599999999)};
        QCOMPARE(QString::fromStdString(formatTimestamp(almostNewYear)), "2025-12-31T23:59:59.999Z");
        const system_clock::time_point t{microseconds(1795949523123999)};
        QCOMPARE(QString::fromStdString(formatTimestamp(t)), "2026-11-29T10:52:03.123Z");
    }

    void parsesTimestamps_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("millis");

        QTest::newRow("no fraction") << "2026-11-29T10:52:03Z" << qint64(1795949523000);
        QTest::newRow("one digit fraction") << "2026-11-29T10:52:03.1Z" << qint64(1795949523100);
        QTest::newRow("microseconds truncated") << "2026-11-29T10:52:03.123999Z" << qint64(1795949523123);
        QTest::newRow("nanoseconds truncated") << "2026-11-29T10:52:03.999999999Z" << qint64(1795949523999);
        QTest::newRow("leap day 2400") << "2400-02-29T00:00:00.000Z" << qint64(13574563200000);
    }

    void parsesTimestamps() {
        QFETCH(QString, text);
        QFETCH(qint64, millis);
        const auto parsed = parseTimestamp(text.toStdString());
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
        QCOMPARE(parsed.value(), millis);
    }

    void refusesTimestamps_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("why");

        QTest::newRow("offset instead of Z") << "2026-11-29T10:52:03.123+01:00"
                                             << "must be UTC, ending in Z";
        QTest::newRow("zero offset") << "2026-11-29T10:52:03.123+00:00"
                                     << "must be UTC, ending in Z";
        QTest::newRow("no zone") << "2026-11-29T10:52:03.123"
                                 << "must be UTC, ending in Z";
        QTest::newRow("lowercase z") << "2026-11-29T10:52:03.123z"
                                     << "must be UTC, ending in Z";
        QTest::newRow("space instead of T") << "2026-11-29 10:52:03.123Z"
                                            << "not of the form YYYY-MM-DDTHH:MM:SS";
        QTest::newRow("date only") << "2026-11-29"
                                   << "not of the form YYYY-MM-DDTHH:MM:SS";
        QTest::newRow("two digit year") << "26-11-29T10:52:03.123Z"
                                        << "not of the form YYYY-MM-DDTHH:MM:SS";
        QTest::newRow("sign in a field") << "2026-+1-29T10:52:03.123Z"
                                         << "not of the form YYYY-MM-DDTHH:MM:SS";
        QTest::newRow("empty fraction") << "2026-11-29T10:52:03.Z"
                                        << "the fraction of a second must have 1 to 9 digits";
        QTest::newRow("ten fraction digits") << "2026-11-29T10:52:03.1234567890Z"
                                             << "the fraction of a second must have 1 to 9 digits";
        QTest::newRow("text after Z") << "2026-11-29T10:52:03.123Z "
                                      << "unexpected text after Z";
        QTest::newRow("month 13") << "2026-13-01T00:00:00.000Z"
                                  << "month 13 does not exist";
        QTest::newRow("month 0") << "2026-00-01T00:00:00.000Z"
                                 << "month 0 does not exist";
        QTest::newRow("day 0") << "2026-01-00T00:00:00.000Z"
                               << "day 0 does not exist in that month";
        QTest::newRow("april 31") << "2026-04-31T00:00:00.000Z"
                                  << "day 31 does not exist in that month";
        QTest::newRow("feb 29 in 2025") << "2025-02-29T00:00:00.000Z"
                                        << "day 29 does not exist in that month";
        QTest::newRow("feb 29 in 1900") << "1900-02-29T00:00:00.000Z"
                                        << "day 29 does not exist in that month";
        QTest::newRow("hour 24") << "2026-11-29T24:00:00.000Z"
                                 << "time of day out of range (leap seconds are not used)";
        QTest::newRow("leap second") << "2016-12-31T23:59:60.000Z"
                                     << "time of day out of range (leap seconds are not used)";
    }

    void refusesTimestamps() {
        QFETCH(QString, text);
        QFETCH(QString, why);
        const auto parsed = parseTimestamp(text.toStdString());
        QVERIFY(!parsed.ok());
        QCOMPARE(QString::fromStdString(parsed.error().message),
                 "timestamp \"" + text + "\": " + why + " (expected e.g. 2026-11-29T10:52:03.123Z)");
    }

    void catalogIsComplete() {
        const std::set<std::string_view> expected = {"task_started",
                                                     "task_resumed",
                                                     "step_started",
                                                     "model_delta",
                                                     "model_response",
                                                     "tool_call",
                                                     "tool_output",
                                                     "tool_result",
                                                     "file_changed",
                                                     "approval_requested",
                                                     "approval_resolved",
                                                     "checkpoint",
                                                     "resource_sample",
                                                     "hook",
                                                     "guard",
                                                     "error",
                                                     "log",
                                                     "network_request",
                                                     "limits_applied",
                                                     "model_call",
                                                     "task_slept",
                                                     "agent_started",
                                                     "agent_finished",
                                                     "plan_updated",
                                                     "project_instructions",
                                                     "user_message",
                                                     "task_finished"};
        std::set<std::string_view> names;
        for (const auto& info : eventTypeCatalog()) {
            QVERIFY(!info.meaning.empty());
            names.insert(info.name);
            QVERIFY(isKnownEventType(info.name));
        }
        QVERIFY(names == expected);
        QCOMPARE(eventTypeCatalog().size(), expected.size());
        QVERIFY(!isKnownEventType("tool_calls"));
    }

    // What only the control plane writes: an agent that sends one of these is refused.
    void controlPlaneTypes() {
        std::set<std::string_view> own;
        for (const auto& info : eventTypeCatalog())
            if (isControlPlaneEventType(info.name))
                own.insert(info.name);
        QVERIFY((own == std::set<std::string_view>{"network_request", "limits_applied", "model_call", "task_slept"}));
        QVERIFY(!isControlPlaneEventType("model_response"));
        QVERIFY(!isControlPlaneEventType("nonsense"));
    }

    void roundTripsThroughTheNotification() {
        Event full;
        full.seq = 41;
        full.ts = 1795949523123;
        full.type = std::string(event_type::kToolResult);
        full.step = 3;
        full.tool = "shell";
        full.tokenUsage = TokenUsage{1200, 80};
        full.durationMs = 15;
        full.agent = "agent-2";
        full.data = json{{"exit_code", 0}, {"truncated", false}};

        const std::string line = serialize(toNotification(full));
        QCOMPARE(
            QByteArray::fromStdString(line),
            QByteArray(
                R"({"jsonrpc":"2.0","method":"event","params":{"agent":"agent-2","data":{"exit_code":0,"truncated":false},)"
                R"("duration_ms":15,"seq":41,"step":3,"token_usage":{"input":1200,"output":80},)"
                R"("tool":"shell","ts":"2026-11-29T10:52:03.123Z","type":"tool_result"}})"));
        const auto message = parseMessage(line);
        QVERIFY(message.ok());
        const auto& notification = std::get<Notification>(message.value());
        QCOMPARE(QString::fromStdString(notification.method), "event");
        const auto back = eventFromJson(notification.params);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(back.value() == full);

        Event minimal;
        minimal.seq = 0;
        minimal.type = std::string(event_type::kTaskStarted);
        const json minimalJson = toJson(minimal);
        QCOMPARE(
            QByteArray::fromStdString(minimalJson.dump()),
            QByteArray(
                R"({"data":{},"seq":0,"step":0,"ts":"1970-01-01T00:00:00.000Z","type":"task_started"})"));
        QVERIFY(eventFromJson(minimalJson).value() == minimal);
    }

    void refusesEvents_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");

        const QByteArray base = R"("seq":1,"ts":"2026-11-29T10:52:03.123Z","step":0,"data":{})";
        QTest::newRow("not an object") << QByteArray("[]") << "event: must be an object, got an array";
        QTest::newRow("unknown key") << "{" + base + R"(,"type":"log","level":"info"})"
                                     << "event: unknown key \"level\"";
        QTest::newRow("missing seq")
            << QByteArray(R"({"ts":"2026-11-29T10:52:03.123Z","type":"log","step":0,"data":{}})")
            << "event.seq: missing";
        QTest::newRow("negative seq")
            << QByteArray(R"({"seq":-1,"ts":"2026-11-29T10:52:03.123Z","type":"log","step":0,"data":{}})")
            << "event.seq: must be a non-negative integer, got the integer -1";
        QTest::newRow("fractional step")
            << QByteArray(R"({"seq":1,"ts":"2026-11-29T10:52:03.123Z","type":"log","step":1.5,"data":{}})")
            << "event.step: must be a non-negative integer, got the number 1.5";
        QTest::newRow("seq as string")
            << QByteArray(R"({"seq":"1","ts":"2026-11-29T10:52:03.123Z","type":"log","step":0,"data":{}})")
            << "event.seq: must be a non-negative integer, got a string";
        QTest::newRow("missing type") << "{" + base + "}"
                                      << "event.type: missing";
        QTest::newRow("unknown type") << "{" + base + R"(,"type":"tool_calls"})"
                                      << "event.type: unknown event type \"tool_calls\"";
        QTest::newRow("ts not utc")
            << QByteArray(R"({"seq":1,"ts":"2026-11-29T10:52:03.123+01:00","type":"log","step":0,"data":{}})")
            << "event.ts: timestamp \"2026-11-29T10:52:03.123+01:00\": must be UTC, ending in Z (expected "
               "e.g. "
               "2026-11-29T10:52:03.123Z)";
        QTest::newRow("ts as number")
            << QByteArray(R"({"seq":1,"ts":1795949523123,"type":"log","step":0,"data":{}})")
            << "event.ts: must be a string, got the integer 1795949523123";
        QTest::newRow("tool not a string") << "{" + base + R"(,"type":"tool_call","tool":7})"
                                           << "event.tool: must be a string, got the integer 7";
        QTest::newRow("token usage unknown key")
            << "{" + base + R"(,"type":"model_response","token_usage":{"input":1,"output":2,"cached":0}})"
            << "event.token_usage: unknown key \"cached\"";
        QTest::newRow("token usage missing output")
            << "{" + base + R"(,"type":"model_response","token_usage":{"input":1}})"
            << "event.token_usage.output: missing";
        QTest::newRow("agent not a string") << "{" + base + R"(,"type":"log","agent":1})"
                                            << "event.agent: must be a string, got the integer 1";
        QTest::newRow("agent empty") << "{" + base + R"(,"type":"log","agent":""})"
                                     << "event.agent: must not be empty (absent: the task's own agent)";
        QTest::newRow("duration negative")
            << "{" + base + R"(,"type":"tool_result","duration_ms":-5})"
            << "event.duration_ms: must be a non-negative integer, got the integer -5";
        QTest::newRow("data missing")
            << QByteArray(R"({"seq":1,"ts":"2026-11-29T10:52:03.123Z","type":"log","step":0})")
            << "event.data: missing";
        QTest::newRow("data an array")
            << QByteArray(R"({"seq":1,"ts":"2026-11-29T10:52:03.123Z","type":"log","step":0,"data":[]})")
            << "event.data: must be an object, got an array";
    }

    void refusesEvents() {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        const auto event = eventFromJson(json::parse(text.toStdString()));
        QVERIFY(!event.ok());
        QCOMPARE(QString::fromStdString(event.error().message), message);
    }

    void seqMustIncrease_data() {
        QTest::addColumn<qint64>("previous"); // -1: none yet
        QTest::addColumn<qint64>("seq");
        QTest::addColumn<bool>("accepted");

        QTest::newRow("first event") << qint64(-1) << qint64(0) << true;
        QTest::newRow("next") << qint64(4) << qint64(5) << true;
        QTest::newRow("gap") << qint64(4) << qint64(9) << true;
        QTest::newRow("repeat") << qint64(4) << qint64(4) << false;
        QTest::newRow("step back") << qint64(4) << qint64(3) << false;
    }

    void seqMustIncrease() {
        QFETCH(qint64, previous);
        QFETCH(qint64, seq);
        QFETCH(bool, accepted);
        const auto prev =
            previous < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(previous));
        const auto status = checkSeqFollows(prev, static_cast<std::uint64_t>(seq));
        QCOMPARE(status.ok(), accepted);
        if (!accepted)
            QCOMPARE(QString::fromStdString(status.error().message),
                     QString("event seq %1 does not follow seq %2: events were lost, repeated or reordered")
                         .arg(seq)
                         .arg(previous));
    }
};

QTEST_GUILESS_MAIN(TestEvent)
#include "tst_event.moc"
