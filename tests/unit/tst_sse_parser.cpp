// SseParser: bytes in arbitrary pieces -> whole server-sent events.
#include "common/http/SseParser.h"

#include <QtTest>

using warren::SseEvent;
using warren::SseParser;

namespace {

// "name|data" per event, so rows read like the stream.
QStringList describe(const std::vector<SseEvent>& events) {
    QStringList out;
    for (const SseEvent& event : events)
        out << QString::fromStdString(event.event + "|" + event.data);
    return out;
}

QStringList parseAll(const QList<QByteArray>& chunks) {
    SseParser parser;
    std::vector<SseEvent> events;
    for (const QByteArray& chunk : chunks) {
        auto more = parser.feed(std::string_view(chunk.constData(), std::size_t(chunk.size())));
        events.insert(events.end(), more.begin(), more.end());
    }
    auto rest = parser.finish();
    events.insert(events.end(), rest.begin(), rest.end());
    return describe(events);
}

} // namespace

class TestSseParser : public QObject {
    Q_OBJECT
private slots:
    void parsesEvents_data();
    void parsesEvents();
    void anySplitPointGivesTheSameEvents();
    void eventsCompleteOnlyAtTheBlankLine();
};

void TestSseParser::parsesEvents_data() {
    QTest::addColumn<QList<QByteArray>>("chunks");
    QTest::addColumn<QStringList>("events");

    QTest::newRow("one event") << QList<QByteArray>{"data: hello\n\n"} << QStringList{"|hello"};
    QTest::newRow("two events in one chunk") << QList<QByteArray>{"data: a\n\ndata: b\n\n"} << QStringList{"|a", "|b"};
    QTest::newRow("line split across chunks") << QList<QByteArray>{"da", "ta: {\"x\"", ":1}\n", "\n"}
                                              << QStringList{"|{\"x\":1}"};
    QTest::newRow("CRLF line ends") << QList<QByteArray>{"data: a\r\n\r\ndata: b\r\n\r\n"} << QStringList{"|a", "|b"};
    QTest::newRow("CRLF split between chunks") << QList<QByteArray>{"data: a\r", "\n\r", "\n"} << QStringList{"|a"};
    QTest::newRow("CR line ends") << QList<QByteArray>{"data: a\r\rdata: b\r\r"} << QStringList{"|a", "|b"};
    QTest::newRow("multi-line data joined with newline")
        << QList<QByteArray>{"data: first\ndata: second\ndata:\n\n"} << QStringList{"|first\nsecond\n"};
    QTest::newRow("comments are skipped") << QList<QByteArray>{": keep-alive\n\n: OPENROUTER PROCESSING\ndata: x\n\n"}
                                          << QStringList{"|x"};
    QTest::newRow("event name") << QList<QByteArray>{"event: message_start\ndata: {}\n\n"}
                                << QStringList{"message_start|{}"};
    QTest::newRow("event name does not carry over")
        << QList<QByteArray>{"event: ping\ndata: 1\n\ndata: 2\n\n"} << QStringList{"ping|1", "|2"};
    QTest::newRow("no space after the colon") << QList<QByteArray>{"data:x\n\n"} << QStringList{"|x"};
    QTest::newRow("only one space is removed") << QList<QByteArray>{"data:  x\n\n"} << QStringList{"| x"};
    QTest::newRow("a field without colon has an empty value") << QList<QByteArray>{"data\n\n"} << QStringList{"|"};
    QTest::newRow("id and retry are ignored") << QList<QByteArray>{"id: 7\nretry: 100\ndata: x\n\n"}
                                              << QStringList{"|x"};
    QTest::newRow("blank lines without data make no event") << QList<QByteArray>{"\n\n\nevent: e\n\n"} << QStringList{};
    QTest::newRow("byte order mark at the start") << QList<QByteArray>{"\xEF\xBB\xBF" "data: x\n\n"}
                                                  << QStringList{"|x"};
    QTest::newRow("last event without blank line is kept at the end")
        << QList<QByteArray>{"data: a\n\ndata: [DONE]\n"} << QStringList{"|a", "|[DONE]"};
    QTest::newRow("last line without newline is kept at the end") << QList<QByteArray>{"data: [DONE]"}
                                                                  << QStringList{"|[DONE]"};
    QTest::newRow("UTF-8 split inside a character") << QList<QByteArray>{"data: caf\xC3", "\xA9\n\n"}
                                                    << QStringList{QString::fromUtf8("|caf\xC3\xA9")};
}

void TestSseParser::parsesEvents() {
    QFETCH(QList<QByteArray>, chunks);
    QFETCH(QStringList, events);
    QCOMPARE(parseAll(chunks), events);
}

void TestSseParser::anySplitPointGivesTheSameEvents() {
    const QByteArray stream = "event: a\r\ndata: {\"k\": 1}\r\n\r\n: comment\ndata: line1\ndata: line2\n\n";
    const QStringList expected{"a|{\"k\": 1}", "|line1\nline2"};
    for (qsizetype cut = 0; cut <= stream.size(); ++cut)
        QCOMPARE(parseAll({stream.left(cut), stream.mid(cut)}), expected);
    QList<QByteArray> bytes;
    for (const char c : stream)
        bytes.append(QByteArray(1, c));
    QCOMPARE(parseAll(bytes), expected);
}

void TestSseParser::eventsCompleteOnlyAtTheBlankLine() {
    SseParser parser;
    QVERIFY(parser.feed("data: a\n").empty());
    const auto events = parser.feed("\n");
    QCOMPARE(describe(events), QStringList{"|a"});
    QVERIFY(parser.finish().empty());
}

QTEST_APPLESS_MAIN(TestSseParser)
#include "tst_sse_parser.moc"
