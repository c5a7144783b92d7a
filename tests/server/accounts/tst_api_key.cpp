// warrend's API keys: the spelling of 32 random bytes, the strict shape check, the stored hash, and the
// Authorization header, where anything but "Bearer " and one well-formed key is no key at all.

#include "server/accounts/ApiKey.h"

#include <QtTest>
#include <set>

using namespace warren::accounts;

namespace {

const std::string kBody(51, 'a');
// A well-formed key: 51 body characters and a last one whose four padding bits are zero ('g' = 16).
const std::string kKey = "wrn_" + kBody + "g";

std::array<std::uint8_t, kApiKeyRandomBytes> filled(std::uint8_t byte) {
    std::array<std::uint8_t, kApiKeyRandomBytes> bytes{};
    bytes.fill(byte);
    return bytes;
}

} // namespace

class TestApiKey : public QObject {
    Q_OBJECT

private slots:
    void encode_data();
    void encode();
    void generatedKeysAreWellFormedAndDistinct();
    void wellFormed_data();
    void wellFormed();
    void hashIsSha256OfTheText();
    void displayPrefixKeepsEightCharacters();
    void authorizationHeader_data();
    void authorizationHeader();
    void constantTimeEquals_data();
    void constantTimeEquals();
};

void TestApiKey::encode_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("key");
    const auto bytes = [](const std::array<std::uint8_t, kApiKeyRandomBytes>& array) {
        return QByteArray(reinterpret_cast<const char*>(array.data()), static_cast<qsizetype>(array.size()));
    };
    QTest::newRow("zeros") << bytes(filled(0)) << QString("wrn_" + QString(52, '0'));
    QTest::newRow("ones") << bytes(filled(0xff)) << QString("wrn_" + QString(51, 'z') + "g");
    // 0x08 = 00001000: every 5-bit group of the repeating 40-bit pattern 0x0808080808.
    QTest::newRow("pattern") << bytes(filled(0x08))
                             << QString("wrn_" +
                                        QString("1040g2081040g2081040g2081040g2081040g2081040g2081040"));
    auto first = filled(0);
    first[0] = 0xf8; // 11111 000...: the first character is the last of the alphabet
    QTest::newRow("first-char") << bytes(first) << QString("wrn_z" + QString(51, '0'));
}

void TestApiKey::encode() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, key);
    std::array<std::uint8_t, kApiKeyRandomBytes> array{};
    std::memcpy(array.data(), bytes.constData(), array.size());
    const std::string encoded = api_key::encode(array);
    QCOMPARE(QString::fromStdString(encoded), key);
    QCOMPARE(encoded.size(), kApiKeyLength);
    QVERIFY(api_key::isWellFormed(encoded));
}

void TestApiKey::generatedKeysAreWellFormedAndDistinct() {
    std::set<std::string> seen;
    for (int i = 0; i < 200; ++i) {
        auto key = api_key::generate();
        QVERIFY2(key.ok(), key.ok() ? "" : key.error().message.c_str());
        QVERIFY2(api_key::isWellFormed(*key), key->c_str());
        QVERIFY(seen.insert(*key).second);
    }
}

void TestApiKey::wellFormed_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("wellFormed");
    const QString body = QString::fromStdString(kBody);
    QTest::newRow("key") << QString::fromStdString(kKey) << true;
    QTest::newRow("last-char-zero") << "wrn_" + body + "0" << true;
    QTest::newRow("padding-bits-set") << "wrn_" + body + "1" << false;
    QTest::newRow("padding-bits-set-h") << "wrn_" + body + "h" << false;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("prefix-only") << "wrn_" << false;
    QTest::newRow("prefix-upper") << "WRN_" + body + "g" << false;
    QTest::newRow("other-prefix") << "sk-_" + body + "g" << false;
    QTest::newRow("one-short") << "wrn_" + body << false;
    QTest::newRow("one-long") << "wrn_" + body + "g0" << false;
    QTest::newRow("ambiguous-i") << "wrn_i" + body.mid(1) + "g" << false;
    QTest::newRow("ambiguous-l") << "wrn_l" + body.mid(1) + "g" << false;
    QTest::newRow("ambiguous-o") << "wrn_o" + body.mid(1) + "g" << false;
    QTest::newRow("excluded-u") << "wrn_u" + body.mid(1) + "g" << false;
    QTest::newRow("uppercase") << "wrn_A" + body.mid(1) + "g" << false;
    QTest::newRow("url-unsafe") << "wrn_/" + body.mid(1) + "g" << false;
    QTest::newRow("space") << "wrn_ " + body.mid(1) + "g" << false;
}

void TestApiKey::wellFormed() {
    QFETCH(QString, text);
    QFETCH(bool, wellFormed);
    QCOMPARE(api_key::isWellFormed(text.toStdString()), wellFormed);
}

void TestApiKey::hashIsSha256OfTheText() {
    QCOMPARE(QString::fromStdString(api_key::hash("abc")),
             QStringLiteral("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    const std::string hashed = api_key::hash(kKey);
    QCOMPARE(hashed.size(), std::size_t{64});
    QVERIFY(hashed.find(kBody.substr(0, 8)) == std::string::npos);
    QVERIFY(api_key::hash(kKey) != api_key::hash("wrn_" + kBody + "0"));
}

void TestApiKey::displayPrefixKeepsEightCharacters() {
    QCOMPARE(QString::fromStdString(api_key::displayPrefix(kKey)), QStringLiteral("wrn_aaaaaaaa"));
}

void TestApiKey::authorizationHeader_data() {
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<bool>("accepted");
    const QByteArray key = QByteArray::fromStdString(kKey);
    QTest::newRow("bearer") << "Bearer " + key << true;
    QTest::newRow("scheme-lowercase") << "bearer " + key << true;
    QTest::newRow("scheme-uppercase") << "BEARER " + key << true;
    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("scheme-only") << QByteArray("Bearer") << false;
    QTest::newRow("scheme-and-space") << QByteArray("Bearer ") << false;
    QTest::newRow("key-alone") << key << false;
    QTest::newRow("two-spaces") << "Bearer  " + key << false;
    QTest::newRow("tab") << "Bearer\t" + key << false;
    QTest::newRow("leading-space") << " Bearer " + key << false;
    QTest::newRow("trailing-space") << "Bearer " + key + " " << false;
    QTest::newRow("trailing-newline") << "Bearer " + key + "\n" << false;
    QTest::newRow("trailing-nul") << "Bearer " + key + QByteArray(1, '\0') << false;
    QTest::newRow("two-keys") << "Bearer " + key + ",Bearer " + key << false;
    QTest::newRow("basic") << "Basic " + key << false;
    QTest::newRow("token") << "Token " + key << false;
    QTest::newRow("bearer-prefix-word") << "Bearerx " + key << false;
    QTest::newRow("malformed-key") << "Bearer wrn_" + QByteArray(52, 'o') << false;
    QTest::newRow("quoted") << "Bearer \"" + key + "\"" << false;
}

void TestApiKey::authorizationHeader() {
    QFETCH(QByteArray, header);
    QFETCH(bool, accepted);
    const auto key = api_key::fromAuthorizationHeader(
        std::string_view(header.constData(), static_cast<std::size_t>(header.size())));
    QCOMPARE(key.has_value(), accepted);
    if (accepted)
        QCOMPARE(QString::fromStdString(*key), QString::fromStdString(kKey));
}

void TestApiKey::constantTimeEquals_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<bool>("equal");
    QTest::newRow("same") << "abcdef"
                          << "abcdef" << true;
    QTest::newRow("empty") << ""
                           << "" << true;
    QTest::newRow("first-differs") << "xbcdef"
                                   << "abcdef" << false;
    QTest::newRow("last-differs") << "abcdex"
                                  << "abcdef" << false;
    QTest::newRow("prefix") << "abc"
                            << "abcdef" << false;
    QTest::newRow("longer") << "abcdefg"
                            << "abcdef" << false;
}

void TestApiKey::constantTimeEquals() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(bool, equal);
    QCOMPARE(api_key::constantTimeEquals(a.toStdString(), b.toStdString()), equal);
}

QTEST_GUILESS_MAIN(TestApiKey)
#include "tst_api_key.moc"
