// HttpUrl: URLs read strictly (they may come from a repository's .mcp.json or a server's endpoint event), and
// references resolved against a base as a browser would.
#include "common/http/HttpUrl.h"

#include <QtTest>

using namespace warren;

class TestHttpUrl : public QObject {
    Q_OBJECT

private slots:
    void readsWhatAClientNeeds_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("tls");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("authority");
        QTest::newRow("https default port") << "https://Mcp.Example.com/mcp" << true << "mcp.example.com" << 443 << "/mcp"
                                            << "mcp.example.com";
        QTest::newRow("http with port and query") << "http://127.0.0.1:3001/sse?x=1" << false << "127.0.0.1" << 3001
                                                  << "/sse?x=1" << "127.0.0.1:3001";
        QTest::newRow("no path") << "http://host.test" << false << "host.test" << 80 << "/" << "host.test";
        QTest::newRow("query without path") << "http://host.test?a=b" << false << "host.test" << 80 << "/?a=b"
                                            << "host.test";
        QTest::newRow("ipv6") << "https://[::1]:8443/mcp" << true << "::1" << 8443 << "/mcp" << "[::1]:8443";
        QTest::newRow("trailing dot") << "http://host.test./x" << false << "host.test" << 80 << "/x" << "host.test";
        QTest::newRow("escapes kept") << "http://h.test/a%20b" << false << "h.test" << 80 << "/a%20b" << "h.test";
    }

    void readsWhatAClientNeeds() {
        QFETCH(QString, text);
        auto url = parseHttpUrl(text.toStdString());
        QVERIFY2(url, url ? "" : url.error().message.c_str());
        QTEST(url->tls, "tls");
        QTEST(QString::fromStdString(url->host), "host");
        QTEST(int(url->port), "port");
        QTEST(QString::fromStdString(url->target), "target");
        QTEST(QString::fromStdString(url->authority()), "authority");
    }

    void refusesWhatCouldMislead_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("why");
        QTest::newRow("other scheme") << "file:///etc/passwd" << "only http:// and https://";
        QTest::newRow("no scheme") << "example.com/mcp" << "does not start with http:// or https://";
        QTest::newRow("userinfo") << "http://user:pw@evil.test@good.test/" << "user@host";
        QTest::newRow("fragment") << "http://h.test/#frag" << "fragment";
        QTest::newRow("space") << "http://h.test/a b" << "cannot carry";
        QTest::newRow("line break") << "http://h.test/a\r\nHost: evil" << "cannot carry";
        QTest::newRow("backslash host") << "http://evil.test\\good.test/" << "no DNS name";
        QTest::newRow("underscore") << "http://a_b.test/" << "no DNS name";
        QTest::newRow("percent host") << "http://%65vil.test/" << "no DNS name";
        QTest::newRow("port zero") << "http://h.test:0/" << "port";
        QTest::newRow("port too big") << "http://h.test:65536/" << "port";
        QTest::newRow("port not a number") << "http://h.test:80x/" << "port";
        QTest::newRow("empty port") << "http://h.test:/" << "no port after it";
        QTest::newRow("no host") << "http:///path" << "names no host";
        QTest::newRow("ipv6 zone") << "http://[fe80::1%25eth0]/" << "IPv6";
        QTest::newRow("too long") << "http://h.test/" + QString(9000, 'a') << "longer than";
    }

    void refusesWhatCouldMislead() {
        QFETCH(QString, text);
        QFETCH(QString, why);
        auto url = parseHttpUrl(text.toStdString());
        QVERIFY(!url);
        QVERIFY2(QString::fromStdString(url.error().message).contains(why), url.error().message.c_str());
    }

    void resolvesReferences_data() {
        QTest::addColumn<QString>("reference");
        QTest::addColumn<QString>("resolved");
        QTest::newRow("absolute path") << "/message?sessionId=abc" << "http://h.test:3001/message?sessionId=abc";
        QTest::newRow("relative path") << "message?s=1" << "http://h.test:3001/api/message?s=1";
        QTest::newRow("query only") << "?s=2" << "http://h.test:3001/api/sse?s=2";
        QTest::newRow("absolute url") << "https://other.test/m" << "https://other.test/m";
        QTest::newRow("scheme relative") << "//other.test:9/m" << "http://other.test:9/m";
    }

    void resolvesReferences() {
        QFETCH(QString, reference);
        const auto base = parseHttpUrl("http://h.test:3001/api/sse?old=1");
        QVERIFY(base);
        auto url = resolveUrl(*base, reference.toStdString());
        QVERIFY2(url, url ? "" : url.error().message.c_str());
        QTEST(QString::fromStdString(url->text()), "resolved");
    }
};

QTEST_APPLESS_MAIN(TestHttpUrl)
#include "tst_http_url.moc"
