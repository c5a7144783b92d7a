// ResponseHead: an HTTP/1.1 answer's head from a server that is not trusted, and how its body is framed.
#include "common/http/ResponseHead.h"

#include <QtTest>

using namespace warren;

namespace {

using Parsed = std::variant<std::nullopt_t, ResponseHead, std::string>;

ResponseHead head(const std::string& text) {
    auto parsed = parseResponseHead(text);
    if (auto* error = std::get_if<std::string>(&parsed))
        qFatal("%s", error->c_str());
    if (!std::holds_alternative<ResponseHead>(parsed))
        qFatal("incomplete");
    return std::get<ResponseHead>(parsed);
}

} // namespace

class TestResponseHead : public QObject {
    Q_OBJECT

private slots:
    void readsTheHeadAndItsFraming() {
        const std::string text = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
                                 "Mcp-Session-Id:  abc \r\nTransfer-Encoding: chunked\r\n\r\nrest";
        const auto read = head(text);
        QCOMPARE(read.status, 200);
        QCOMPARE(read.reason, std::string("OK"));
        QCOMPARE(read.consumed, text.size() - 4);
        QCOMPARE(read.header("mcp-session-id").value_or(""), std::string("abc"));
        QCOMPARE(mediaType(read.header("content-type").value_or("")), std::string("text/event-stream"));
        QVERIFY(read.framing == ResponseHead::Framing::Chunked);

        QVERIFY(head("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n").framing == ResponseHead::Framing::Length);
        QCOMPARE(head("HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Length: 12\r\n\r\n").contentLength, 12u);
        QVERIFY(head("HTTP/1.0 200 OK\r\n\r\n").framing == ResponseHead::Framing::UntilClose);
        QVERIFY(head("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n").framing == ResponseHead::Framing::None);
        QVERIFY(head("HTTP/1.1 100 Continue\r\n\r\n").framing == ResponseHead::Framing::None);
        QCOMPARE(head("HTTP/1.1 202\r\n\r\n").status, 202); // a status line without a reason
    }

    void waitsForTheRest() {
        QVERIFY(std::holds_alternative<std::nullopt_t>(parseResponseHead("HTTP/1.1 200 OK\r\nContent-")));
        QVERIFY(std::holds_alternative<std::nullopt_t>(parseResponseHead("")));
    }

    void refusesWhatCanBeReadTwoWays_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("why");
        QTest::newRow("not http") << "SSH-2.0-OpenSSH\r\n\r\n" << "status line";
        QTest::newRow("bad status") << "HTTP/1.1 2x0 OK\r\n\r\n" << "status line";
        QTest::newRow("http/2") << "HTTP/2 200\r\n\r\n" << "status line";
        QTest::newRow("two lengths") << "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"
                                     << "two different Content-Length";
        QTest::newRow("length not a number") << "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n" << "not a number";
        QTest::newRow("gzip coding") << "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" << "not chunked";
        QTest::newRow("chunked twice") << "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"
                                       << "not chunked";
        QTest::newRow("folded") << "HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n" << "folds";
        QTest::newRow("not a header") << "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n" << "not a header";
        QTest::newRow("space in name") << "HTTP/1.1 200 OK\r\nA b: c\r\n\r\n" << "not a header";
        QTest::newRow("control character") << QString("HTTP/1.1 200 OK\r\nA: b") + QChar(1) + "c\r\n\r\n" << "control character";
        QTest::newRow("too long") << "HTTP/1.1 200 OK\r\nA: " + QString(70 * 1024, 'a') << "longer than";
    }

    void refusesWhatCanBeReadTwoWays() {
        QFETCH(QString, text);
        QFETCH(QString, why);
        auto parsed = parseResponseHead(text.toStdString());
        auto* error = std::get_if<std::string>(&parsed);
        QVERIFY(error);
        QVERIFY2(QString::fromStdString(*error).contains(why), error->c_str());
    }
};

QTEST_APPLESS_MAIN(TestResponseHead)
#include "tst_response_head.moc"
