// HostSecret and SecretInjection: which secrets a user may bind and how, their stored form, and what the
// egress proxy does to a request's headers and body: the value only for a host the secret is bound to, in a
// body only for a binding that says so, written as the body's type writes a value.
#include "app/secretproxy/HostSecret.h"
#include "app/secretproxy/SecretInjection.h"

#include <QtTest>

using namespace warren::control;

namespace {

TaskSecret secret(const std::string& name, const std::string& hosts, const std::string& header, const std::string& value,
                  const std::string& placeholder) {
    auto made = makeHostSecret(name, hosts, header, value);
    if (!made)
        qFatal("%s", made.error().message.c_str());
    return {std::move(*made), placeholder};
}

std::string headerValue(const std::vector<ModelRequestHeader>& headers, const std::string& name) {
    std::string found;
    for (const auto& header : headers)
        if (header.name == name)
            found += (found.empty() ? "" : "|") + header.value;
    return found;
}

} // namespace

class TestHostSecret : public QObject {
    Q_OBJECT

private slots:
    void bindings_data();
    void bindings();
    void valuesThatCannotGoIntoAHeaderAreRefused_data();
    void valuesThatCannotGoIntoAHeaderAreRefused();
    void aRefusalNeverRepeatsTheValue();
    void theStoredFormRoundTrips();
    void aStoredEntryWarrenDidNotWriteIsRefused_data();
    void aStoredEntryWarrenDidNotWriteIsRefused();
    void placeholdersAreFreshAndRecognisable();
    void secretsBindToTheirHostsOnly_data();
    void secretsBindToTheirHostsOnly();
    void placeholdersBecomeValuesForBoundHostsOnly();
    void aHeaderTemplateReplacesTheHeaderOfThatName();
    void bodiesGetTheValueOnlyWhereTheBindingSaysSo_data();
    void bodiesGetTheValueOnlyWhereTheBindingSaysSo();
};

void TestHostSecret::bindings_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("hosts");
    QTest::addColumn<QString>("header");
    QTest::addColumn<QString>("error"); // empty: accepted
    QTest::newRow("plain") << "GITHUB_TOKEN" << "api.github.com" << "" << "";
    QTest::newRow("hosts and header") << "_key2" << "api.example.com:8443,*.search.test" << "X-Api-Key: {}" << "";
    QTest::newRow("bearer") << "TOKEN" << "example.com" << "Authorization: Bearer {}" << "";
    QTest::newRow("no host") << "TOKEN" << "" << "" << "--host is missing";
    QTest::newRow("bad host") << "TOKEN" << "exa mple.com" << "" << "--host:";
    QTest::newRow("wildcard of a top-level domain") << "TOKEN" << "*.com" << "" << "--host:";
    QTest::newRow("digit first") << "1TOKEN" << "example.com" << "" << "not starting with a digit";
    QTest::newRow("dash") << "MY-TOKEN" << "example.com" << "" << "letters, digits and '_'";
    QTest::newRow("empty name") << "" << "example.com" << "" << "letters, digits and '_'";
    QTest::newRow("too long") << QString(65, 'A') << "example.com" << "" << "at most 64";
    QTest::newRow("PATH") << "PATH" << "example.com" << "" << "read for themselves";
    QTest::newRow("lowercase https_proxy") << "https_proxy" << "example.com" << "" << "read for themselves";
    QTest::newRow("LD_ prefix") << "LD_AUDIT" << "example.com" << "" << "read for themselves";
    QTest::newRow("WARREN_ prefix") << "WARREN_EGRESS_SOCKET" << "example.com" << "" << "read for themselves";
    QTest::newRow("SSL_CERT_FILE") << "SSL_CERT_FILE" << "example.com" << "" << "read for themselves";
    QTest::newRow("no {}") << "TOKEN" << "example.com" << "Authorization: Bearer" << "exactly once";
    QTest::newRow("two {}") << "TOKEN" << "example.com" << "Authorization: {} {}" << "exactly once";
    QTest::newRow("no colon") << "TOKEN" << "example.com" << "Authorization Bearer {}" << "no ':'";
    QTest::newRow("name not a token") << "TOKEN" << "example.com" << "X Key: {}" << "header name";
    QTest::newRow("Host") << "TOKEN" << "example.com" << "host: {}" << "which the proxy sets itself";
    QTest::newRow("Content-Length") << "TOKEN" << "example.com" << "Content-Length: {}" << "which the proxy sets";
    QTest::newRow("line break") << "TOKEN" << "example.com" << "X-Key: {}\r\nX-Other: 1" << "printable ASCII";
}

void TestHostSecret::bindings() {
    QFETCH(QString, name);
    QFETCH(QString, hosts);
    QFETCH(QString, header);
    QFETCH(QString, error);
    const auto made = makeHostSecret(name.toStdString(), hosts.toStdString(), header.toStdString(), "value");
    if (error.isEmpty()) {
        QVERIFY2(made, made ? "" : made.error().message.c_str());
        QCOMPARE(QString::fromStdString(made->hostsText), hosts);
        QVERIFY(!made->hosts.empty());
    } else {
        QVERIFY(!made);
        QVERIFY2(made.error().message.find(error.toStdString()) != std::string::npos, made.error().message.c_str());
    }
}

void TestHostSecret::valuesThatCannotGoIntoAHeaderAreRefused_data() {
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("CRLF") << QByteArray("abc\r\nX-Evil: 1");
    QTest::newRow("LF") << QByteArray("abc\ndef");
    QTest::newRow("NUL") << QByteArray("abc\0def", 7);
    QTest::newRow("DEL") << QByteArray("abc\x7f");
    QTest::newRow("too long") << QByteArray(8193, 'a');
}

void TestHostSecret::valuesThatCannotGoIntoAHeaderAreRefused() {
    QFETCH(QByteArray, value);
    QVERIFY(!makeHostSecret("TOKEN", "example.com", "", value.toStdString()));
}

// A value pasted where a host goes is not quoted back in the refusal.
void TestHostSecret::aRefusalNeverRepeatsTheValue() {
    const std::string value = "ghp_0123456789abcdefTOKEN";
    const auto made = makeHostSecret("TOKEN", "api.github.com," + value + " x", "", value);
    QVERIFY(!made);
    QVERIFY2(made.error().message.find(value) == std::string::npos, made.error().message.c_str());
    QVERIFY2(made.error().message.find("[the value]") != std::string::npos, made.error().message.c_str());
}

void TestHostSecret::theStoredFormRoundTrips() {
    auto made = makeHostSecret("TOKEN", "api.example.com:8443,*.example.org", "X-Api-Key: {}", "v@lue\"with'quotes");
    QVERIFY(made);
    QCOMPARE(hostSecretEntry("TOKEN"), std::string("host-secret/TOKEN"));
    auto read = readHostSecret("TOKEN", storedHostSecret(*made));
    QVERIFY(read);
    QCOMPARE(read->value, made->value);
    QCOMPARE(read->header, made->header);
    QCOMPARE(read->hostsText, made->hostsText);
    QVERIFY(read->hosts == made->hosts);
    QVERIFY(!read->inBody);
    made->inBody = true;
    read = readHostSecret("TOKEN", storedHostSecret(*made));
    QVERIFY(read && read->inBody);
}

void TestHostSecret::aStoredEntryWarrenDidNotWriteIsRefused_data() {
    QTest::addColumn<QString>("stored");
    QTest::newRow("not JSON") << "sk-plain-provider-key";
    QTest::newRow("no hosts") << R"({"value": "v"})";
    QTest::newRow("hosts not a string") << R"({"value": "v", "hosts": ["a.com"]})";
    QTest::newRow("bad host") << R"({"value": "v", "hosts": "a b"})";
    QTest::newRow("value with a line break") << R"({"value": "v\r\nX: y", "hosts": "a.com"})";
    QTest::newRow("header owned by the proxy") << R"({"value": "v", "hosts": "a.com", "header": "Host: {}"})";
    QTest::newRow("in_body not a boolean") << R"({"value": "v", "hosts": "a.com", "in_body": "yes"})";
}

void TestHostSecret::aStoredEntryWarrenDidNotWriteIsRefused() {
    QFETCH(QString, stored);
    const auto read = readHostSecret("TOKEN", stored.toStdString());
    QVERIFY(!read);
    // The message never repeats what was stored (it may be the value).
    QVERIFY2(read.error().message.find("sk-plain") == std::string::npos, read.error().message.c_str());
}

void TestHostSecret::placeholdersAreFreshAndRecognisable() {
    std::array<std::uint8_t, 16> zeros{};
    std::array<std::uint8_t, 16> bytes{};
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<std::uint8_t>(i * 17);
    QCOMPARE(makePlaceholder(zeros), std::string("warren-secret-00000000000000000000000000000000"));
    QCOMPARE(makePlaceholder(bytes), std::string("warren-secret-00112233445566778899aabbccddeeff"));
}

void TestHostSecret::secretsBindToTheirHostsOnly_data() {
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("bound");
    QTest::newRow("the name") << "api.example.com" << 443 << true;
    QTest::newRow("any case, trailing dot") << "API.Example.COM." << 443 << true;
    QTest::newRow("another port") << "api.example.com" << 8443 << false;
    QTest::newRow("a subdomain of a wildcard") << "a.b.example.org" << 443 << true;
    QTest::newRow("the wildcard's own suffix") << "example.org" << 443 << false;
    QTest::newRow("suffix as a prefix") << "example.org.evil.net" << 443 << false;
    QTest::newRow("name as a prefix") << "api.example.com.evil.net" << 443 << false;
    QTest::newRow("look-alike") << "api-example.com" << 443 << false;
    QTest::newRow("an address") << "93.184.216.34" << 443 << false;
}

void TestHostSecret::secretsBindToTheirHostsOnly() {
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(bool, bound);
    const std::vector<TaskSecret> secrets = {secret("A", "api.example.com", "", "va", "pa"),
                                             secret("B", "*.example.org", "", "vb", "pb")};
    QCOMPARE(!secretsBoundTo(secrets, host.toStdString(), std::uint16_t(port)).empty(), bound);
}

void TestHostSecret::placeholdersBecomeValuesForBoundHostsOnly() {
    const std::vector<TaskSecret> secrets = {secret("A", "api.example.com", "", "value-a", "warren-secret-aaaa"),
                                             secret("B", "other.example.com", "", "value-b", "warren-secret-bbbb")};
    const auto bound = secretsBoundTo(secrets, "api.example.com", 443);
    QCOMPARE(bound.size(), std::size_t(1));
    const auto injected = injectSecrets({{"Authorization", "Bearer warren-secret-aaaa"},
                                         {"X-Both", "warren-secret-aaaa:warren-secret-aaaa"},
                                         {"X-Other", "warren-secret-bbbb"},
                                         {"Accept", "*/*"}},
                                        bound);
    QCOMPARE(headerValue(injected.headers, "Authorization"), std::string("Bearer value-a"));
    QCOMPARE(headerValue(injected.headers, "X-Both"), std::string("value-a:value-a"));
    // B is bound elsewhere: its placeholder goes out as it is.
    QCOMPARE(headerValue(injected.headers, "X-Other"), std::string("warren-secret-bbbb"));
    QCOMPARE(headerValue(injected.headers, "Accept"), std::string("*/*"));
    QCOMPARE(injected.used, std::vector<std::string>{"A"});
    // Nothing of it in a request that does not carry the placeholder.
    const auto untouched = injectSecrets({{"Accept", "*/*"}}, bound);
    QVERIFY(untouched.used.empty());
    QCOMPARE(untouched.headers.size(), std::size_t(1));
}

void TestHostSecret::aHeaderTemplateReplacesTheHeaderOfThatName() {
    const std::vector<TaskSecret> secrets = {secret("KEY", "api.example.com", "x-api-key: key={}", "s3cret", "warren-secret-k")};
    const auto injected = injectSecrets({{"X-API-KEY", "what the agent wrote"}, {"Accept", "*/*"}},
                                        secretsBoundTo(secrets, "api.example.com", 443));
    QCOMPARE(headerValue(injected.headers, "x-api-key"), std::string("key=s3cret"));
    QCOMPARE(headerValue(injected.headers, "X-API-KEY"), std::string());
    QCOMPARE(injected.used, std::vector<std::string>{"KEY"});
}

void TestHostSecret::bodiesGetTheValueOnlyWhereTheBindingSaysSo_data() {
    QTest::addColumn<QString>("contentType");
    QTest::addColumn<QString>("contentEncoding");
    QTest::addColumn<QString>("body");     // P: the in-body secret's placeholder, H: the headers-only one's
    QTest::addColumn<QString>("expected"); // what goes to the host
    QTest::addColumn<bool>("used");
    QTest::newRow("json") << "application/json" << "" << R"({"token": "P", "other": "H"})"
                          << R"({"token": "a\"b\\c&d=e f+g", "other": "H"})" << true;
    QTest::newRow("json with parameters, twice") << "Application/JSON; charset=utf-8" << "" << "[\"P\",\"P\"]"
                                                 << R"(["a\"b\\c&d=e f+g","a\"b\\c&d=e f+g"])" << true;
    QTest::newRow("a +json type") << "application/vnd.api+json" << "" << R"({"t":"P"})" << R"({"t":"a\"b\\c&d=e f+g"})"
                                  << true;
    QTest::newRow("form") << "application/x-www-form-urlencoded" << "" << "token=P&x=1"
                          << "token=a%22b%5Cc%26d%3De%20f%2Bg&x=1" << true;
    QTest::newRow("text as it is") << "text/plain" << "" << "key P." << "key a\"b\\c&d=e f+g." << true;
    QTest::newRow("no type as it is") << "" << "identity" << "P" << "a\"b\\c&d=e f+g" << true;
    QTest::newRow("compressed: left") << "application/json" << "gzip" << R"({"token": "P"})" << R"({"token": "P"})"
                                      << false;
    QTest::newRow("no placeholder") << "application/json" << "" << R"({"a": 1})" << R"({"a": 1})" << false;
}

void TestHostSecret::bodiesGetTheValueOnlyWhereTheBindingSaysSo() {
    QFETCH(QString, contentType);
    QFETCH(QString, contentEncoding);
    QFETCH(QString, body);
    QFETCH(QString, expected);
    QFETCH(bool, used);
    const std::string inBodyPlaceholder = "warren-secret-11112222333344445555666677778888";
    const std::string headersPlaceholder = "warren-secret-9999aaaabbbbccccddddeeeeffff0000";
    std::vector<TaskSecret> secrets = {
        secret("IN_BODY", "api.example.com", "", "a\"b\\c&d=e f+g", inBodyPlaceholder),
        secret("HEADERS", "api.example.com", "", "headers-only-value", headersPlaceholder),
        secret("ELSEWHERE", "other.example.com", "", "elsewhere-value", "warren-secret-elsewhere")};
    secrets[0].secret.inBody = true;
    secrets[2].secret.inBody = true;
    const auto bound = secretsBoundTo(secrets, "api.example.com", 443);
    std::string sent = body.toStdString();
    const auto place = [&](std::string text) {
        for (const auto& [letter, placeholder] : {std::pair{'P', inBodyPlaceholder}, std::pair{'H', headersPlaceholder}})
            for (auto at = text.find(letter); at != std::string::npos; at = text.find(letter, at + placeholder.size()))
                text.replace(at, 1, placeholder);
        return text;
    };
    sent = place(sent);
    const auto names = injectIntoBody(sent, contentType.toStdString(), contentEncoding.toStdString(), bound);
    QCOMPARE(QString::fromStdString(sent), QString::fromStdString(place(expected.toStdString())));
    QCOMPARE(names, used ? std::vector<std::string>{"IN_BODY"} : std::vector<std::string>{});
    // A secret bound elsewhere never goes into this host's body, in-body or not.
    std::string elsewhere = "warren-secret-elsewhere";
    QVERIFY(injectIntoBody(elsewhere, "text/plain", "", bound).empty());
    QCOMPARE(elsewhere, std::string("warren-secret-elsewhere"));
}

QTEST_GUILESS_MAIN(TestHostSecret)
#include "tst_host_secret.moc"
