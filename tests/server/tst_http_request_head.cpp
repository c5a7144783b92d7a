// checkRequestHead: the framing and header rules a request head must meet (RFC 9112 §5, §6.1, §6.3), each
// case of ambiguity or malformation refused with its code, and the heads real clients send accepted.

#include "server/http/RequestHeadCheck.h"

#include <QTest>

using namespace warren::http;

class TestHttpRequestHead : public QObject {
    Q_OBJECT

private slots:
    void rules_data() {
        QTest::addColumn<QList<QByteArray>>("lines");
        QTest::addColumn<QByteArray>("version");
        QTest::addColumn<QByteArray>("code"); // empty: accepted

        using Lines = QList<QByteArray>;
        const QByteArray ok;
        const QByteArray framing("ambiguous_framing");
        const QByteArray bad("bad_header");
        const QByteArray v11("HTTP/1.1");

        QTest::newRow("no headers") << Lines{} << QByteArray("HTTP/1.0") << ok;
        QTest::newRow("a curl GET") << Lines{"Host: localhost:8080", "User-Agent: curl/7.88.1", "Accept: */*"}
                                    << v11 << ok;
        QTest::newRow("a POST with Content-Length")
            << Lines{"Host: x", "Content-Type: application/json", "Content-Length: 17"} << v11 << ok;
        QTest::newRow("chunked") << Lines{"Host: x", "Transfer-Encoding: chunked"} << v11 << ok;
        QTest::newRow("chunked, other case and spaces")
            << Lines{"Host: x", "transfer-encoding:   Chunked  "} << v11 << ok;
        QTest::newRow("no space after the colon, tab in the value")
            << Lines{"Host:x", "X-A:a\tb"} << v11 << ok;
        QTest::newRow("empty value") << Lines{"Host: x", "X-Empty:"} << v11 << ok;
        QTest::newRow("UTF-8 in a value") << Lines{"Host: x", "X-Name: caf\xc3\xa9"} << v11 << ok;
        QTest::newRow("repeated list headers")
            << Lines{"Host: x", "Accept: a/b", "Accept: c/d", "Via: 1.1 a", "Via: 1.1 b"} << v11 << ok;
        QTest::newRow("Content-Length 0") << Lines{"Host: x", "Content-Length: 0"} << v11 << ok;

        QTest::newRow("Content-Length and Transfer-Encoding")
            << Lines{"Host: x", "Content-Length: 5", "Transfer-Encoding: chunked"} << v11 << framing;
        QTest::newRow("Transfer-Encoding then Content-Length")
            << Lines{"Host: x", "Transfer-Encoding: chunked", "Content-Length: 5"} << v11 << framing;
        QTest::newRow("two equal Content-Lengths")
            << Lines{"Host: x", "Content-Length: 3", "Content-Length: 3"} << v11 << framing;
        QTest::newRow("two Content-Lengths")
            << Lines{"Host: x", "Content-Length: 0", "content-length: 40"} << v11 << framing;
        QTest::newRow("Content-Length as a list")
            << Lines{"Host: x", "Content-Length: 3, 3"} << v11 << framing;
        QTest::newRow("Content-Length signed") << Lines{"Host: x", "Content-Length: +3"} << v11 << framing;
        QTest::newRow("Content-Length empty") << Lines{"Host: x", "Content-Length: "} << v11 << framing;
        QTest::newRow("Content-Length huge")
            << Lines{"Host: x", "Content-Length: 99999999999999999999"} << v11 << framing;
        QTest::newRow("two Transfer-Encodings")
            << Lines{"Host: x", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked"} << v11 << framing;
        QTest::newRow("Transfer-Encoding gzip, chunked")
            << Lines{"Host: x", "Transfer-Encoding: gzip, chunked"} << v11 << framing;
        QTest::newRow("Transfer-Encoding identity")
            << Lines{"Host: x", "Transfer-Encoding: identity"} << v11 << framing;
        QTest::newRow("Transfer-Encoding chunked twice in one")
            << Lines{"Host: x", "Transfer-Encoding: chunked, chunked"} << v11 << framing;
        QTest::newRow("Transfer-Encoding in HTTP/1.0")
            << Lines{"Transfer-Encoding: chunked"} << QByteArray("HTTP/1.0") << framing;

        QTest::newRow("space before the colon")
            << Lines{"Host: x", "Transfer-Encoding : chunked"} << v11 << bad;
        QTest::newRow("tab before the colon") << Lines{"Host: x", "Content-Length\t: 3"} << v11 << bad;
        QTest::newRow("space inside the name") << Lines{"Host: x", "Content Length: 3"} << v11 << bad;
        QTest::newRow("leading space (a fold)") << Lines{"Host: x", " X-A: b"} << v11 << bad;
        QTest::newRow("parenthesis in the name") << Lines{"Host: x", "X(A): b"} << v11 << bad;
        QTest::newRow("non-ASCII name") << Lines{"Host: x", "X-\xc3\xa9: b"} << v11 << bad;
        QTest::newRow("empty name") << Lines{"Host: x", ": b"} << v11 << bad;
        QTest::newRow("no colon") << Lines{"Host: x", "nonsense"} << v11 << bad;
        QTest::newRow("NUL in Authorization")
            << Lines{"Host: x", QByteArray("Authorization: Bearer abc\0def", 29)} << v11 << bad;
        QTest::newRow("NUL at a value's end") << Lines{"Host: x", QByteArray("X-A: abc\0", 9)} << v11 << bad;
        QTest::newRow("CR in a value") << Lines{"Host: x", "X-A: a\rb"} << v11 << bad;
        QTest::newRow("LF in a value") << Lines{"Host: x", "X-A: a\nb"} << v11 << bad;
        QTest::newRow("escape in a value") << Lines{"Host: x", "X-A: a\x1b[31m"} << v11 << bad;
        QTest::newRow("DEL in a value") << Lines{"Host: x", "X-A: a\x7f"} << v11 << bad;
        QTest::newRow("two Authorizations")
            << Lines{"Host: x", "Authorization: Bearer a", "Authorization: Bearer b"} << v11 << bad;
        QTest::newRow("two Authorizations, other case")
            << Lines{"Host: x", "Authorization: Bearer a", "AUTHORIZATION: Bearer a"} << v11 << bad;
        QTest::newRow("two Hosts") << Lines{"Host: x", "Host: y"} << v11 << bad;
        QTest::newRow("two Content-Types")
            << Lines{"Host: x", "Content-Type: application/json", "Content-Type: text/plain"} << v11 << bad;
        QTest::newRow("two Idempotency-Keys")
            << Lines{"Host: x", "Idempotency-Key: a", "Idempotency-Key: b"} << v11 << bad;
        QTest::newRow("two Last-Event-IDs")
            << Lines{"Host: x", "Last-Event-ID: 1", "Last-Event-ID: 9"} << v11 << bad;
        QTest::newRow("two Proxy-Authorizations")
            << Lines{"Host: x", "Proxy-Authorization: a", "Proxy-Authorization: b"} << v11 << bad;
    }
    void rules() {
        QFETCH(QList<QByteArray>, lines);
        QFETCH(QByteArray, version);
        QFETCH(QByteArray, code);
        const std::optional<HeadRefusal> refusal = checkRequestHead(lines, version);
        if (code.isEmpty()) {
            QVERIFY2(!refusal, refusal ? qPrintable(refusal->message) : "");
            return;
        }
        QVERIFY(refusal);
        QCOMPARE(refusal->code, code);
        QVERIFY(!refusal->message.isEmpty());
        // A message quotes what it refuses printably, never the raw control bytes.
        for (const QChar c : refusal->message)
            QVERIFY(c.unicode() >= 0x20 && c.unicode() != 0x7f);
    }

    void singletons_data() {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<bool>("singleton");
        QTest::newRow("Host") << QByteArray("host") << true;
        QTest::newRow("Authorization") << QByteArray("Authorization") << true;
        QTest::newRow("Idempotency-Key") << QByteArray("idempotency-key") << true;
        QTest::newRow("Last-Event-ID") << QByteArray("Last-Event-Id") << true;
        QTest::newRow("Accept") << QByteArray("Accept") << false;
        QTest::newRow("Via") << QByteArray("Via") << false;
    }
    void singletons() {
        QFETCH(QByteArray, name);
        QFETCH(bool, singleton);
        QCOMPARE(isSingletonHeader(name), singleton);
    }
};

QTEST_GUILESS_MAIN(TestHttpRequestHead)
#include "tst_http_request_head.moc"
