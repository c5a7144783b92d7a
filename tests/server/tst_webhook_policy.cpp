// WebhookPolicy: which URLs a user may register (the attacks: every kind of address inside the server's host
// and networks, written every way, and the names the machine answers for itself; schemes other than http and
// https; credentials in the URL), the operator's --allow-internal as the one way inside, the signature
// (RFC 4231's HMAC-SHA256 vector), the retry schedule. And the wire bodies a user sends and a receiver reads.
#include "app/wire/WebhookBody.h"
#include "server/webhooks/WebhookPolicy.h"

#include <QMessageAuthenticationCode>
#include <QtTest>

using namespace warren;
using namespace warren::server;

namespace {

control::InsideAccess serverAccess() {
    return {true, {}};
} // warrend without --allow-internal

} // namespace

class TestWebhookPolicy : public QObject {
    Q_OBJECT

private slots:
    void refusesEveryAddressInside_data() {
        QTest::addColumn<QString>("url");
        QTest::newRow("loopback") << "http://127.0.0.1:8080/hook";
        QTest::newRow("loopback elsewhere in 127/8") << "http://127.1.2.3/hook";
        QTest::newRow("unspecified") << "http://0.0.0.0/hook";
        QTest::newRow("private 10/8") << "http://10.0.0.5/hook";
        QTest::newRow("private 172.16/12") << "https://172.20.1.1/hook";
        QTest::newRow("private 192.168/16") << "http://192.168.1.10/hook";
        QTest::newRow("link-local, the cloud metadata address") << "http://169.254.169.254/latest/meta-data/";
        QTest::newRow("carrier-grade NAT") << "http://100.64.0.1/hook";
        QTest::newRow("multicast") << "http://224.0.0.1/hook";
        QTest::newRow("broadcast") << "http://255.255.255.255/hook";
        QTest::newRow("IPv6 loopback") << "http://[::1]:8080/hook";
        QTest::newRow("IPv6 unspecified") << "http://[::]/hook";
        QTest::newRow("IPv6 link-local") << "http://[fe80::1]/hook";
        QTest::newRow("IPv6 unique-local") << "http://[fd00::1]/hook";
        QTest::newRow("IPv6 multicast") << "http://[ff02::1]/hook";
        QTest::newRow("IPv4-mapped loopback") << "http://[::ffff:127.0.0.1]/hook";
        QTest::newRow("IPv4-mapped metadata") << "http://[::ffff:169.254.169.254]/hook";
        QTest::newRow("NAT64 of a private address") << "http://[64:ff9b::a00:1]/hook";
        QTest::newRow("localhost") << "http://localhost:8080/hook";
        QTest::newRow("localhost, upper case, trailing dot") << "http://LOCALHOST./hook";
        QTest::newRow("a name under localhost") << "http://evil.localhost/hook";
        QTest::newRow("ip6-localhost") << "http://ip6-localhost/hook";
    }
    void refusesEveryAddressInside() {
        QFETCH(QString, url);
        const auto checked = checkWebhookUrl(url.toStdString(), serverAccess());
        QVERIFY2(!checked, qPrintable(url));
        QCOMPARE(checked.error().code, ErrorCode::InvalidArgument);
        QVERIFY2(checked.error().message.find("--allow-internal") != std::string::npos,
                 checked.error().message.c_str());
    }

    void refusesWhatIsNotAPlainHttpUrl_data() {
        QTest::addColumn<QString>("url");
        QTest::newRow("another scheme") << "ftp://example.com/hook";
        QTest::newRow("a file") << "file:///etc/passwd";
        QTest::newRow("gopher") << "gopher://example.com:70/";
        QTest::newRow("no scheme") << "example.com/hook";
        QTest::newRow("credentials") << "https://user:pass@example.com/hook";
        QTest::newRow("a fragment") << "https://example.com/hook#x";
        QTest::newRow("a space") << "https://example.com/a hook";
        QTest::newRow("a line break") << "https://example.com/a\r\nX-Injected: 1";
        QTest::newRow("empty") << "";
        QTest::newRow("too long") << "https://example.com/" + QString(2100, 'a');
    }
    void refusesWhatIsNotAPlainHttpUrl() {
        QFETCH(QString, url);
        QVERIFY2(!checkWebhookUrl(url.toStdString(), serverAccess()), qPrintable(url));
    }

    void takesPublicUrls_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::newRow("https name") << "https://hooks.example.com/warren?x=1"
                                    << "hooks.example.com" << 443;
        QTest::newRow("http with a port") << "http://hooks.example.com:8080/in"
                                          << "hooks.example.com" << 8080;
        QTest::newRow("a public address") << "http://93.184.216.34/hook"
                                          << "93.184.216.34" << 80;
        QTest::newRow("a public IPv6 address") << "https://[2606:2800:220:1::1]/hook"
                                               << "2606:2800:220:1::1" << 443;
    }
    void takesPublicUrls() {
        QFETCH(QString, url);
        QFETCH(QString, host);
        QFETCH(int, port);
        const auto checked = checkWebhookUrl(url.toStdString(), serverAccess());
        QVERIFY2(checked, checked ? "" : checked.error().message.c_str());
        QCOMPARE(QString::fromStdString(checked->host), host);
        QCOMPARE(int(checked->port), port);
    }

    // The operator's --allow-internal is the one way inside, for exactly what it names.
    void theOperatorAllowsDestinationsInside() {
        auto allowed = control::parseInsideDestinations("127.0.0.1:8080");
        QVERIFY(allowed);
        const control::InsideAccess access{true, *allowed};
        QVERIFY(checkWebhookUrl("http://127.0.0.1:8080/hook", access));
        QVERIFY(!checkWebhookUrl("http://127.0.0.1:8081/hook", access)); // another port
        QVERIFY(!checkWebhookUrl("http://10.0.0.1:8080/hook", access));
        // At delivery, a name is judged by the address it resolved to.
        const auto url = parseHttpUrl("http://hooks.example.com:8080/in");
        QVERIFY(url);
        QVERIFY(!webhookAddressAllowed(*url, QHostAddress("127.0.0.1"), serverAccess()));
        QVERIFY(!webhookAddressAllowed(*url, QHostAddress("::ffff:10.1.2.3"), serverAccess()));
        QVERIFY(webhookAddressAllowed(*url, QHostAddress("93.184.216.34"), serverAccess()));
        QVERIFY(webhookAddressAllowed(*url, QHostAddress("127.0.0.1"), access));
    }

    void signsTheBody() {
        // RFC 4231, test case 2.
        QCOMPARE(webhookSignature("Jefe", "what do ya want for nothing?"),
                 std::string("sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
        QVERIFY(webhookSignature("one secret", "{}") != webhookSignature("another secret", "{}"));
        QVERIFY(webhookSignature("one secret", "{}") != webhookSignature("one secret", "{} "));
    }

    void retriesOnASchedule() {
        QCOMPARE(webhookRetryDelay(1), std::optional(std::chrono::milliseconds(1000)));
        QCOMPARE(webhookRetryDelay(2), std::optional(std::chrono::milliseconds(2000)));
        QCOMPARE(webhookRetryDelay(3), std::optional(std::chrono::milliseconds(4000)));
        QCOMPARE(webhookRetryDelay(kMaxDeliveryAttempts - 1),
                 std::optional(std::chrono::milliseconds(64000)));
        QVERIFY(!webhookRetryDelay(kMaxDeliveryAttempts)); // given up
        QVERIFY(!webhookRetryDelay(0));
        QVERIFY(webhookDelivered(200) && webhookDelivered(204) && !webhookDelivered(301) &&
                !webhookDelivered(500));
    }

    void readsARegistrationStrictly_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<bool>("ok");
        QTest::newRow("a url") << QByteArray("{\"url\": \"https://example.com/h\"}") << true;
        QTest::newRow("some events")
            << QByteArray("{\"url\": \"https://example.com/h\", \"events\": [\"task.finished\"]}") << true;
        QTest::newRow("no url") << QByteArray("{\"events\": [\"task.finished\"]}") << false;
        QTest::newRow("url not a string") << QByteArray("{\"url\": 5}") << false;
        QTest::newRow("an unknown event")
            << QByteArray("{\"url\": \"https://e.com\", \"events\": [\"task.deleted\"]}") << false;
        QTest::newRow("an event twice")
            << QByteArray("{\"url\": \"https://e.com\", \"events\": [\"task.created\", \"task.created\"]}")
            << false;
        QTest::newRow("no events") << QByteArray("{\"url\": \"https://e.com\", \"events\": []}") << false;
        QTest::newRow("another field")
            << QByteArray("{\"url\": \"https://e.com\", \"secret\": \"mine\"}") << false;
        QTest::newRow("a key twice") << QByteArray(
                                            "{\"url\": \"https://e.com\", \"url\": \"http://10.0.0.1\"}")
                                     << false;
        QTest::newRow("not an object") << QByteArray("[\"https://e.com\"]") << false;
        QTest::newRow("not UTF-8") << QByteArray("{\"url\": \"\xff\"}") << false;
    }
    void readsARegistrationStrictly() {
        QFETCH(QByteArray, body);
        QFETCH(bool, ok);
        const auto read =
            wire::WebhookRequest::fromJson(std::string_view(body.constData(), std::size_t(body.size())));
        QCOMPARE(bool(read), ok);
        if (read)
            QVERIFY(!read->events.empty());
    }

    void aDeliveryRoundTrips() {
        const wire::WebhookDelivery delivery{"whd-1", wire::WebhookEvent::TaskWaiting,
                                             "2026-12-06T18:00:00.000Z", "t-000000000001", "waiting"};
        const std::string body = delivery.toJson().dump();
        const auto read = wire::WebhookDelivery::fromJson(body);
        QVERIFY(read);
        QCOMPARE(read->id, delivery.id);
        QCOMPARE(read->type, delivery.type);
        QCOMPARE(read->taskId, delivery.taskId);
        QCOMPARE(read->status, delivery.status);
        QCOMPARE(wire::splitWebhookEvents(wire::joinWebhookEvents(wire::allWebhookEvents())),
                 wire::allWebhookEvents());
    }
};

QTEST_GUILESS_MAIN(TestWebhookPolicy)
#include "tst_webhook_policy.moc"
