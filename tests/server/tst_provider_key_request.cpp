// PUT /v1/me/provider-keys/{provider}'s input: the providers warrend keeps keys for, and the strict body,
// whose refusals never repeat what was sent.
#include "app/wire/ProviderKeyBody.h"
#include "server/api/ProviderKeyRequest.h"

#include <QtTest>

using namespace warren::server;
using warren::wire::kMaxProviderKeyBytes;
using warren::wire::ProviderKeyBody;

class TestProviderKeyRequest : public QObject {
    Q_OBJECT

private slots:
    void providerNames_data() {
        QTest::addColumn<QString>("provider");
        QTest::addColumn<bool>("known");
        QTest::newRow("openai") << "openai" << true;
        QTest::newRow("anthropic") << "anthropic" << true;
        QTest::newRow("openrouter") << "openrouter" << true;
        QTest::newRow("openai-compatible") << "openai-compatible" << true;
        QTest::newRow("a local server needs no key") << "ollama" << false;
        QTest::newRow("scripted") << "scripted" << false;
        QTest::newRow("unknown") << "gemini" << false;
        QTest::newRow("case differs") << "OpenAI" << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("a spec, not a name") << "openai-compatible:http://x" << false;
    }
    void providerNames() {
        QFETCH(QString, provider);
        QFETCH(bool, known);
        const auto checked = checkProviderKeyName(provider.toStdString());
        QCOMPARE(checked.ok(), known);
        if (!known)
            QVERIFY(checked.error().message.find(
                        "use one of anthropic, openai, openai-compatible, openrouter") != std::string::npos);
    }

    void readsTheKey() {
        auto key = ProviderKeyBody::fromJson(R"({"key": "sk-proj-abc_123-XYZ"})");
        QVERIFY2(key, key ? "" : key.error().message.c_str());
        QCOMPARE(key->key, std::string("sk-proj-abc_123-XYZ"));
        auto longest = ProviderKeyBody::fromJson("{\"key\": \"" + std::string(kMaxProviderKeyBytes, 'k') + "\"}");
        QVERIFY(longest);
    }

    void refuses_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("message"); // a part of the error
        QTest::newRow("empty body") << QByteArray() << "not a JSON object";
        QTest::newRow("not JSON") << QByteArray("key=sk-SECRET1") << "not a JSON object";
        QTest::newRow("cut off") << QByteArray(R"({"key": "sk-SECRET1)") << "not a JSON object";
        QTest::newRow("an array") << QByteArray(R"(["sk-SECRET1"])") << "not a JSON object";
        QTest::newRow("no key") << QByteArray("{}") << "key: a string is required";
        QTest::newRow("key not a string") << QByteArray(R"({"key": 12345})") << "key: a string is required";
        QTest::newRow("unknown field")
            << QByteArray(R"({"key": "sk-a", "sk-SECRET1": 1})") << "a field other than \"key\"";
        QTest::newRow("the key as a field's name")
            << QByteArray(R"({"sk-SECRET1": ""})") << "a field other than \"key\"";
        QTest::newRow("key twice") << QByteArray(R"({"key": "sk-a", "key": "sk-SECRET1"})")
                                   << "not a JSON object";
        QTest::newRow("empty key") << QByteArray(R"({"key": ""})") << "key: is empty";
        QTest::newRow("oversize key")
            << QByteArray("{\"key\": \"" + QByteArray(kMaxProviderKeyBytes + 1, 'S') + "\"}")
            << "longer than 4096 bytes";
        QTest::newRow("not UTF-8") << QByteArray("{\"key\": \"sk-SECRET1\xff\"}") << "not UTF-8";
        QTest::newRow("a newline would split the header")
            << QByteArray(R"({"key": "sk-SECRET1\r\nX: y"})") << "a control";
        QTest::newRow("a space") << QByteArray(R"({"key": "sk-SECRET1 x"})") << "a space";
        QTest::newRow("non-ASCII") << QByteArray("{\"key\": \"sk-SECRET1\xc3\xa9\"}") << "non-ASCII";
        QTest::newRow("a control character unescaped")
            << QByteArray("{\"key\": \"sk-SECRET1\x01\"}") << "not a JSON object";
    }
    void refuses() {
        QFETCH(QByteArray, body);
        QFETCH(QString, message);
        auto key = ProviderKeyBody::fromJson(body.toStdString());
        QVERIFY(!key);
        QVERIFY(key.error().code == warren::ErrorCode::InvalidArgument);
        const QString error = QString::fromStdString(key.error().message);
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY2(!error.contains("SECRET"), qPrintable(error));
    }
};

QTEST_APPLESS_MAIN(TestProviderKeyRequest)
#include "tst_provider_key_request.moc"
