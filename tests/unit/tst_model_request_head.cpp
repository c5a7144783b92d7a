// ModelRequestHead and ModelRoute: the requests the model proxy takes from a CLI in the sandbox, the heads it
// refuses (malformed, smuggling, too large, a body it would not read the end of), every incomplete prefix of
// a valid head (which must wait for more bytes), and where each route goes: only the CLI's own routes, the
// query kept, the base URL joined as each API's base URL is written.

#include "app/modelproxy/ModelRequestHead.h"
#include "app/modelproxy/ModelRoute.h"

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

constexpr std::uint64_t kBody = 1000;

} // namespace

class TestModelRequestHead : public QObject {
    Q_OBJECT

private slots:
    void accepted_data() {
        QTest::addColumn<QByteArray>("buffer");
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("query"); // "-": none
        QTest::addColumn<int>("length");
        QTest::addColumn<bool>("expectContinue");
        QTest::addColumn<int>("after"); // bytes after the head

        QTest::newRow("claude code's probe") << head("HEAD / HTTP/1.1|Host: 127.0.0.1:8080||") << "HEAD"
                                             << "/" << "-" << 0 << false << 0;
        QTest::newRow("messages with its query and body")
            << head("POST /v1/messages?beta=true HTTP/1.1|x-api-key: tok|Content-Length: 2||") + "{}" << "POST"
            << "/v1/messages" << "beta=true" << 2 << false << 2;
        QTest::newRow("empty query") << head("POST /v1/responses? HTTP/1.1|Content-Length: 0||") << "POST"
                                     << "/v1/responses" << "" << 0 << false << 0;
        QTest::newRow("repeated equal lengths") << head("POST /v1/responses HTTP/1.1|Content-Length: 5, 5||")
                                                << "POST" << "/v1/responses" << "-" << 5 << false << 0;
        QTest::newRow("expect continue") << head("POST /v1/messages HTTP/1.1|Expect: 100-Continue|Content-Length: 9||")
                                         << "POST" << "/v1/messages" << "-" << 9 << true << 0;
        QTest::newRow("http/1.0, tab around a value")
            << head("POST /v1/chat/completions HTTP/1.0|Content-Length:\t7\t||") << "POST"
            << "/v1/chat/completions" << "-" << 7 << false << 0;
        QTest::newRow("body of the limit") << head("POST /v1/messages HTTP/1.1|Content-Length: 1000||") << "POST"
                                           << "/v1/messages" << "-" << 1000 << false << 0;
    }
    void accepted() {
        QFETCH(QByteArray, buffer);
        QFETCH(QString, method);
        QFETCH(QString, path);
        QFETCH(QString, query);
        QFETCH(int, length);
        QFETCH(bool, expectContinue);
        QFETCH(int, after);
        const auto parsed = parseModelRequestHead(view(buffer), kBody);
        const auto* error = std::get_if<ModelHeadError>(&parsed);
        QVERIFY2(!error, error ? error->message.c_str() : "");
        const auto* result = std::get_if<ModelRequestHead>(&parsed);
        QVERIFY(result);
        QCOMPARE(QString::fromStdString(result->method), method);
        QCOMPARE(QString::fromStdString(result->path), path);
        QCOMPARE(result->hasQuery, query != "-");
        if (query != "-")
            QCOMPARE(QString::fromStdString(result->query), query);
        QCOMPARE(result->contentLength, std::uint64_t(length));
        QCOMPARE(result->expectContinue, expectContinue);
        QCOMPARE(int(buffer.size() - qsizetype(result->consumed)), after);
    }

    void headersAreKeptInOrderAndFoundInAnyCase() {
        const QByteArray buffer =
            head("POST /v1/messages HTTP/1.1|X-Api-Key:  tok |anthropic-beta: a|anthropic-beta: b||");
        const auto parsed = parseModelRequestHead(view(buffer), kBody);
        const auto* result = std::get_if<ModelRequestHead>(&parsed);
        QVERIFY(result);
        QCOMPARE(result->headers.size(), 3u);
        QCOMPARE(QString::fromStdString(std::string(*result->header("x-api-key"))), QString("tok"));
        QCOMPARE(QString::fromStdString(result->headers[2].value), QString("b"));
        QVERIFY(!result->header("authorization"));
    }

    void refused_data() {
        QTest::addColumn<QByteArray>("buffer");
        QTest::addColumn<int>("status");
        QTest::newRow("absolute target") << head("POST http://api.anthropic.com/v1/messages HTTP/1.1||") << 400;
        QTest::newRow("authority target") << head("CONNECT api.openai.com:443 HTTP/1.1||") << 400;
        QTest::newRow("asterisk") << head("OPTIONS * HTTP/1.1||") << 400;
        QTest::newRow("fragment") << head("POST /v1/messages#x HTTP/1.1||") << 400;
        QTest::newRow("two spaces") << head("POST  /v1/messages HTTP/1.1||") << 400;
        QTest::newRow("no version") << head("POST /v1/messages||") << 400;
        QTest::newRow("http/2") << head("POST /v1/messages HTTP/2.0||") << 505;
        QTest::newRow("not http") << head("POST /v1/messages FTP/1.1||") << 400;
        QTest::newRow("non-ascii target") << head("POST /v1/m\xc3\xa9ssages HTTP/1.1||") << 400;
        QTest::newRow("bare lf") << QByteArray("POST /v1/messages HTTP/1.1\nHost: x\r\n\r\n") << 400;
        QTest::newRow("bare cr") << QByteArray("POST /v1/messages HTTP/1.1\r\nA: b\rc\r\n\r\n") << 400;
        QTest::newRow("nul") << QByteArray("POST /v1/messages HTTP/1.1\r\nA: \0\r\n\r\n", 37) << 400;
        QTest::newRow("obs-fold") << head("POST /v1/messages HTTP/1.1|A: b| c||") << 400;
        QTest::newRow("no colon") << head("POST /v1/messages HTTP/1.1|A b||") << 400;
        QTest::newRow("space in name") << head("POST /v1/messages HTTP/1.1|A b: c||") << 400;
        QTest::newRow("length and chunked")
            << head("POST /v1/messages HTTP/1.1|Content-Length: 3|Transfer-Encoding: chunked||") << 400;
        QTest::newRow("chunked and length")
            << head("POST /v1/messages HTTP/1.1|Transfer-Encoding: chunked|Content-Length: 3||") << 400;
        QTest::newRow("chunked twice")
            << head("POST /v1/messages HTTP/1.1|Transfer-Encoding: chunked|Transfer-Encoding: chunked||") << 400;
        QTest::newRow("another coding") << head("POST /v1/messages HTTP/1.1|Transfer-Encoding: gzip, chunked||") << 501;
        QTest::newRow("chunked in http/1.0") << head("POST /v1/messages HTTP/1.0|Transfer-Encoding: chunked||") << 400;
        QTest::newRow("differing lengths") << head("POST /v1/messages HTTP/1.1|Content-Length: 3|Content-Length: 4||")
                                           << 400;
        QTest::newRow("negative length") << head("POST /v1/messages HTTP/1.1|Content-Length: -1||") << 400;
        QTest::newRow("hex length") << head("POST /v1/messages HTTP/1.1|Content-Length: 0x10||") << 400;
        QTest::newRow("huge length") << head("POST /v1/messages HTTP/1.1|Content-Length: 99999999999999999999||")
                                     << 400;
        QTest::newRow("body over the limit") << head("POST /v1/messages HTTP/1.1|Content-Length: 1001||") << 413;
        QTest::newRow("other expectation") << head("POST /v1/messages HTTP/1.1|Expect: 200-ok||") << 417;
        QTest::newRow("head over the limit")
            << head("POST /v1/messages HTTP/1.1|A: ") + QByteArray(qsizetype(kMaxModelHeadBytes), 'a') << 431;
    }
    void refused() {
        QFETCH(QByteArray, buffer);
        QFETCH(int, status);
        const auto parsed = parseModelRequestHead(view(buffer), kBody);
        const auto* error = std::get_if<ModelHeadError>(&parsed);
        QVERIFY(error);
        QCOMPARE(error->status, status);
        QVERIFY(!error->message.empty());
    }

    // A head that has not all arrived waits: every prefix of a valid one, split anywhere (inside CRLF too).
    void everyPrefixWaits() {
        const QByteArray full = head("POST /v1/messages?beta=true HTTP/1.1|x-api-key: tok|Content-Length: 2||");
        for (qsizetype length = 0; length < full.size(); ++length) {
            const auto parsed = parseModelRequestHead(view(full.left(length)), kBody);
            QVERIFY2(std::holds_alternative<std::nullopt_t>(parsed), qPrintable(QString::number(length)));
        }
    }

    void routes_data() {
        QTest::addColumn<bool>("anthropic");
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("action"); // probe, refuse, or the upstream URL (then "call" or "count" after a space)
        const QString a = "https://api.anthropic.com";
        const QString o = "https://api.openai.com/v1";
        QTest::newRow("anthropic probe") << true << a << "HEAD" << "/" << "probe";
        QTest::newRow("openai probe get") << false << o << "GET" << "/" << "probe";
        QTest::newRow("post to root") << true << a << "POST" << "/" << "refuse";
        QTest::newRow("messages, query kept")
            << true << a << "POST" << "/v1/messages?beta=true" << "https://api.anthropic.com/v1/messages?beta=true call";
        QTest::newRow("count tokens") << true << a + "/" << "POST" << "/v1/messages/count_tokens"
                                      << "https://api.anthropic.com/v1/messages/count_tokens count";
        QTest::newRow("messages by get") << true << a << "GET" << "/v1/messages" << "refuse";
        QTest::newRow("models list") << true << a << "GET" << "/v1/models" << "refuse";
        QTest::newRow("messages batches") << true << a << "POST" << "/v1/messages/batches" << "refuse";
        QTest::newRow("responses on anthropic") << true << a << "POST" << "/v1/responses" << "refuse";
        QTest::newRow("responses") << false << o << "POST" << "/v1/responses" << "https://api.openai.com/v1/responses call";
        QTest::newRow("chat completions") << false << "http://127.0.0.1:11434/v1/" << "POST" << "/v1/chat/completions"
                                          << "http://127.0.0.1:11434/v1/chat/completions call";
        QTest::newRow("messages on openai") << false << o << "POST" << "/v1/messages" << "refuse";
        QTest::newRow("files") << false << o << "POST" << "/v1/files" << "refuse";
        QTest::newRow("dot segments") << false << o << "POST" << "/v1/../v1/responses" << "refuse";
        QTest::newRow("encoded path") << false << o << "POST" << "/v1/%72esponses" << "refuse";
        QTest::newRow("trailing slash") << false << o << "POST" << "/v1/responses/" << "refuse";
        QTest::newRow("without version") << false << o << "POST" << "/responses" << "refuse";
    }
    void routes() {
        QFETCH(bool, anthropic);
        QFETCH(QString, base);
        QFETCH(QString, method);
        QFETCH(QString, target);
        QFETCH(QString, action);
        const qsizetype question = target.indexOf('?');
        const QString path = target.left(question);
        const QString query = question < 0 ? QString() : target.mid(question + 1);
        const ModelRoute route = routeModelRequest(anthropic ? ProviderConfig::Kind::Anthropic : ProviderConfig::Kind::OpenAi,
                                                   base.toStdString(), method.toStdString(), path.toStdString(),
                                                   question >= 0, query.toStdString());
        if (action == "probe")
            QCOMPARE(route.action, ModelRoute::Action::Probe);
        else if (action == "refuse")
            QCOMPARE(route.action, ModelRoute::Action::Refuse);
        else {
            QCOMPARE(route.action, ModelRoute::Action::Forward);
            QCOMPARE(QString::fromStdString(route.upstreamUrl), action.section(' ', 0, 0));
            QCOMPARE(route.modelCall, action.section(' ', 1) == "call");
        }
    }

    void aScriptedProviderHasNoRoutes() {
        const ModelRoute route = routeModelRequest(ProviderConfig::Kind::Scripted, "", "POST", "/v1/messages", false, "");
        QCOMPARE(route.action, ModelRoute::Action::Refuse);
    }
};

QTEST_GUILESS_MAIN(TestModelRequestHead)
#include "tst_model_request_head.moc"
