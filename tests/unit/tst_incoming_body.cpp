// IncomingBody: the body after a request head, by Content-Length or chunked (RFC 9112 §7.1), as the model
// and secret proxies read it: decoded whole however the bytes are split, extensions and trailers dropped,
// what follows the body left alone, and every malformed or oversized framing refused with its status
// (a chunk-size that lies, a bare LF, a line without end, more than the cap in one chunk or in many).

#include "app/modelproxy/IncomingBody.h"

#include <QtTest>

using namespace warren::control;

namespace {

constexpr std::uint64_t kMax = 64;

ModelRequestHead chunkedHead() {
    ModelRequestHead head;
    head.chunked = true;
    return head;
}

struct Outcome {
    bool complete = false;
    int status = 0; // 0: not refused
    std::string body;
    std::size_t taken = 0;
};

Outcome feedInPieces(const ModelRequestHead& head, std::string_view bytes, std::size_t piece) {
    IncomingBody reader(head, kMax);
    Outcome outcome;
    for (std::size_t at = 0; at < bytes.size(); at += piece)
        outcome.taken += reader.feed(bytes.substr(at, piece));
    outcome.complete = reader.complete();
    outcome.status = reader.error() ? reader.error()->status : 0;
    outcome.body = reader.body();
    return outcome;
}

} // namespace

class TestIncomingBody : public QObject {
    Q_OBJECT

private slots:
    void contentLengthTakesItsBytesAlone() {
        ModelRequestHead head;
        head.contentLength = 5;
        IncomingBody reader(head, kMax);
        QCOMPARE(reader.wanted(), std::uint64_t(5));
        QCOMPARE(reader.feed("hel"), std::size_t(3));
        QVERIFY(!reader.complete());
        QCOMPARE(reader.wanted(), std::uint64_t(2));
        QCOMPARE(reader.feed("loGET / HTTP/1.1"), std::size_t(2)); // the next request is not the body's
        QVERIFY(reader.complete());
        QCOMPARE(reader.body(), std::string("hello"));
        QVERIFY(IncomingBody(ModelRequestHead{}, kMax).complete()); // no length: no body
    }

    void chunked_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("after"); // bytes past the body's end, not taken
        QTest::newRow("two chunks") << QByteArray("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n") << QByteArray("hello world") << 0;
        QTest::newRow("upper-case hex, leading zeros") << QByteArray("00A\r\n0123456789\r\n0\r\n\r\n")
                                                       << QByteArray("0123456789") << 0;
        QTest::newRow("extensions") << QByteArray("3 ;name=\"v\";x\r\nabc\r\n0;last\r\n\r\n") << QByteArray("abc") << 0;
        QTest::newRow("trailers dropped") << QByteArray("2\r\nok\r\n0\r\nX-Check: 1\r\nY: 2\r\n\r\n")
                                          << QByteArray("ok") << 0;
        QTest::newRow("empty body") << QByteArray("0\r\n\r\n") << QByteArray() << 0;
        QTest::newRow("the next request after it") << QByteArray("1\r\na\r\n0\r\n\r\nPOST / HTTP/1.1\r\n")
                                                   << QByteArray("a") << 17;
        QTest::newRow("data holding CRLF") << QByteArray("4\r\n\r\n\r\n\r\n0\r\n\r\n") << QByteArray("\r\n\r\n") << 0;
        QTest::newRow("exactly the cap") << QByteArray("40\r\n") + QByteArray(64, 'x') + "\r\n0\r\n\r\n"
                                         << QByteArray(64, 'x') << 0;
    }
    // The same body, the same bytes taken, in pieces of every size.
    void chunked() {
        QFETCH(QByteArray, bytes);
        QFETCH(QByteArray, body);
        QFETCH(int, after);
        const std::string_view view(bytes.constData(), std::size_t(bytes.size()));
        for (std::size_t piece = 1; piece <= view.size(); ++piece) {
            const Outcome outcome = feedInPieces(chunkedHead(), view, piece);
            QVERIFY2(outcome.complete && outcome.status == 0, qPrintable(QString::number(piece)));
            QCOMPARE(outcome.body, body.toStdString());
            QCOMPARE(outcome.taken, view.size() - std::size_t(after));
        }
    }

    void refused_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("status");
        QTest::newRow("not hex") << QByteArray("zz\r\n") << 400;
        QTest::newRow("no size") << QByteArray(";ext\r\n") << 400;
        QTest::newRow("sign") << QByteArray("+5\r\nhello\r\n") << 400;
        QTest::newRow("junk after the size") << QByteArray("5 x\r\nhello\r\n") << 400;
        QTest::newRow("bare lf after the size") << QByteArray("5\nhello\r\n") << 400;
        QTest::newRow("cr inside the size line") << QByteArray("5\r;\r\nhello\r\n") << 400;
        QTest::newRow("size shorter than the data") << QByteArray("3\r\nhello\r\n0\r\n\r\n") << 400;
        QTest::newRow("bare lf after the data") << QByteArray("2\r\nok\n0\r\n\r\n") << 400;
        QTest::newRow("bare lf in the trailers") << QByteArray("0\r\nX: 1\n\r\n") << 400;
        QTest::newRow("a size line without end") << QByteArray("1") + QByteArray(qsizetype(kMaxChunkLineBytes), ';') << 400;
        QTest::newRow("trailers without end")
            << QByteArray("0\r\n") + QByteArray(qsizetype(kMaxModelHeadBytes) + 1, 'a') << 400;
        QTest::newRow("one chunk over the cap") << QByteArray("41\r\n") << 413;
        QTest::newRow("chunks over the cap together") << QByteArray("40\r\n") + QByteArray(64, 'x') + "\r\n1\r\n" << 413;
        QTest::newRow("a size past 64 bits") << QByteArray("1ffffffffffffffffffff\r\n") << 413;
    }
    // Refused in whole and in pieces, with what was read dropped; nothing more is taken after.
    void refused() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, status);
        const std::string_view view(bytes.constData(), std::size_t(bytes.size()));
        for (const std::size_t piece : {std::size_t(1), std::size_t(3), view.size()}) {
            const Outcome outcome = feedInPieces(chunkedHead(), view, piece);
            QVERIFY(!outcome.complete);
            QCOMPARE(outcome.status, status);
            QVERIFY(outcome.body.empty());
        }
        IncomingBody reader(chunkedHead(), kMax);
        reader.feed(view);
        QCOMPARE(reader.feed("0\r\n\r\n"), std::size_t(0));
        QCOMPARE(reader.wanted(), std::uint64_t(0));
    }

    // Waiting is not refusing: every proper prefix of a good body waits for more.
    void everyPrefixWaits() {
        const std::string whole = "5;e=1\r\nhello\r\n0\r\nT: v\r\n\r\n";
        for (std::size_t length = 0; length < whole.size(); ++length) {
            IncomingBody reader(chunkedHead(), kMax);
            reader.feed(std::string_view(whole).substr(0, length));
            QVERIFY2(!reader.complete() && !reader.error(), qPrintable(QString::number(length)));
        }
    }
};

QTEST_GUILESS_MAIN(TestIncomingBody)
#include "tst_incoming_body.moc"
