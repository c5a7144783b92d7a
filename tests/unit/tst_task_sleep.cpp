// A task asleep (app/tasks/TaskSleep, IdleWait): when a run only waits for its user, what the sleep keeps
// beside the task and reads back strictly, and the one answer it keeps for the woken agent.

#include "app/tasks/IdleWait.h"
#include "app/tasks/TaskSleep.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::control;
using nlohmann::json;

namespace {

protocol::Event envelope(const std::string& type, std::optional<std::string> agent = std::nullopt) {
    protocol::Event out;
    out.type = type;
    out.agent = std::move(agent);
    return out;
}

protocol::ToolCallData callData(const std::string& id) { return {id, json::object()}; }

protocol::ToolResultData resultData(const std::string& id) {
    protocol::ToolResultData data;
    data.id = id;
    return data;
}

SleepRecord record() {
    return {"2026-12-06T18:00:00.000Z",
            {{"1.7", "w1", "write_file", R"({"path":"notes.txt"})"}, {"1.8", "s2", "shell", R"({"command":"make"})"}}};
}

} // namespace

class TestTaskSleep : public QObject {
    Q_OBJECT

private slots:
    // The idle time is the shortest bound that is set (0: not set); none set, the run never sleeps.
    void theShortestIdleTimeSetBinds() {
        using std::chrono::milliseconds;
        QCOMPARE(idleSleepFor({milliseconds(0), milliseconds(0), milliseconds(0)}), milliseconds(0));
        QCOMPARE(idleSleepFor({milliseconds(300'000), milliseconds(0), milliseconds(0)}), milliseconds(300'000));
        QCOMPARE(idleSleepFor({milliseconds(0), milliseconds(0), milliseconds(2000)}), milliseconds(2000));
        QCOMPARE(idleSleepFor({milliseconds(300'000), milliseconds(60'000), milliseconds(120'000)}),
                 milliseconds(60'000));
        QCOMPARE(idleSleepFor({milliseconds(300'000), milliseconds(0), milliseconds(900'000)}), milliseconds(300'000));
    }

    // Only the questions' calls are open, at least one question waits, nothing else runs: idle.
    void idleOnlyWhenEveryOpenCallWaits() {
        IdleWait wait;
        QVERIFY(!wait.onlyWaitsForUser({}, false)); // nothing asked: the agent thinks
        wait.observe(envelope("tool_call"), callData("c1"));
        wait.observe(envelope("tool_call"), callData("c2"));
        QVERIFY(!wait.onlyWaitsForUser({"c1"}, false)); // c2 runs
        QVERIFY(wait.onlyWaitsForUser({"c1", "c2"}, false));
        QVERIFY(!wait.onlyWaitsForUser({"c1", "c2"}, true)); // a model call or a network question
        wait.observe(envelope("tool_result"), resultData("c2"));
        QVERIFY(wait.onlyWaitsForUser({"c1"}, false));
        // A sub-agent's call of the same id is its own: it runs while the task's agent waits.
        wait.observe(envelope("tool_call", "agent-1"), callData("c1"));
        QCOMPARE(wait.openCalls(), std::size_t(2));
        wait.observe(envelope("tool_result"), resultData("c1"));
        QCOMPARE(wait.openCalls(), std::size_t(1));
        QVERIFY(!wait.onlyWaitsForUser({"c9"}, false));
    }

    void recordsRoundTrip() {
        const SleepRecord sleep = record();
        const auto read = sleepRecordFromJson(json::parse(toJson(sleep).dump()));
        QVERIFY(read);
        QVERIFY(*read == sleep);
        const WakeAnswer answer{"w1", "write_file", R"({"path":"notes.txt"})", false, "not that one", true};
        const auto back = wakeAnswerFromJson(json::parse(toJson(answer).dump()));
        QVERIFY(back);
        QVERIFY(*back == answer);
    }

    // A question is named by its record's id or by the agent's id of its call, as the faces answer.
    void findsAQuestionByEitherId() {
        const SleepRecord sleep = record();
        QVERIFY(sleep.find("1.7") && sleep.find("1.7")->toolCallId == "w1");
        QVERIFY(sleep.find("s2") && sleep.find("s2")->approvalId == "1.8");
        QVERIFY(!sleep.find("w2"));
        QVERIFY(!sleep.find(""));
    }

    void refusesWhatDoesNotRead_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("not an object") << QByteArray("[]") << "sleep: must be an object";
        QTest::newRow("no questions") << QByteArray(R"({"slept_at": "x"})") << "sleep.questions: missing";
        QTest::newRow("an unknown key") << QByteArray(R"({"slept_at": "x", "questions": [], "by": 1})")
                                        << "unknown key \"by\"";
        QTest::newRow("a question without its call")
            << QByteArray(R"({"slept_at": "x", "questions": [{"approval_id": "1", "tool": "t", "arguments": "{}"}]})")
            << "sleep.questions[0].tool_call_id: missing";
    }
    void refusesWhatDoesNotRead() {
        QFETCH(QByteArray, text);
        QFETCH(QString, error);
        const auto read = sleepRecordFromJson(json::parse(text.toStdString(), nullptr, false));
        QVERIFY(!read);
        QVERIFY2(QString::fromStdString(read.error().message).contains(error), read.error().message.c_str());
    }

    // Beside the task: kept, read back, forgotten; absent is nullopt, a damaged file an error naming it.
    void filesBesideTheTask() {
        QTemporaryDir root;
        const DataDir data{root.path().toStdString()};
        QVERIFY(keptSleep(data, "t-1") && !*keptSleep(data, "t-1"));
        QVERIFY(keepSleep(data, "t-1", record()));
        const auto kept = keptSleep(data, "t-1");
        QVERIFY(kept && *kept && **kept == record());
        QVERIFY(keepWakeAnswer(data, "t-1", {"w1", "write_file", "{}", true, "", false}));
        QVERIFY(keptWakeAnswer(data, "t-1") && *keptWakeAnswer(data, "t-1"));
        forgetSleep(data, "t-1");
        forgetWakeAnswer(data, "t-1");
        QVERIFY(keptSleep(data, "t-1") && !*keptSleep(data, "t-1"));
        QVERIFY(keptWakeAnswer(data, "t-1") && !*keptWakeAnswer(data, "t-1"));

        QFile damaged(QString::fromStdString(data.taskDir("t-1") + "/wake-answer.json"));
        QVERIFY(damaged.open(QIODevice::WriteOnly));
        damaged.write("{\"tool_call_id\": 3}");
        damaged.close();
        const auto read = keptWakeAnswer(data, "t-1");
        QVERIFY(!read);
        QVERIFY2(read.error().message.find("wake-answer.json") != std::string::npos, read.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTaskSleep)
#include "tst_task_sleep.moc"
