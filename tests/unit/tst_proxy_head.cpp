// ProxyHead: the request heads the egress proxy accepts, the head it sends upstream, and the heads it
// refuses: malformed ones, ones that hide a second request or another host (request smuggling), over-long
// ones, and every incomplete prefix of a valid one, which must wait for more bytes rather than fail or pass.

#include "app/egress/ProxyHead.h"

#include <QtTest>

using namespace warren::control;

namespace {

std::string_view view(const QByteArray& bytes) {
    return {bytes.constData(), static_cast<std::size_t>(bytes.size())};
}

// A head from text whose lines end in "|" for CRLF, so rows read as one line each.
QByteArray head(const char* text) {
    QByteArray bytes(text);
    bytes.replace('|', "\r\n");
    return bytes;
}

QByteArray overLimit(const QByteArray& prefix) {
    return prefix + QByteArray(static_cast<qsizetype>(kMaxProxyHeadBytes), 'a');
}

} // namespace

class TestProxyHead : public QObject {
    Q_OBJECT

private slots:
    void accepted_data() {
        QTest::addColumn<QByteArray>("buffer");
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<QByteArray>("upstream"); // empty for CONNECT
        QTest::addColumn<int>("body");            // bytes after the head

        QTest::newRow("connect") << head("CONNECT pypi.org:443 HTTP/1.1|Host: pypi.org:443|User-Agent: pip||")
                                 << "CONNECT"
                                 << "pypi.org" << 443 << QByteArray() << 0;
        QTest::newRow("connect with tunnel bytes after the head")
            << head("CONNECT pypi.org:443 HTTP/1.1||") + QByteArray("\x16\x03\x01", 3) << "CONNECT"
            << "pypi.org" << 443 << QByteArray() << 3;
        QTest::newRow("connect host normalised") << head("CONNECT PyPI.Org.:8443 HTTP/1.0||") << "CONNECT"
                                                 << "pypi.org" << 8443 << QByteArray() << 0;
        QTest::newRow("connect ipv6") << head("CONNECT [2001:DB8::1]:443 HTTP/1.1||") << "CONNECT"
                                      << "2001:db8::1" << 443 << QByteArray() << 0;
        QTest::newRow("connect ipv4") << head("CONNECT 203.0.113.7:443 HTTP/1.1||") << "CONNECT"
                                      << "203.0.113.7" << 443 << QByteArray() << 0;
        QTest::newRow("connect content-length zero")
            << head("CONNECT pypi.org:443 HTTP/1.1|Content-Length: 0||") << "CONNECT"
            << "pypi.org" << 443 << QByteArray() << 0;
        QTest::newRow("get absolute")
            << head("GET http://example.com/simple/pip/?x=1 HTTP/1.1|Host: example.com|Accept: */*||")
            << "GET"
            << "example.com" << 80
            << head("GET /simple/pip/?x=1 HTTP/1.1|Host: example.com|Accept: */*|Connection: close||") << 0;
        QTest::newRow("port other than 80 kept in Host")
            << head("GET http://example.com:8080/a HTTP/1.1||") << "GET"
            << "example.com" << 8080 << head("GET /a HTTP/1.1|Host: example.com:8080|Connection: close||")
            << 0;
        QTest::newRow("port 80 left out of Host")
            << head("GET http://example.com:80/a HTTP/1.1||") << "GET"
            << "example.com" << 80 << head("GET /a HTTP/1.1|Host: example.com|Connection: close||") << 0;
        QTest::newRow("no path") << head("GET http://example.com HTTP/1.1||") << "GET"
                                 << "example.com" << 80
                                 << head("GET / HTTP/1.1|Host: example.com|Connection: close||") << 0;
        QTest::newRow("query without path")
            << head("GET http://example.com?a=b HTTP/1.1||") << "GET"
            << "example.com" << 80 << head("GET /?a=b HTTP/1.1|Host: example.com|Connection: close||") << 0;
        QTest::newRow("scheme and host case, path case kept, http/1.0")
            << head("GET HTTP://Example.COM./A?B HTTP/1.0||") << "GET"
            << "example.com" << 80 << head("GET /A?B HTTP/1.0|Host: example.com|Connection: close||") << 0;
        QTest::newRow("at sign in the path is not userinfo")
            << head("GET http://example.com/u@v HTTP/1.1||") << "GET"
            << "example.com" << 80 << head("GET /u@v HTTP/1.1|Host: example.com|Connection: close||") << 0;
        QTest::newRow("ipv6 target") << head("GET http://[::1]:8080/ HTTP/1.1||") << "GET"
                                     << "::1" << 8080
                                     << head("GET / HTTP/1.1|Host: [::1]:8080|Connection: close||") << 0;
        QTest::newRow("host header replaced by the target")
            << head("GET http://example.com/ HTTP/1.1|Host: evil.example|Accept: x||") << "GET"
            << "example.com" << 80 << head("GET / HTTP/1.1|Host: example.com|Accept: x|Connection: close||")
            << 0;
        QTest::newRow("hop-by-hop and proxy headers removed, order kept")
            << head("GET http://example.com/ HTTP/1.1|Accept: a|Proxy-Authorization: Basic eDp5|"
                    "Proxy-Connection: keep-alive|Connection: keep-alive, X-Secret|X-Secret: s|Keep-Alive: 5|"
                    "TE: trailers|Trailer: X-T|Upgrade: websocket|Cookie: c=1|x-secret: t|User-Agent: u||")
            << "GET"
            << "example.com" << 80
            << head(
                   "GET / HTTP/1.1|Host: example.com|Accept: a|Cookie: c=1|User-Agent: u|Connection: close||")
            << 0;
        QTest::newRow("header whitespace trimmed")
            << head("GET http://example.com/ HTTP/1.1|Accept: \t */*  \t||") << "GET"
            << "example.com" << 80 << head("GET / HTTP/1.1|Host: example.com|Accept: */*|Connection: close||")
            << 0;
        QTest::newRow("empty header value")
            << head("GET http://example.com/ HTTP/1.1|X-Empty:||") << "GET"
            << "example.com" << 80 << head("GET / HTTP/1.1|Host: example.com|X-Empty: |Connection: close||")
            << 0;
        QTest::newRow("post with body after the head")
            << head("POST http://example.com/up HTTP/1.1|Content-Length: 5||hello") << "POST"
            << "example.com" << 80
            << head("POST /up HTTP/1.1|Host: example.com|Content-Length: 5|Connection: close||") << 5;
        QTest::newRow("repeated equal content-length")
            << head("POST http://example.com/ HTTP/1.1|Content-Length: 5|Content-Length: 5, 5||") << "POST"
            << "example.com" << 80
            << head("POST / HTTP/1.1|Host: example.com|Content-Length: 5|Content-Length: 5, 5|Connection: "
                    "close||")
            << 0;
        QTest::newRow("chunked") << head("POST http://example.com/ HTTP/1.1|Transfer-Encoding: chunked||")
                                 << "POST"
                                 << "example.com" << 80
                                 << head("POST / HTTP/1.1|Host: example.com|Transfer-Encoding: chunked|"
                                         "Connection: close||")
                                 << 0;
        QTest::newRow("gzip then chunked over two headers")
            << head("POST http://example.com/ HTTP/1.1|Transfer-Encoding: gzip|Transfer-Encoding: chunked||")
            << "POST"
            << "example.com" << 80
            << head("POST / HTTP/1.1|Host: example.com|Transfer-Encoding: gzip|Transfer-Encoding: chunked|"
                    "Connection: close||")
            << 0;
        QTest::newRow("extension method")
            << head("PROPFIND http://example.com/d HTTP/1.1||") << "PROPFIND"
            << "example.com" << 80 << head("PROPFIND /d HTTP/1.1|Host: example.com|Connection: close||") << 0;
        QTest::newRow("non-ascii header value passed on")
            << head("GET http://example.com/ HTTP/1.1|X-Name: caf\xc3\xa9||") << "GET"
            << "example.com" << 80
            << head("GET / HTTP/1.1|Host: example.com|X-Name: caf\xc3\xa9|Connection: close||") << 0;
    }

    void accepted() {
        QFETCH(QByteArray, buffer);
        QFETCH(QString, method);
        QFETCH(QString, host);
        QFETCH(int, port);
        QFETCH(QByteArray, upstream);
        QFETCH(int, body);
        const auto result = parseProxyHead(view(buffer));
        if (const auto* error = std::get_if<ProxyHeadError>(&result))
            QFAIL(qPrintable(QString::number(error->status) + " " + QString::fromStdString(error->message)));
        QVERIFY(std::holds_alternative<ParsedProxyHead>(result));
        const ParsedProxyHead& parsed = std::get<ParsedProxyHead>(result);
        QCOMPARE(QString::fromStdString(parsed.request.method), method);
        QCOMPARE(parsed.request.tunnel, method == "CONNECT");
        QCOMPARE(QString::fromStdString(parsed.request.host), host);
        QCOMPARE(int(parsed.request.port), port);
        QCOMPARE(QByteArray::fromStdString(parsed.request.upstreamHead), upstream);
        QCOMPARE(parsed.consumed, static_cast<std::size_t>(buffer.size() - body));
    }

    // Every prefix of a valid head is incomplete: the proxy waits for more rather than answering.
    void incompletePrefixes_data() {
        QTest::addColumn<QByteArray>("buffer");
        QTest::newRow("connect") << head(
            "CONNECT pypi.org:443 HTTP/1.1|Host: pypi.org:443|User-Agent: pip||");
        QTest::newRow("get with headers")
            << head("GET http://example.com/a?b HTTP/1.1|Host: example.com|Accept: */*|Connection: x|X: y||");
        QTest::newRow("post with body framing")
            << head("POST http://[::1]:8080/ HTTP/1.0|Content-Length: 3|Proxy-Authorization: z||");
        QTest::newRow("no headers") << head("GET http://e.example HTTP/1.1||");
    }

    void incompletePrefixes() {
        QFETCH(QByteArray, buffer);
        for (qsizetype size = 0; size < buffer.size(); ++size) {
            const auto result = parseProxyHead(view(buffer).substr(0, static_cast<std::size_t>(size)));
            QVERIFY2(std::holds_alternative<std::nullopt_t>(result),
                     qPrintable("prefix of " + QString::number(size)));
        }
        QVERIFY(std::holds_alternative<ParsedProxyHead>(parseProxyHead(view(buffer))));
    }

    void refused_data() {
        QTest::addColumn<QByteArray>("buffer");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("message"); // a part of the message

        // The request line.
        QTest::newRow("empty head") << head("||") << 400 << "not METHOD TARGET";
        QTest::newRow("empty line before the request")
            << head("|GET http://a.example/ HTTP/1.1||") << 400 << "not METHOD TARGET";
        QTest::newRow("no version") << head("GET http://a.example/||") << 400 << "not METHOD TARGET";
        QTest::newRow("two spaces") << head("GET  http://a.example/ HTTP/1.1||") << 400
                                    << "not METHOD TARGET";
        QTest::newRow("tab as separator")
            << head("GET\thttp://a.example/ HTTP/1.1||") << 400 << "not METHOD TARGET";
        QTest::newRow("leading space")
            << head(" GET http://a.example/ HTTP/1.1||") << 400 << "not METHOD TARGET";
        QTest::newRow("method not a token")
            << head("G(T http://a.example/ HTTP/1.1||") << 400 << "not METHOD TARGET";
        QTest::newRow("lowercase version")
            << head("GET http://a.example/ http/1.1||") << 400 << "HTTP/1.1 or HTTP/1.0";
        QTest::newRow("short version")
            << head("GET http://a.example/ HTTP/1||") << 400 << "HTTP/1.1 or HTTP/1.0";
        QTest::newRow("http/2") << head("GET http://a.example/ HTTP/2.0||") << 505
                                << "only HTTP/1.0 and HTTP/1.1";
        QTest::newRow("http/1.2") << head("GET http://a.example/ HTTP/1.2||") << 505
                                  << "only HTTP/1.0 and HTTP/1.1";
        QTest::newRow("http/0.9") << head("GET http://a.example/ HTTP/0.9||") << 505
                                  << "only HTTP/1.0 and HTTP/1.1";
        QTest::newRow("http/2 preface")
            << head("PRI * HTTP/2.0||SM||") << 505 << "only HTTP/1.0 and HTTP/1.1";
        QTest::newRow("non-ascii target")
            << head("GET http://a.example/caf\xc3\xa9 HTTP/1.1||") << 400 << "printable ASCII";
        QTest::newRow("trace") << head("TRACE http://a.example/ HTTP/1.1||") << 405
                               << "TRACE is not supported";

        // The target.
        QTest::newRow("origin form") << head("GET / HTTP/1.1|Host: a.example||") << 400 << "absolute form";
        QTest::newRow("asterisk form") << head("OPTIONS * HTTP/1.1||") << 400 << "absolute form";
        QTest::newRow("authority form for get")
            << head("GET a.example:80 HTTP/1.1||") << 400 << "absolute form";
        QTest::newRow("lowercase connect is not connect")
            << head("connect a.example:443 HTTP/1.1||") << 400 << "absolute form";
        QTest::newRow("https in absolute form")
            << head("GET https://a.example/ HTTP/1.1||") << 501 << "HTTPS goes through CONNECT";
        QTest::newRow("other scheme") << head("GET ftp://a.example/ HTTP/1.1||") << 501 << "only http://";
        QTest::newRow("userinfo") << head("GET http://user@a.example/ HTTP/1.1||") << 400 << "credentials";
        QTest::newRow("userinfo with password")
            << head("GET http://u:p@a.example/ HTTP/1.1||") << 400 << "credentials";
        QTest::newRow("userinfo hiding the host")
            << head("GET http://a.example:80@evil.example/ HTTP/1.1||") << 400 << "credentials";
        QTest::newRow("backslash before at")
            << head("GET http://a.example\\@evil.example/ HTTP/1.1||") << 400 << "credentials";
        QTest::newRow("backslash in host") << head("GET http://evil.example\\.a.example/ HTTP/1.1||") << 400
                                           << "characters no host name has";
        QTest::newRow("percent-encoded host")
            << head("GET http://%65vil.example/ HTTP/1.1||") << 400 << "characters no host name has";
        QTest::newRow("underscore host")
            << head("GET http://a_b.example/ HTTP/1.1||") << 400 << "characters no host name has";
        QTest::newRow("empty host") << head("GET http:///x HTTP/1.1||") << 400 << "names no host";
        QTest::newRow("empty host with port") << head("GET http://:80/ HTTP/1.1||") << 400 << "names no host";
        QTest::newRow("empty port") << head("GET http://a.example:/ HTTP/1.1||") << 400 << "bad port";
        QTest::newRow("port zero") << head("GET http://a.example:0/ HTTP/1.1||") << 400 << "bad port";
        QTest::newRow("port too high") << head("GET http://a.example:65536/ HTTP/1.1||") << 400 << "bad port";
        QTest::newRow("two ports") << head("GET http://a.example:80:81/ HTTP/1.1||") << 400 << "bad port";
        QTest::newRow("fragment") << head("GET http://a.example/#x HTTP/1.1||") << 400 << "fragment";
        QTest::newRow("connect without port")
            << head("CONNECT a.example HTTP/1.1||") << 400 << "CONNECT needs host:port";
        QTest::newRow("connect port zero") << head("CONNECT a.example:0 HTTP/1.1||") << 400 << "bad port";
        QTest::newRow("connect port not a number")
            << head("CONNECT a.example:https HTTP/1.1||") << 400 << "bad port";
        QTest::newRow("connect with url")
            << head("CONNECT http://a.example:443 HTTP/1.1||") << 400 << "bad port";
        QTest::newRow("connect userinfo")
            << head("CONNECT u@a.example:443 HTTP/1.1||") << 400 << "credentials";
        QTest::newRow("connect ipv6 without brackets")
            << head("CONNECT ::1:443 HTTP/1.1||") << 400 << "names no host";
        QTest::newRow("connect ipv6 unclosed") << head("CONNECT [::1:443 HTTP/1.1||") << 400 << "no closing";
        QTest::newRow("connect ipv6 zone")
            << head("CONNECT [fe80::1%25eth0]:443 HTTP/1.1||") << 400 << "no IPv6 address";
        QTest::newRow("connect ipvfuture")
            << head("CONNECT [v1.x]:443 HTTP/1.1||") << 400 << "no IPv6 address";
        QTest::newRow("connect text after brackets")
            << head("CONNECT [::1]x:443 HTTP/1.1||") << 400 << "text after";
        QTest::newRow("connect with chunked body")
            << head("CONNECT a.example:443 HTTP/1.1|Transfer-Encoding: chunked||") << 400 << "no body";
        QTest::newRow("connect with a length")
            << head("CONNECT a.example:443 HTTP/1.1|Content-Length: 5||") << 400 << "no body";

        // Bytes that split heads differently in different servers.
        QTest::newRow("bare LF ends a line")
            << head("GET http://a.example/ HTTP/1.1\nX: y||") << 400 << "bare LF";
        QTest::newRow("bare LF head never completes")
            << QByteArray("GET http://a.example/ HTTP/1.1\n\n") << 400 << "bare LF";
        QTest::newRow("bare CR inside a line")
            << head("GET http://a.example/ HTTP/1.1|X: a\rb||") << 400 << "CR that does not end a line";
        QTest::newRow("bare CR hides a header")
            << head("GET http://a.example/ HTTP/1.1|X: a\rContent-Length: 5||") << 400
            << "CR that does not end a line";
        QTest::newRow("NUL in a header")
            << head("GET http://a.example/ HTTP/1.1|X: a") + QByteArray(1, '\0') + head("b||") << 400
            << "NUL";
        QTest::newRow("NUL before the end arrives")
            << QByteArray("GET http://a.example/\0", 22) << 400 << "NUL";
        QTest::newRow("control character in a value") << head("GET http://a.example/ HTTP/1.1|X: a\x01"
                                                              "b||")
                                                      << 400 << "control character";
        QTest::newRow("delete in a value")
            << head("GET http://a.example/ HTTP/1.1|X: a\x7f||") << 400 << "control character";

        // Header lines.
        QTest::newRow("obs-fold with space")
            << head("GET http://a.example/ HTTP/1.1|X: a| b||") << 400 << "obsolete line folding";
        QTest::newRow("obs-fold with tab")
            << head("GET http://a.example/ HTTP/1.1|X: a|\tb||") << 400 << "obsolete line folding";
        QTest::newRow("first header folded")
            << head("GET http://a.example/ HTTP/1.1| Host: evil.example||") << 400 << "obsolete line folding";
        QTest::newRow("space before colon")
            << head("POST http://a.example/ HTTP/1.1|Content-Length : 5||") << 400 << "header name";
        QTest::newRow("tab before colon")
            << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding\t: chunked||") << 400 << "header name";
        QTest::newRow("slash in name")
            << head("GET http://a.example/ HTTP/1.1|X/Y: a||") << 400 << "header name";
        QTest::newRow("non-ascii in name")
            << head("GET http://a.example/ HTTP/1.1|X\xc3\xa9: a||") << 400 << "header name";
        QTest::newRow("empty name") << head("GET http://a.example/ HTTP/1.1|: a||") << 400 << "header name";
        QTest::newRow("no colon") << head("GET http://a.example/ HTTP/1.1|Just text||") << 400 << "no ':'";
        QTest::newRow("two host headers")
            << head("GET http://a.example/ HTTP/1.1|Host: a.example|host: b.example||") << 400
            << "more than one Host";

        // Body framing (request smuggling).
        QTest::newRow("content-length and transfer-encoding")
            << head("POST http://a.example/ HTTP/1.1|Content-Length: 5|Transfer-Encoding: chunked||") << 400
            << "both Content-Length and Transfer-Encoding";
        QTest::newRow("transfer-encoding then content-length")
            << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding: chunked|Content-Length: 0||") << 400
            << "both Content-Length and Transfer-Encoding";
        QTest::newRow("differing content-length headers")
            << head("POST http://a.example/ HTTP/1.1|Content-Length: 5|Content-Length: 6||") << 400
            << "differing Content-Length";
        QTest::newRow("differing content-length in one list")
            << head("POST http://a.example/ HTTP/1.1|Content-Length: 5, 6||") << 400
            << "differing Content-Length";
        QTest::newRow("content-length with sign")
            << head("POST http://a.example/ HTTP/1.1|Content-Length: +5||") << 400 << "not a decimal number";
        QTest::newRow("content-length negative")
            << head("POST http://a.example/ HTTP/1.1|Content-Length: -1||") << 400 << "not a decimal number";
        QTest::newRow("content-length hex")
            << head("POST http://a.example/ HTTP/1.1|Content-Length: 0x5||") << 400 << "not a decimal number";
        QTest::newRow("content-length empty")
            << head("POST http://a.example/ HTTP/1.1|Content-Length:||") << 400 << "not a decimal number";
        QTest::newRow("content-length with space inside")
            << head("POST http://a.example/ HTTP/1.1|Content-Length: 5 5||") << 400 << "not a decimal number";
        QTest::newRow("content-length overflowing")
            << head("POST http://a.example/ HTTP/1.1|Content-Length: 18446744073709551617||") << 400
            << "not a decimal number";
        QTest::newRow("coding after chunked")
            << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding: chunked, gzip||") << 400
            << "end in exactly \"chunked\"";
        QTest::newRow("only gzip") << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding: gzip||") << 400
                                   << "end in exactly \"chunked\"";
        QTest::newRow("chunked capitalised")
            << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding: Chunked||") << 400
            << "end in exactly \"chunked\"";
        QTest::newRow("chunked with a prefix")
            << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding: xchunked||") << 400
            << "end in exactly \"chunked\"";
        QTest::newRow("chunked quoted")
            << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding: \"chunked\"||") << 400
            << "malformed coding";
        QTest::newRow("chunked with parameter")
            << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding: chunked;q=1||") << 400
            << "malformed coding";
        QTest::newRow("empty coding") << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding: ,chunked||")
                                      << 400 << "malformed coding";
        QTest::newRow("empty transfer-encoding")
            << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding:||") << 400 << "malformed coding";
        QTest::newRow("chunked twice")
            << head("POST http://a.example/ HTTP/1.1|Transfer-Encoding: chunked|Transfer-Encoding: chunked||")
            << 400 << "more than once";
        QTest::newRow("chunked on http/1.0")
            << head("POST http://a.example/ HTTP/1.0|Transfer-Encoding: chunked||") << 400 << "HTTP/1.0";
        QTest::newRow("connection drops content-length")
            << head("POST http://a.example/ HTTP/1.1|Connection: Content-Length|Content-Length: 5||") << 400
            << "frames the body";
        QTest::newRow("proxy-connection drops transfer-encoding")
            << head("POST http://a.example/ HTTP/1.1|Proxy-Connection: close, transfer-encoding|"
                    "Transfer-Encoding: chunked||")
            << 400 << "frames the body";
        QTest::newRow("connection lists a non-name")
            << head("GET http://a.example/ HTTP/1.1|Connection: a b||") << 400 << "other than header names";

        // Size.
        QTest::newRow("request line over the limit")
            << overLimit("GET http://a.example/") << 414 << "request line";
        QTest::newRow("headers over the limit")
            << overLimit(head("GET http://a.example/ HTTP/1.1|X: ")) << 431 << "request head is longer";
        QTest::newRow("complete but over the limit")
            << overLimit(head("GET http://a.example/ HTTP/1.1|X: ")) + head("||") << 431
            << "request head is longer";
    }

    void refused() {
        QFETCH(QByteArray, buffer);
        QFETCH(int, status);
        QFETCH(QString, message);
        const auto result = parseProxyHead(view(buffer));
        const auto* error = std::get_if<ProxyHeadError>(&result);
        if (!error)
            QFAIL(std::holds_alternative<std::nullopt_t>(result) ? "incomplete" : "accepted");
        const QString actual = QString::fromStdString(error->message);
        QVERIFY2(actual.contains(message), qPrintable(actual));
        QCOMPARE(error->status, status);
    }

    // The limit counts the whole head with its final CRLFCRLF: a head of exactly that many bytes is read, one
    // byte more is refused, whether or not its end has arrived.
    void headAtTheLimit() {
        const QByteArray start = head("GET http://a.example/ HTTP/1.1|X: ");
        const QByteArray end = head("||");
        const auto filler = static_cast<qsizetype>(kMaxProxyHeadBytes) - start.size() - end.size();
        const QByteArray atLimit = start + QByteArray(filler, 'a') + end;
        QCOMPARE(static_cast<std::size_t>(atLimit.size()), kMaxProxyHeadBytes);
        const auto accepted = parseProxyHead(view(atLimit + "body"));
        QVERIFY(std::holds_alternative<ParsedProxyHead>(accepted));
        QCOMPARE(std::get<ParsedProxyHead>(accepted).consumed, kMaxProxyHeadBytes);

        const QByteArray overByOne = start + QByteArray(filler + 1, 'a') + end;
        const auto refused = parseProxyHead(view(overByOne));
        QVERIFY(std::holds_alternative<ProxyHeadError>(refused));
        QCOMPARE(std::get<ProxyHeadError>(refused).status, 431);
        // Its last byte not yet arrived: already refused, the end cannot come within the limit.
        const auto early = parseProxyHead(view(overByOne.left(overByOne.size() - 1)));
        QVERIFY(std::holds_alternative<ProxyHeadError>(early));
    }
};

QTEST_APPLESS_MAIN(TestProxyHead)
#include "tst_proxy_head.moc"
