// ExecutionCache: keys that tell calls apart and ignore argument order, hits and misses counted, only
// successful outcomes kept, least recently used entries evicted within the byte budget, clear() sheds
// everything; and, with a real file, a changed file is a different key, so never a stale hit.

#include "agent_core/tools/ExecutionCache.h"
#include "agent_core/tools/ReadFileTool.h"
#include "agent_core/tools/WriteFileTool.h"

#include <QtTest>
#include <filesystem>
#include <fstream>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

ToolOutcome success(std::string output) {
    ToolOutcome outcome;
    outcome.output = std::move(output);
    return outcome;
}

} // namespace

class TestExecutionCache : public QObject {
    Q_OBJECT

private slots:
    void keys_data() {
        QTest::addColumn<QString>("toolA");
        QTest::addColumn<QString>("argumentsA");
        QTest::addColumn<QString>("contentA");
        QTest::addColumn<QString>("toolB");
        QTest::addColumn<QString>("argumentsB");
        QTest::addColumn<QString>("contentB");
        QTest::addColumn<bool>("equal");

        QTest::newRow("same call") << "read_file"
                                   << R"({"path":"a"})"
                                   << "k1"
                                   << "read_file"
                                   << R"({"path":"a"})"
                                   << "k1" << true;
        QTest::newRow("argument order does not matter") << "search"
                                                        << R"({"pattern":"x","path":"a"})"
                                                        << "k"
                                                        << "search"
                                                        << R"({"path":"a","pattern":"x"})"
                                                        << "k" << true;
        QTest::newRow("another tool") << "read_file"
                                      << R"({"path":"a"})"
                                      << "k"
                                      << "list_files"
                                      << R"({"path":"a"})"
                                      << "k" << false;
        QTest::newRow("other arguments") << "read_file"
                                         << R"({"path":"a"})"
                                         << "k"
                                         << "read_file"
                                         << R"({"path":"a","offset":1})"
                                         << "k" << false;
        QTest::newRow("content changed") << "read_file"
                                         << R"({"path":"a"})"
                                         << "k1"
                                         << "read_file"
                                         << R"({"path":"a"})"
                                         << "k2" << false;
        QTest::newRow("no part runs into the next") << "ab"
                                                    << "{}"
                                                    << "c"
                                                    << "a"
                                                    << "{}"
                                                    << "bc" << false;
        QTest::newRow("integer and float differ") << "t"
                                                  << R"({"n":1})"
                                                  << ""
                                                  << "t"
                                                  << R"({"n":1.0})"
                                                  << "" << false;
    }
    void keys() {
        QFETCH(QString, toolA);
        QFETCH(QString, argumentsA);
        QFETCH(QString, contentA);
        QFETCH(QString, toolB);
        QFETCH(QString, argumentsB);
        QFETCH(QString, contentB);
        QFETCH(bool, equal);
        const std::string a =
            cacheKey(toolA.toStdString(), json::parse(argumentsA.toStdString()), contentA.toStdString());
        const std::string b =
            cacheKey(toolB.toStdString(), json::parse(argumentsB.toStdString()), contentB.toStdString());
        QCOMPARE(a == b, equal);
    }

    void keyOfInvalidUtf8DoesNotThrow() {
        const json arguments = {{"path", std::string("\xFF")}};
        QVERIFY(!cacheKey("read_file", arguments, "k").empty());
    }

    void hitsAndMisses() {
        ExecutionCache cache;
        QCOMPARE(cache.find("k"), nullptr);
        cache.store("k", success("out"));
        const ToolOutcome* hit = cache.find("k");
        QVERIFY(hit);
        QCOMPARE(QString::fromStdString(hit->output), "out");
        QCOMPARE(cache.hits(), 1u);
        QCOMPARE(cache.misses(), 1u);
        QCOMPARE(cache.size(), 1u);
        QVERIFY(cache.bytes() > 3);

        // Storing again under the same key replaces the entry, it does not count it twice.
        const std::size_t bytes = cache.bytes();
        cache.store("k", success("OUT"));
        QCOMPARE(cache.bytes(), bytes);
        QCOMPARE(QString::fromStdString(cache.find("k")->output), "OUT");
    }

    void storesOnlySuccess_data() {
        QTest::addColumn<bool>("ok");
        QTest::addColumn<bool>("cancelled");
        QTest::addColumn<bool>("timedOut");
        QTest::addColumn<bool>("stored");

        QTest::newRow("success") << true << false << false << true;
        QTest::newRow("failure") << false << false << false << false;
        QTest::newRow("cancelled") << false << true << false << false;
        QTest::newRow("timed out") << false << false << true << false;
        QTest::newRow("ok but cancelled (partial)") << true << true << false << false;
    }
    void storesOnlySuccess() {
        QFETCH(bool, ok);
        QFETCH(bool, cancelled);
        QFETCH(bool, timedOut);
        QFETCH(bool, stored);
        ExecutionCache cache;
        ToolOutcome outcome = success("x");
        outcome.ok = ok;
        outcome.cancelled = cancelled;
        outcome.timedOut = timedOut;
        cache.store("k", outcome);
        QCOMPARE(cache.find("k") != nullptr, stored);
        QCOMPARE(cache.bytes() > 0, stored);
    }

    void evictsLeastRecentlyUsedWithinBudget() {
        const std::string output(1000, 'x');
        ExecutionCache probe;
        probe.store("a", success(output));
        const std::size_t entry = probe.bytes(); // one entry of this size, key of one letter

        ExecutionCache cache(3 * entry);
        cache.store("a", success(output));
        cache.store("b", success(output));
        cache.store("c", success(output));
        QCOMPARE(cache.size(), 3u);
        QVERIFY(cache.find("a")); // a is now the most recently used: b is the least
        cache.store("d", success(output));
        QCOMPARE(cache.size(), 3u);
        QVERIFY(cache.bytes() <= cache.budget());
        QVERIFY(cache.find("a"));
        QCOMPARE(cache.find("b"), nullptr);
        QVERIFY(cache.find("c"));
        QVERIFY(cache.find("d"));

        // An outcome larger than the whole budget is not stored, and evicts nothing.
        cache.store("huge", success(std::string(4 * entry, 'y')));
        QCOMPARE(cache.find("huge"), nullptr);
        QCOMPARE(cache.size(), 3u);
    }

    void clearShedsEverything() {
        ExecutionCache cache;
        for (int i = 0; i < 100; ++i)
            cache.store(("k" + QString::number(i)).toStdString(), success(std::string(100, 'x')));
        QVERIFY(cache.bytes() > 10000);
        cache.clear();
        QCOMPARE(cache.bytes(), 0u);
        QCOMPARE(cache.size(), 0u);
        QCOMPARE(cache.find("k1"), nullptr);
        cache.store("again", success("x")); // usable after a clear
        QVERIFY(cache.find("again"));
    }

    // The loop's use, end to end: the same read is a hit until the file changes, then a miss.
    void changedFileIsADifferentKey() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Cancellation cancellation;
        ToolEnv env;
        env.workspace = dir.path().toStdString();
        env.cancellation = &cancellation;
        std::ofstream(env.workspace / "f.txt") << "old\n";
        ReadFileTool tool;
        ExecutionCache cache;
        const json args = {{"path", "f.txt"}};

        std::optional<std::string> content;
        QTRY_VERIFY((content = tool.contentKey(args, env)).has_value());
        const std::string key = cacheKey("read_file", args, *content);
        QCOMPARE(cache.find(key), nullptr);
        cache.store(key, tool.run(args, env));
        QVERIFY(cache.find(key));
        QCOMPARE(QString::fromStdString(
                     cache.find(cacheKey("read_file", args, *tool.contentKey(args, env)))->output),
                 "     1\told\n");

        QVERIFY(WriteFileTool().run({{"path", "f.txt"}, {"content", "new\n"}}, env).ok);
        QTRY_VERIFY((content = tool.contentKey(args, env)).has_value());
        const std::string changed = cacheKey("read_file", args, *content);
        QVERIFY(changed != key);
        QCOMPARE(cache.find(changed), nullptr);
    }
};

QTEST_GUILESS_MAIN(TestExecutionCache)
#include "tst_execution_cache.moc"
