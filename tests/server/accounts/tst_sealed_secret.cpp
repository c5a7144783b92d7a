// Provider keys sealed at rest: AES-256-GCM with a fresh nonce per seal and the ciphertext bound to its
// additional data. Every change to the key, the binding, the nonce, the ciphertext or the tag refuses.

#include "server/accounts/SealedSecret.h"

#include <QtTest>

using namespace warren::accounts;

namespace {

const std::string kKey(kSealKeyBytes, '\x11');
const std::string kAad = "user 7, provider openai";

std::string flipped(std::string text, std::size_t at) {
    text.at(at) = static_cast<char>(text.at(at) ^ 0x01);
    return text;
}

} // namespace

Q_DECLARE_METATYPE(std::string)

class TestSealedSecret : public QObject {
    Q_OBJECT

private slots:
    void roundTrips_data() {
        QTest::addColumn<std::string>("plaintext");
        QTest::newRow("empty") << std::string();
        QTest::newRow("one byte") << std::string("k");
        QTest::newRow("an API key") << std::string("sk-proj-0123456789abcdefghijklmnopqrstuvwxyz");
        QTest::newRow("NUL bytes") << std::string("a\0b\0", 4);
        QTest::newRow("one block") << std::string(16, 'x');
        QTest::newRow("long") << std::string(1 << 20, 'y');
    }
    void roundTrips() {
        QFETCH(std::string, plaintext);
        auto sealed = seal(kKey, kAad, plaintext);
        QVERIFY2(sealed, sealed ? "" : sealed.error().message.c_str());
        QCOMPARE(sealed->nonce.size(), kSealNonceBytes);
        QCOMPARE(sealed->ciphertext.size(), plaintext.size() + kSealTagBytes);
        if (plaintext.size() >= 8)
            QVERIFY(sealed->ciphertext.find(plaintext.substr(0, 8)) == std::string::npos);
        auto opened = unseal(kKey, kAad, *sealed);
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        QVERIFY(*opened == plaintext);
    }

    void eachSealHasItsOwnNonce() {
        auto first = seal(kKey, kAad, "same");
        auto second = seal(kKey, kAad, "same");
        QVERIFY(first && second);
        QVERIFY(first->nonce != second->nonce);
        QVERIFY(first->ciphertext != second->ciphertext);
    }

    void refusesWhatWasNotSealed_data() {
        QTest::addColumn<std::string>("key");
        QTest::addColumn<std::string>("aad");
        QTest::addColumn<int>("nonceByte");      // -1: the nonce as sealed
        QTest::addColumn<int>("ciphertextByte"); // -1: as sealed; into the tag from 11 on
        QTest::addColumn<int>("cut");            // bytes cut off the end of the ciphertext
        const std::string otherKey(kSealKeyBytes, '\x12');
        QTest::newRow("wrong key") << otherKey << kAad << -1 << -1 << 0;
        QTest::newRow("another user's binding")
            << kKey << std::string("user 8, provider openai") << -1 << -1 << 0;
        QTest::newRow("another provider's binding")
            << kKey << std::string("user 7, provider anthropic") << -1 << -1 << 0;
        QTest::newRow("no binding") << kKey << std::string() << -1 << -1 << 0;
        QTest::newRow("tampered nonce") << kKey << kAad << 0 << -1 << 0;
        QTest::newRow("tampered last nonce byte") << kKey << kAad << 11 << -1 << 0;
        QTest::newRow("tampered ciphertext") << kKey << kAad << -1 << 3 << 0;
        QTest::newRow("tampered tag") << kKey << kAad << -1 << 11 + 15 << 0;
        QTest::newRow("truncated tag") << kKey << kAad << -1 << -1 << 1;
        QTest::newRow("no tag") << kKey << kAad << -1 << -1 << 16;
        QTest::newRow("nothing") << kKey << kAad << -1 << -1 << 11 + 16;
    }
    void refusesWhatWasNotSealed() {
        QFETCH(std::string, key);
        QFETCH(std::string, aad);
        QFETCH(int, nonceByte);
        QFETCH(int, ciphertextByte);
        QFETCH(int, cut);
        auto sealed = seal(kKey, kAad, "sk-secret!!"); // 11 bytes, then the tag
        QVERIFY(sealed);
        Sealed changed = *sealed;
        if (nonceByte >= 0)
            changed.nonce = flipped(changed.nonce, static_cast<std::size_t>(nonceByte));
        if (ciphertextByte >= 0)
            changed.ciphertext = flipped(changed.ciphertext, static_cast<std::size_t>(ciphertextByte));
        changed.ciphertext.resize(changed.ciphertext.size() - static_cast<std::size_t>(cut));
        auto opened = unseal(key, aad, changed);
        QVERIFY(!opened);
        QVERIFY(opened.error().code == warren::ErrorCode::InvalidArgument);
        QVERIFY(opened.error().message.find("does not open") != std::string::npos);
    }

    void refusesKeysOfAnotherSize_data() {
        QTest::addColumn<int>("size");
        QTest::newRow("empty") << 0;
        QTest::newRow("AES-128's") << 16;
        QTest::newRow("one short") << 31;
        QTest::newRow("one long") << 33;
    }
    void refusesKeysOfAnotherSize() {
        QFETCH(int, size);
        const std::string key(static_cast<std::size_t>(size), 'k');
        auto sealed = seal(key, kAad, "x");
        QVERIFY(!sealed);
        QVERIFY(sealed.error().message.find("32 bytes") != std::string::npos);
        auto good = seal(kKey, kAad, "x");
        QVERIFY(good);
        QVERIFY(!unseal(key, kAad, *good));
    }
};

QTEST_APPLESS_MAIN(TestSealedSecret)
#include "tst_sealed_secret.moc"
