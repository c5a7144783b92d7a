// TaskSpec's stored form: what toJson writes, fromJson reads back unchanged; a spec stored before a field
// existed takes its default; a field of the wrong type is an error naming it, never a value wrapped or cut
// (-1 must not become an endless timeout).

#include "app/tasks/TaskSpec.h"

#include <QtTest>

using namespace warren;
using namespace warren::control;
using nlohmann::json;

namespace {

// A spec as toJson writes it, with one key replaced (or removed, for null).
json storedWith(const char* key, const json& value) {
    TaskSpec spec;
    spec.provider = "openai";
    spec.model = "gpt";
    spec.presets = {"safe-mode"};
    spec.timeoutSec = 60;
    json stored = spec.toJson();
    if (value.is_null())
        stored.erase(key);
    else
        stored[key] = value;
    return stored;
}

} // namespace

class TestTaskSpec : public QObject {
    Q_OBJECT

private slots:
    void roundTrip() {
        TaskSpec spec;
        spec.provider = "scripted:/tmp/s.json";
        spec.model = "m";
        spec.presets = {"local-light", "safe-mode"};
        spec.overrides = {{"max_steps", 5}};
        spec.network = "loopback";
        spec.approval = ApprovalMode::Auto;
        spec.timeoutSec = 30;
        spec.tokenBudget = 1000;
        spec.demo = true;
        spec.backend = sandbox::Backend::Podman;
        spec.image = "localhost/agent:1";
        spec.attended = true;
        spec.agent = protocol::AgentKind::Codex;
        spec.agentPath = "/opt/codex/bin/codex";
        auto read = TaskSpec::fromJson(spec.toJson());
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QCOMPARE(QString::fromStdString(read->toJson().dump()), QString::fromStdString(spec.toJson().dump()));
        auto stored = TaskSpec::fromText(spec.toJson().dump()); // as a task record keeps it
        QVERIFY2(stored.ok(), stored.ok() ? "" : stored.error().message.c_str());
        QCOMPARE(QString::fromStdString(stored->toJson().dump()), QString::fromStdString(spec.toJson().dump()));
    }

    void olderSpecsTakeTheDefaults() {
        json stored = storedWith("backend", nullptr);
        stored.erase("image");
        auto read = TaskSpec::fromJson(stored);
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QCOMPARE(read->backend, sandbox::Backend::Bwrap);
        QCOMPARE(QString::fromStdString(read->image), QString(kDefaultAgentImage));
        QVERIFY(!read->limits);
        QVERIFY(!read->attended); // stored before attended runs: unattended, as they ran
        QCOMPARE(read->agent, protocol::AgentKind::Warren); // stored before other agents: Warren's ran them
        QVERIFY(read->agentPath.empty());
    }

    void unreadable_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");   // JSON; null removes the key
        QTest::addColumn<QString>("message"); // a part of the error

        QTest::newRow("provider missing") << "provider"
                                          << "null"
                                          << "spec.provider: missing";
        QTest::newRow("model a number") << "model"
                                        << "5"
                                        << "spec.model: must be a string, got the integer 5";
        QTest::newRow("presets an object") << "presets"
                                           << "{}"
                                           << "spec.presets: must be an array, got an object";
        QTest::newRow("overrides an array") << "overrides"
                                            << "[]"
                                            << "spec.overrides: must be an object, got an array";
        QTest::newRow("negative timeout")
            << "timeout_sec"
            << "-1"
            << "spec.timeout_sec: must be a non-negative integer, got the integer -1";
        QTest::newRow("fractional budget")
            << "token_budget"
            << "1.5"
            << "spec.token_budget: must be a non-negative integer, got the number 1.5";
        QTest::newRow("demo a string") << "demo"
                                       << "\"yes\""
                                       << "spec.demo: must be true or false, got a string";
        QTest::newRow("attended a string") << "attended"
                                           << "\"yes\""
                                           << "spec.attended: must be true or false, got a string";
        QTest::newRow("image a number") << "image"
                                        << "1"
                                        << "spec.image: must be a string, got the integer 1";
        QTest::newRow("unknown approval mode")
            << "approval"
            << "\"sometimes\""
            << "unknown approval mode \"sometimes\": use ask, auto or deny";
        QTest::newRow("unknown agent") << "agent"
                                       << "\"aider\""
                                       << "unknown agent \"aider\": expected warren, claude-code or codex";
        QTest::newRow("unknown backend") << "backend"
                                         << "\"kvm\""
                                         << "task spec: ";
    }

    void unreadable() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, message);
        const std::string name = key.toStdString();
        auto read = TaskSpec::fromJson(storedWith(name.c_str(), json::parse(value.toStdString())));
        QVERIFY2(!read.ok(), qPrintable("accepted " + key + " = " + value));
        QCOMPARE(read.error().code, ErrorCode::InvalidArgument);
        const QString actual = QString::fromStdString(read.error().message);
        QVERIFY2(actual.contains(message), qPrintable("\"" + message + "\" not in: " + actual));
    }

    void notAnObject() {
        auto read = TaskSpec::fromText("not json");
        QVERIFY(!read.ok());
        QVERIFY2(QString::fromStdString(read.error().message).contains("the stored task spec is unreadable"),
                 read.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTaskSpec)
#include "tst_task_spec.moc"
