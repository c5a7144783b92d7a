// memory_save, memory_load, memory_search: what the model is told about them, what it reads back, and
// that every mistake or store failure is a failed outcome naming the problem, never a crash.

#include "agent_core/memory/FileMemoryBackend.h"
#include "agent_core/memory/InMemoryBackend.h"
#include "agent_core/memory/MemoryTools.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;

namespace {

ToolOutcome runTool(AgentMemory& memory, const QString& tool, const json& arguments,
                    std::size_t limit = 16384) {
    Cancellation cancellation;
    ToolEnv env;
    env.outputLimitBytes = limit;
    env.cancellation = &cancellation;
    if (tool == "memory_save")
        return MemorySaveTool(memory).run(arguments, env);
    if (tool == "memory_load")
        return MemoryLoadTool(memory).run(arguments, env);
    return MemorySearchTool(memory).run(arguments, env);
}

QString outputOf(const ToolOutcome& outcome) {
    return QString::fromStdString(outcome.output);
}

} // namespace

class TestMemoryTools : public QObject {
    Q_OBJECT

private slots:
    void specsDescribeStrictArguments_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("properties");
        QTest::addColumn<QStringList>("required");
        QTest::newRow("memory_save") << "memory_save" << QStringList{"key", "namespace", "value"}
                                     << QStringList{"key", "value"};
        QTest::newRow("memory_load") << "memory_load" << QStringList{"key", "namespace"}
                                     << QStringList{"key"};
        QTest::newRow("memory_search")
            << "memory_search" << QStringList{"limit", "query"} << QStringList{"query"};
    }

    void specsDescribeStrictArguments() {
        QFETCH(QString, name);
        QFETCH(QStringList, properties);
        QFETCH(QStringList, required);
        const protocol::ToolSpec spec = name == "memory_save"   ? MemorySaveTool::spec()
                                        : name == "memory_load" ? MemoryLoadTool::spec()
                                                                : MemorySearchTool::spec();
        QCOMPARE(QString::fromStdString(spec.name), name);
        QVERIFY(!spec.description.empty());
        QCOMPARE(spec.parameters.at("type"), json("object"));
        QCOMPARE(spec.parameters.at("additionalProperties"), json(false));
        QStringList gotProperties;
        for (const auto& item : spec.parameters.at("properties").items())
            gotProperties << QString::fromStdString(item.key());
        QCOMPARE(gotProperties, properties);
        QStringList gotRequired;
        for (const auto& item : spec.parameters.at("required"))
            gotRequired << QString::fromStdString(item.get<std::string>());
        QCOMPARE(gotRequired, required);
    }

    void savesLoadsAndSearches() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {});
        auto saved =
            runTool(memory, "memory_save", {{"key", "build-command"}, {"value", "cmake --build build"}});
        QVERIFY(saved.ok);
        QCOMPARE(saved.exitCode, 0);
        QCOMPARE(outputOf(saved), "saved 19 bytes under key \"build-command\" in namespace \"default\"");
        saved = runTool(memory, "memory_save",
                        {{"key", "build-command"}, {"value", "make\n-j2"}, {"namespace", "old-notes"}});
        QCOMPARE(outputOf(saved), "saved 8 bytes under key \"build-command\" in namespace \"old-notes\"");

        auto loaded = runTool(memory, "memory_load", {{"key", "build-command"}});
        QVERIFY(loaded.ok);
        QCOMPARE(outputOf(loaded), "cmake --build build");
        loaded = runTool(memory, "memory_load", {{"key", "build-command"}, {"namespace", "old-notes"}});
        QCOMPARE(outputOf(loaded), "make\n-j2");

        const auto found = runTool(memory, "memory_search", {{"query", "BUILD"}});
        QVERIFY(found.ok);
        QVERIFY(!found.truncated);
        QCOMPARE(outputOf(found),
                 "2 memories match \"BUILD\":\n"
                 "{\"key\":\"build-command\",\"namespace\":\"default\",\"value\":\"cmake --build build\"}\n"
                 "{\"key\":\"build-command\",\"namespace\":\"old-notes\",\"value\":\"make\\n-j2\"}\n");
        const auto one = runTool(memory, "memory_search", {{"query", "make"}, {"limit", 1}});
        QCOMPARE(outputOf(one),
                 "1 memory matches \"make\":\n"
                 "{\"key\":\"build-command\",\"namespace\":\"default\",\"value\":\"cmake --build "
                 "build\"}\n");
    }

    void missingKeyIsAnAnswerNotAFailure() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {});
        const auto loaded = runTool(memory, "memory_load", {{"key", "plan"}, {"namespace", "notes"}});
        QVERIFY(loaded.ok);
        QCOMPARE(loaded.exitCode, 0);
        QCOMPARE(outputOf(loaded), "no memory under key \"plan\" in namespace \"notes\"");
        const auto found = runTool(memory, "memory_search", {{"query", "plan"}});
        QVERIFY(found.ok);
        QCOMPARE(outputOf(found), "no memory matches \"plan\"");
    }

    void writeBehindIsSaidSo() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {"", 60, false, {}});
        const auto saved = runTool(memory, "memory_save", {{"key", "k"}, {"value", "v"}});
        QVERIFY(saved.ok);
        QCOMPARE(outputOf(saved),
                 "saved 1 bytes under key \"k\" in namespace \"default\" (buffered: written to the "
                 "store within 60 s and when the task ends)");
        QCOMPARE(outputOf(runTool(memory, "memory_load", {{"key", "k"}})), "v");
    }

    void refusesBadArguments_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("save: unknown argument")
            << "memory_save"
            << R"({"key":"k","value":"v","ttl":5})"
            << "memory_save: unknown argument \"ttl\" (it takes key, value, namespace)";
        QTest::newRow("save: arguments an array") << "memory_save"
                                                  << "[]"
                                                  << "memory_save: arguments must be an object, got an array";
        QTest::newRow("save: key missing") << "memory_save"
                                           << R"({"value":"v"})"
                                           << "memory_save: key: missing";
        QTest::newRow("save: value missing") << "memory_save"
                                             << R"({"key":"k"})"
                                             << "memory_save: value: missing";
        QTest::newRow("save: value a number") << "memory_save"
                                              << R"({"key":"k","value":42})"
                                              << "memory_save: value: must be a string, got the integer 42";
        QTest::newRow("save: namespace null") << "memory_save"
                                              << R"({"key":"k","value":"v","namespace":null})"
                                              << "memory_save: namespace: must be a string, got null";
        QTest::newRow("save: namespace with a slash")
            << "memory_save"
            << R"({"key":"k","value":"v","namespace":"../etc"})"
            << "memory_save: namespace \"../etc\": use 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'";
        QTest::newRow("save: empty key") << "memory_save"
                                         << R"({"key":"","value":"v"})"
                                         << "memory_save: key: is empty";
        QTest::newRow("load: unknown argument")
            << "memory_load"
            << R"({"key":"k","value":"v"})"
            << "memory_load: unknown argument \"value\" (it takes key, namespace)";
        QTest::newRow("load: key an object") << "memory_load"
                                             << R"({"key":{}})"
                                             << "memory_load: key: must be a string, got an object";
        QTest::newRow("search: unknown argument")
            << "memory_search"
            << R"({"query":"q","namespace":"n"})"
            << "memory_search: unknown argument \"namespace\" (it takes query, limit)";
        QTest::newRow("search: query missing") << "memory_search"
                                               << "{}"
                                               << "memory_search: query: missing";
        QTest::newRow("search: blank query") << "memory_search"
                                             << R"({"query":" \t"})"
                                             << "memory_search: query: is empty";
        QTest::newRow("search: limit 0")
            << "memory_search"
            << R"({"query":"q","limit":0})"
            << "memory_search: limit: must be a whole number from 1 to 100, got the integer 0";
        QTest::newRow("search: limit 101")
            << "memory_search"
            << R"({"query":"q","limit":101})"
            << "memory_search: limit: must be a whole number from 1 to 100, got the integer 101";
        QTest::newRow("search: limit negative")
            << "memory_search"
            << R"({"query":"q","limit":-3})"
            << "memory_search: limit: must be a whole number from 1 to 100, got the integer -3";
        QTest::newRow("search: limit fractional")
            << "memory_search"
            << R"({"query":"q","limit":2.5})"
            << "memory_search: limit: must be a whole number from 1 to 100, got the number 2.5";
        QTest::newRow("search: limit a string")
            << "memory_search"
            << R"({"query":"q","limit":"5"})"
            << "memory_search: limit: must be a whole number from 1 to 100, got a string";
    }

    void refusesBadArguments() {
        QFETCH(QString, tool);
        QFETCH(QString, arguments);
        QFETCH(QString, message);
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {});
        const auto outcome = runTool(memory, tool, json::parse(arguments.toStdString()));
        QVERIFY(!outcome.ok);
        QCOMPARE(outcome.exitCode, 1);
        QCOMPARE(outputOf(outcome), message);
        QCOMPARE(memory.search("", 10).value().size(), std::size_t(0));
    }

    void storeErrorsAreFailedOutcomes() {
        QTemporaryDir dir;
        const QString root = dir.filePath("memories");
        QVERIFY(QDir().mkdir(root));
        AgentMemory memory(std::make_unique<FileMemoryBackend>(root.toStdString()), {});
        QVERIFY(QDir(root).removeRecursively());
        const QString problem =
            "memory store " + root +
            " is not available: No such file or directory; mount one or use --preset local-light";
        const auto saved = runTool(memory, "memory_save", {{"key", "k"}, {"value", "v"}});
        QVERIFY(!saved.ok);
        QCOMPARE(outputOf(saved), "memory_save: " + problem);
        const auto loaded = runTool(memory, "memory_load", {{"key", "k"}});
        QVERIFY(!loaded.ok);
        QCOMPARE(outputOf(loaded), "memory_load: " + problem);
        const auto found = runTool(memory, "memory_search", {{"query", "k"}});
        QVERIFY(!found.ok);
        QCOMPARE(outputOf(found), "memory_search: " + problem);
    }

    void longValuesAreCapped() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {});
        const std::string value = "BEGIN" + std::string(5000, 'x') + "END";
        QVERIFY(runTool(memory, "memory_save", {{"key", "k"}, {"value", value}}).ok);
        const auto loaded = runTool(memory, "memory_load", {{"key", "k"}}, 200);
        QVERIFY(loaded.ok);
        QVERIFY(loaded.truncated);
        QVERIFY(loaded.output.size() <= 200 + 48);
        QVERIFY(outputOf(loaded).startsWith("BEGIN"));
        QVERIFY(outputOf(loaded).endsWith("END"));
        QVERIFY(outputOf(loaded).contains("bytes cut"));
    }

    void manyHitsAreCutBetweenHits() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {});
        for (int i = 0; i < 20; ++i)
            QVERIFY(memory
                        .save("default", QString("note-%1").arg(i, 2, 10, QChar('0')).toStdString(),
                              std::string(40, 'v'))
                        .ok());
        const auto found = runTool(memory, "memory_search", {{"query", "note"}, {"limit", 20}}, 300);
        QVERIFY(found.ok);
        QVERIFY(found.truncated);
        const QStringList lines = outputOf(found).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), "20 memories match \"note\":");
        QVERIFY2(lines.last().startsWith("[... ") &&
                     lines.last().endsWith(" more not shown: narrow the query, or "
                                           "load a key with memory_load]"),
                 qPrintable(lines.last()));
        for (int i = 1; i < lines.size() - 1; ++i)
            QVERIFY(json::parse(lines[i].toStdString()).at("key").get<std::string>().rfind("note-", 0) == 0);
        QCOMPARE(lines.last(),
                 QString("[... %1 more not shown: narrow the query, or load a key with memory_load]")
                     .arg(20 - (lines.size() - 2)));
    }

    void aSingleHugeHitIsCutNotDropped() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {});
        QVERIFY(memory.save("default", "k", "needle " + std::string(5000, 'x')).ok());
        const auto found = runTool(memory, "memory_search", {{"query", "needle"}}, 200);
        QVERIFY(found.ok);
        QVERIFY(found.truncated);
        QVERIFY(outputOf(found).startsWith("1 memory matches \"needle\":\n{\"key\":\"k\""));
        QVERIFY(outputOf(found).contains("bytes cut"));
        QVERIFY(found.output.size() <= 200 + 48);
    }

    void readToolsAreReadOnly() {
        AgentMemory memory(std::make_unique<InMemoryBackend>(), {});
        QVERIFY(!MemorySaveTool(memory).readOnly());
        QVERIFY(MemoryLoadTool(memory).readOnly());
        QVERIFY(MemorySearchTool(memory).readOnly());
        // Nothing can tell when the store changed, so the loop's cache never serves them.
        QVERIFY(!MemoryLoadTool(memory).contentKey({{"key", "k"}}, ToolEnv{}).has_value());
    }
};

QTEST_GUILESS_MAIN(TestMemoryTools)
#include "tst_memory_tools.moc"
