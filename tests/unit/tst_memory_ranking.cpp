// rankMemory: memory_search's rules for the local backends. Substring mode finds the whole query
// case-insensitively in key or value, in namespace/key order; ranked mode is BM25 over words, best first,
// ties in namespace/key order.

#include "agent_core/memory/MemoryRanking.h"

#include <QtTest>

using namespace warren::agent;

namespace {

// "ns/key=value" -> entry
std::vector<MemoryEntry> entriesOf(const QStringList& rows) {
    std::vector<MemoryEntry> entries;
    for (const auto& row : rows) {
        const auto slash = row.indexOf('/');
        const auto equals = row.indexOf('=');
        entries.push_back({row.left(slash).toStdString(),
                           row.mid(slash + 1, equals - slash - 1).toStdString(),
                           row.mid(equals + 1).toStdString()});
    }
    return entries;
}

QStringList namesOf(const std::vector<MemoryEntry>& entries) {
    QStringList names;
    for (const auto& entry : entries)
        names << QString::fromStdString(entry.ns + "/" + entry.key);
    return names;
}

} // namespace

class TestMemoryRanking : public QObject {
    Q_OBJECT

private slots:
    void words_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("words");
        QTest::newRow("lowercased") << "Run CMake" << QStringList{"run", "cmake"};
        QTest::newRow("punctuation splits")
            << "build-command: make -j4!" << QStringList{"build", "command", "make", "j4"};
        QTest::newRow("non-ASCII is part of a word") << "Grüße, Welt" << QStringList{"grüße", "welt"};
        QTest::newRow("only ASCII is lowercased") << "ÜBER" << QStringList{"Über"};
        QTest::newRow("no words") << " -- !? " << QStringList{};
        QTest::newRow("empty") << "" << QStringList{};
    }

    void words() {
        QFETCH(QString, text);
        QFETCH(QStringList, words);
        QStringList got;
        for (const auto& word : memoryWords(text.toStdString()))
            got << QString::fromStdString(word);
        QCOMPARE(got, words);
    }

    void ranks_data() {
        QTest::addColumn<QStringList>("entries");
        QTest::addColumn<QString>("query");
        QTest::addColumn<int>("limit");
        QTest::addColumn<bool>("ranked");
        QTest::addColumn<QStringList>("expected");

        const QStringList notes{"ns/b=the build command is make", "ns/a=Build it with CMake",
                                "other/z=nothing here", "default/build-dir=out"};
        QTest::newRow("substring: in value, namespace/key order")
            << notes << "build" << 10 << false << QStringList{"default/build-dir", "ns/a", "ns/b"};
        QTest::newRow("substring: case-insensitive")
            << notes << "CMAKE" << 10 << false << QStringList{"ns/a"};
        QTest::newRow("substring: in the key")
            << notes << "dir" << 10 << false << QStringList{"default/build-dir"};
        QTest::newRow("substring: the whole query, not its words")
            << notes << "build command" << 10 << false << QStringList{"ns/b"};
        QTest::newRow("substring: part of a word")
            << notes << "uil" << 10 << false << QStringList{"default/build-dir", "ns/a", "ns/b"};
        QTest::newRow("substring: empty query matches all")
            << notes << "" << 10 << false << QStringList{"default/build-dir", "ns/a", "ns/b", "other/z"};
        QTest::newRow("substring: limit after ordering")
            << notes << "build" << 2 << false << QStringList{"default/build-dir", "ns/a"};
        QTest::newRow("substring: no match") << notes << "rust" << 10 << false << QStringList{};
        QTest::newRow("limit 0") << notes << "build" << 0 << false << QStringList{};

        // idf: "cmake" is in one entry, "tests" in three; among those three the shorter wins, then the key.
        const QStringList idf{"n/a=run the tests", "n/b=tests are slow", "n/c=use cmake", "n/d=tests pass"};
        QTest::newRow("ranked: a rare word outweighs a common one")
            << idf << "cmake tests" << 10 << true << QStringList{"n/c", "n/d", "n/a", "n/b"};
        QTest::newRow("ranked: limit keeps the best")
            << idf << "cmake tests" << 2 << true << QStringList{"n/c", "n/d"};
        QTest::newRow("ranked: more occurrences rank higher")
            << QStringList{"n/y=error once", "n/x=error error error"} << "error" << 10 << true
            << QStringList{"n/x", "n/y"};
        QTest::newRow("ranked: the shorter entry wins on equal counts")
            << QStringList{"n/long=deploy to the staging cluster on friday", "n/short=deploy staging"}
            << "deploy" << 10 << true << QStringList{"n/short", "n/long"};
        QTest::newRow("ranked: equal scores in namespace/key order")
            << QStringList{"z/k=same text", "a/k=same text", "a/j=same text"} << "text" << 10 << true
            << QStringList{"a/j", "a/k", "z/k"};
        QTest::newRow("ranked: one query word suffices")
            << QStringList{"n/a=alpha", "n/b=beta", "n/c=gamma"} << "alpha beta" << 10 << true
            << QStringList{"n/a", "n/b"};
        QTest::newRow("ranked: words, not substrings")
            << QStringList{"n/a=building", "n/b=build"} << "build" << 10 << true << QStringList{"n/b"};
        QTest::newRow("ranked: case-insensitive")
            << QStringList{"n/a=CMake rules"} << "cmake" << 10 << true << QStringList{"n/a"};
        QTest::newRow("ranked: words of the key count")
            << QStringList{"n/build-command=make", "n/other=nothing"} << "command" << 10 << true
            << QStringList{"n/build-command"};
        QTest::newRow("ranked: non-ASCII words")
            << QStringList{"n/a=Grüße aus Köln", "n/b=Gruesse"} << "köln" << 10 << true << QStringList{"n/a"};
        QTest::newRow("ranked: a query without words matches nothing")
            << notes << "!!" << 10 << true << QStringList{};
        QTest::newRow("ranked: no entries") << QStringList{} << "x" << 10 << true << QStringList{};
    }

    void ranks() {
        QFETCH(QStringList, entries);
        QFETCH(QString, query);
        QFETCH(int, limit);
        QFETCH(bool, ranked);
        QFETCH(QStringList, expected);
        const auto hits =
            rankMemory(entriesOf(entries), query.toStdString(), static_cast<std::size_t>(limit), ranked);
        QCOMPARE(namesOf(hits), expected);
    }

    void keepsValues() {
        const auto hits = rankMemory(entriesOf({"ns/k=Value With Case"}), "value", 1, true);
        QCOMPARE(hits.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(hits[0].value), "Value With Case");
    }
};

QTEST_GUILESS_MAIN(TestMemoryRanking)
#include "tst_memory_ranking.moc"
