// Utf8Chunker: a byte stream cut anywhere comes out in chunks that end on character boundaries; an
// incomplete trailing sequence waits for its remaining bytes, and whatever is left is flushed at the end.

#include "agent_core/process/Utf8Chunker.h"
#include "common/Utf8.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;

class TestUtf8Chunker : public QObject {
    Q_OBJECT

private slots:
    void chunksEndOnCharacterBoundaries_data() {
        QTest::addColumn<QByteArrayList>("reads");
        QTest::addColumn<QByteArrayList>("chunks");
        QTest::addColumn<QByteArray>("rest");

        QTest::newRow("ascii passes through")
            << QByteArrayList{"abc", "def"} << QByteArrayList{"abc", "def"} << QByteArray();
        QTest::newRow("complete two-byte character at the end")
            << QByteArrayList{"caf\xC3\xA9"} << QByteArrayList{"caf\xC3\xA9"} << QByteArray();
        QTest::newRow("two-byte character split")
            << QByteArrayList{"a\xC3", "\xA9z"} << QByteArrayList{"a", "\xC3\xA9z"} << QByteArray();
        QTest::newRow("three-byte character over three reads")
            << QByteArrayList{"\xE2", "\x82", "\xAC!"} << QByteArrayList{"", "", "\xE2\x82\xAC!"}
            << QByteArray();
        QTest::newRow("four-byte character split after two bytes")
            << QByteArrayList{"x\xF0\x9F", "\x98\x80"} << QByteArrayList{"x", "\xF0\x9F\x98\x80"}
            << QByteArray();
        QTest::newRow("four-byte character split after three bytes")
            << QByteArrayList{"\xF0\x9F\x98", "\x80"} << QByteArrayList{"", "\xF0\x9F\x98\x80"}
            << QByteArray();
        QTest::newRow("incomplete at the end is flushed")
            << QByteArrayList{"a\xE2\x82"} << QByteArrayList{"a"} << QByteArray("\xE2\x82");
        QTest::newRow("invalid lead byte is not held back")
            << QByteArrayList{"a\xFF"} << QByteArrayList{"a\xFF"} << QByteArray();
        QTest::newRow("stray continuation bytes pass")
            << QByteArrayList{"\x80\x80"} << QByteArrayList{"\x80\x80"} << QByteArray();
        QTest::newRow("lead byte followed by ascii is not held back") << QByteArrayList{"\xC3"
                                                                                        "a"}
                                                                      << QByteArrayList{"\xC3"
                                                                                        "a"}
                                                                      << QByteArray();
        QTest::newRow("empty reads") << QByteArrayList{"", ""} << QByteArrayList{"", ""} << QByteArray();
    }

    void chunksEndOnCharacterBoundaries() {
        QFETCH(QByteArrayList, reads);
        QFETCH(QByteArrayList, chunks);
        QFETCH(QByteArray, rest);

        Utf8Chunker chunker;
        QByteArrayList got;
        for (const auto& read : reads) {
            const std::string chunk =
                chunker.push(std::string_view(read.constData(), std::size_t(read.size())));
            got << QByteArray(chunk.data(), qsizetype(chunk.size()));
        }
        QCOMPARE(got, chunks);
        const std::string tail = chunker.finish();
        QCOMPARE(QByteArray(tail.data(), qsizetype(tail.size())), rest);
        QCOMPARE(chunker.heldBackBytes(), std::size_t(0));
    }

    void everySplitOfMixedTextReassembles() {
        // Every way of cutting the text in two gives the same bytes back, and no chunk ends mid-character.
        const std::string text = "a\xC3\xA9"
                                 "b\xE2\x82\xAC"
                                 "c\xF0\x9F\x98\x80"
                                 "d";
        for (std::size_t cut = 0; cut <= text.size(); ++cut) {
            Utf8Chunker chunker;
            const std::string first = chunker.push(std::string_view(text).substr(0, cut));
            const std::string second = chunker.push(std::string_view(text).substr(cut));
            QCOMPARE(first + second + chunker.finish(), text);
            QCOMPARE(incompleteUtf8Suffix(first), std::size_t(0));
            QCOMPARE(utf8ContinuationPrefix(second), std::size_t(0));
        }
    }
};

QTEST_GUILESS_MAIN(TestUtf8Chunker)
#include "tst_utf8_chunker.moc"
