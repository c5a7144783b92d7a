// LineReader: the same lines and errors whatever the chunking of the stream; the cap bounds memory and the
// reader resynchronises after a bad line; invalid UTF-8 (the validation itself is in tst_utf8) and a
// truncated last line are reported.

#include "agent_core/protocol/LineReader.h"

#include <QtTest>

using namespace warren;
using namespace warren::protocol;

namespace {

// "line:<text>" or "error:<message>" for each item the reader produced, in order.
QStringList describe(const std::vector<Result<std::string>>& items) {
    QStringList out;
    for (const auto& item : items) {
        if (item.ok())
            out << "line:" + QString::fromStdString(item.value());
        else
            out << "error:" + QString::fromStdString(item.error().message);
    }
    return out;
}

QStringList readAll(const QByteArray& input, std::size_t cap, qsizetype chunkSize) {
    LineReader reader(cap);
    QStringList out;
    for (qsizetype i = 0; i < input.size(); i += chunkSize) {
        const QByteArray chunk = input.mid(i, chunkSize);
        out << describe(
            reader.feed(std::string_view(chunk.constData(), static_cast<std::size_t>(chunk.size()))));
        if (reader.bufferedBytes() > cap + 1)
            out << "buffered more than the cap";
    }
    out << describe(reader.finish());
    return out;
}

} // namespace

class TestLineReader : public QObject {
    Q_OBJECT

private slots:
    void splitsLines_data() {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<int>("cap");
        QTest::addColumn<QStringList>("expected");

        QTest::newRow("two lines") << QByteArray("{\"a\":1}\n{\"b\":2}\n") << 64
                                   << QStringList{"line:{\"a\":1}", "line:{\"b\":2}"};
        QTest::newRow("crlf terminators")
            << QByteArray("one\r\ntwo\r\n") << 64 << QStringList{"line:one", "line:two"};
        QTest::newRow("empty lines skipped")
            << QByteArray("\n\none\n\r\n\ntwo\n") << 64 << QStringList{"line:one", "line:two"};
        QTest::newRow("cr inside a line kept") << QByteArray("a\rb\n") << 64 << QStringList{"line:a\rb"};
        QTest::newRow("empty stream") << QByteArray() << 64 << QStringList{};
        QTest::newRow("truncated last line")
            << QByteArray("one\n{\"partial\"") << 64
            << QStringList{"line:one", "error:line 2: the stream ended after 10 bytes without a newline "
                                       "(truncated message)"};
        QTest::newRow("exactly the cap") << QByteArray("12345678\n") << 8 << QStringList{"line:12345678"};
        QTest::newRow("exactly the cap with crlf")
            << QByteArray("12345678\r\n") << 8 << QStringList{"line:12345678"};
        QTest::newRow("cap plus one")
            << QByteArray("123456789\nok\n") << 8
            << QStringList{"error:line 1: 9 bytes exceed the line cap of 8 bytes; the line was skipped",
                           "line:ok"};
        QTest::newRow("cap plus one with crlf")
            << QByteArray("123456789\r\nok\r\n") << 8
            << QStringList{"error:line 1: 9 bytes exceed the line cap of 8 bytes; the line was skipped",
                           "line:ok"};
        QTest::newRow("cap then a cr that is not the terminator")
            << QByteArray("12345678\rx\nok\n") << 8
            << QStringList{"error:line 1: 10 bytes exceed the line cap of 8 bytes; the line was skipped",
                           "line:ok"};
        QTest::newRow("over cap then a good line")
            << (QByteArray(100, 'x') + "\n{\"good\":true}\n") << 16
            << QStringList{"error:line 1: 100 bytes exceed the line cap of 16 bytes; the line was skipped",
                           "line:{\"good\":true}"};
        QTest::newRow("over cap reported once per line")
            << (QByteArray(40, 'x') + "\n" + QByteArray(50, 'y') + "\nok\n") << 16
            << QStringList{"error:line 1: 40 bytes exceed the line cap of 16 bytes; the line was skipped",
                           "error:line 2: 50 bytes exceed the line cap of 16 bytes; the line was skipped",
                           "line:ok"};
        QTest::newRow("over cap at end of stream")
            << (QByteArray("ok\n") + QByteArray(1000, 'z')) << 16
            << QStringList{"line:ok",
                           "error:line 2: 1000 bytes exceed the line cap of 16 bytes and the stream "
                           "ended before its newline"};
        QTest::newRow("valid multibyte utf-8")
            << QByteArray("\"h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x87\"\n") << 64
            << QStringList{"line:" + QString::fromUtf8("\"h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x87\"")};
        QTest::newRow("overlong encoding of slash")
            << QByteArray("a\xc0\xaf\nok\n") << 64
            << QStringList{"error:line 1: invalid UTF-8 at byte 1; the line was skipped", "line:ok"};
        QTest::newRow("overlong three byte")
            << QByteArray("\xe0\x80\xaf\n") << 64
            << QStringList{"error:line 1: invalid UTF-8 at byte 0; the line was skipped"};
        QTest::newRow("overlong four byte")
            << QByteArray("ab\xf0\x8f\xbf\xbf\n") << 64
            << QStringList{"error:line 1: invalid UTF-8 at byte 2; the line was skipped"};
        QTest::newRow("utf-16 surrogate")
            << QByteArray("\xed\xa0\x80\n") << 64
            << QStringList{"error:line 1: invalid UTF-8 at byte 0; the line was skipped"};
        QTest::newRow("above U+10FFFF")
            << QByteArray("\xf4\x90\x80\x80\n") << 64
            << QStringList{"error:line 1: invalid UTF-8 at byte 0; the line was skipped"};
        QTest::newRow("truncated sequence before newline")
            << QByteArray("abc\xe2\x82\nok\n") << 64
            << QStringList{"error:line 1: invalid UTF-8 at byte 3; the line was skipped", "line:ok"};
        QTest::newRow("stray continuation byte")
            << QByteArray("\x80\n") << 64
            << QStringList{"error:line 1: invalid UTF-8 at byte 0; the line was skipped"};
        QTest::newRow("latin-1 byte")
            << QByteArray("caf\xe9\n") << 64
            << QStringList{"error:line 1: invalid UTF-8 at byte 3; the line was skipped"};
    }

    // Fed all at once, byte by byte, or in chunks of 3 and 7: the same lines and errors.
    void splitsLines() {
        QFETCH(QByteArray, input);
        QFETCH(int, cap);
        QFETCH(QStringList, expected);
        const auto capBytes = static_cast<std::size_t>(cap);
        QCOMPARE(readAll(input, capBytes, std::max<qsizetype>(input.size(), 1)), expected);
        QCOMPARE(readAll(input, capBytes, 1), expected);
        QCOMPARE(readAll(input, capBytes, 3), expected);
        QCOMPARE(readAll(input, capBytes, 7), expected);
    }

    // Every split point of a stream with an over-cap line, crlf and utf-8 gives the same result.
    void everySplitPoint() {
        const QByteArray input = "{\"a\":1}\r\n" + QByteArray(20, 'x') + "\r\n\xc3\xa9\n12345678\r\nlast";
        const QStringList expected = readAll(input, 8, input.size());
        QCOMPARE(expected.size(), 5);
        for (qsizetype split = 1; split < input.size(); ++split) {
            LineReader reader(8);
            QStringList got = describe(reader.feed(input.left(split).toStdString()));
            got << describe(reader.feed(input.mid(split).toStdString()));
            got << describe(reader.finish());
            QCOMPARE(got, expected);
        }
    }

    // 64 MiB without a newline against the default 8 MiB cap: the buffer never exceeds the cap.
    void hugeInputWithoutNewlineStaysBounded() {
        LineReader reader;
        const std::string chunk(1024 * 1024, 'a');
        for (int i = 0; i < 64; ++i) {
            QVERIFY(reader.feed(chunk).empty());
            QVERIFY(reader.bufferedBytes() <= LineReader::kDefaultMaxLineBytes + 1);
        }
        const auto tail = reader.feed("\n{}\n");
        QCOMPARE(describe(tail),
                 (QStringList{"error:line 1: 67108864 bytes exceed the line cap of 8388608 bytes; "
                              "the line was skipped",
                              "line:{}"}));
        QCOMPARE(reader.bufferedBytes(), std::size_t{0});
    }

    // After finish() the reader starts a new stream at line 1.
    void finishResets() {
        LineReader reader(8);
        QCOMPARE(describe(reader.feed("partial")), QStringList{});
        QCOMPARE(reader.finish().size(), std::size_t{1});
        QCOMPARE(describe(reader.feed("ok\n")), QStringList{"line:ok"});
        QVERIFY(reader.finish().empty());
    }
};

QTEST_GUILESS_MAIN(TestLineReader)
#include "tst_line_reader.moc"
