// TaskTokens: a token grants its scopes until it expires or is revoked, and any change to it, a token
// from another control plane, or a string that is not a token at all is refused with the reason.

#include "app/proxy/TaskToken.h"

#include <QByteArray>
#include <QDateTime>
#include <QtTest>

using namespace warren;
using namespace warren::control;
using namespace std::chrono_literals;

namespace {

std::int64_t now() {
    return QDateTime::currentMSecsSinceEpoch();
}

QString messageOf(const Result<TokenClaims>& result) {
    return result ? QString() : QString::fromStdString(result.error().message);
}

std::string payloadOf(const std::string& token) {
    return QByteArray::fromBase64(QByteArray::fromStdString(token.substr(0, token.find('.'))),
                                  QByteArray::Base64UrlEncoding)
        .toStdString();
}

std::string encoded(const std::string& text) {
    return QByteArray::fromStdString(text)
        .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals)
        .toStdString();
}

} // namespace

class TestTaskTokens : public QObject {
    Q_OBJECT

private slots:
    void validTokenGrantsItsScopes() {
        TaskTokens tokens("a secret of the test");
        const std::string token = tokens.issue("task-1", {scope::kLlm, scope::kMemory}, 60s);
        QCOMPARE(token.find('='), std::string::npos); // base64url without padding
        for (const char* granted : {scope::kLlm, scope::kMemory}) {
            const auto claims = tokens.verify(token, granted, now());
            QVERIFY2(claims.ok(), qPrintable(messageOf(claims)));
            QCOMPARE(claims->taskId, std::string("task-1"));
            QCOMPARE(claims->scopes, (std::vector<std::string>{scope::kLlm, scope::kMemory}));
            QVERIFY(claims->expiresAtMs > now());
            QVERIFY(!claims->nonce.empty());
        }
    }

    void tokensAreUnique() {
        TaskTokens tokens;
        QVERIFY(tokens.issue("task-1", {scope::kLlm}, 60s) != tokens.issue("task-1", {scope::kLlm}, 60s));
    }

    void tamperedPayloadIsRefused() {
        TaskTokens tokens("secret");
        const std::string token = tokens.issue("task-1", {scope::kLlm}, 60s);
        std::string payload = payloadOf(token);
        payload.replace(payload.find("task-1"), 6, "task-2");
        const std::string forged = encoded(payload) + token.substr(token.find('.'));
        QVERIFY(tokens.verify(token, scope::kLlm, now()).ok());
        QVERIFY(messageOf(tokens.verify(forged, scope::kLlm, now())).contains("bad signature"));
    }

    void tamperedMacIsRefused() {
        TaskTokens tokens("secret");
        std::string token = tokens.issue("task-1", {scope::kLlm}, 60s);
        char& last = token[token.size() - 2];
        last = last == 'A' ? 'B' : 'A';
        QVERIFY(messageOf(tokens.verify(token, scope::kLlm, now())).contains("bad signature"));
    }

    // The last character of each part has spare low bits a decoder ignores: a token is one exact string,
    // so no other spelling of it verifies (the nonce stays the token's one identity).
    void noOtherSpellingOfATokenVerifies() {
        TaskTokens tokens("secret");
        const std::string token = tokens.issue("task-1", {scope::kLlm}, 60s);
        const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        for (const std::size_t at : {token.find('.') - 1, token.size() - 1}) {
            for (const char c : alphabet) {
                if (c == token[at])
                    continue;
                std::string respelled = token;
                respelled[at] = c;
                QVERIFY2(!tokens.verify(respelled, scope::kLlm, now()).ok(), respelled.c_str());
            }
        }
        QVERIFY(tokens.verify(token, scope::kLlm, now()).ok());
    }

    void expiredTokenIsRefused() {
        TaskTokens tokens("secret");
        const std::string token = tokens.issue("task-1", {scope::kLlm}, 60s);
        const auto claims = tokens.verify(token, scope::kLlm, now());
        QVERIFY(claims.ok());
        QVERIFY(tokens.verify(token, scope::kLlm, claims->expiresAtMs - 1).ok());
        QVERIFY(messageOf(tokens.verify(token, scope::kLlm, claims->expiresAtMs)).contains("expired"));
        QVERIFY(
            messageOf(tokens.verify(token, scope::kLlm, claims->expiresAtMs + 3600'000)).contains("expired"));
    }

    void missingScopeIsRefused() {
        TaskTokens tokens("secret");
        const std::string token = tokens.issue("task-1", {scope::kLlm}, 60s);
        QCOMPARE(messageOf(tokens.verify(token, scope::kApproval, now())),
                 QString("task token refused: no scope approval"));
    }

    void revokedTokenIsRefused() {
        TaskTokens tokens("secret");
        const std::string revoked = tokens.issue("task-1", {scope::kLlm}, 60s);
        const std::string other = tokens.issue("task-1", {scope::kLlm}, 60s);
        tokens.revoke(revoked);
        QVERIFY(messageOf(tokens.verify(revoked, scope::kLlm, now())).contains("revoked"));
        QVERIFY(tokens.verify(other, scope::kLlm, now()).ok());
    }

    void revokeTaskRefusesEveryTokenOfTheTask() {
        TaskTokens tokens("secret");
        const std::string first = tokens.issue("task-1", {scope::kLlm}, 60s);
        const std::string second = tokens.issue("task-1", {scope::kMemory}, 60s);
        const std::string otherTask = tokens.issue("task-2", {scope::kLlm}, 60s);
        tokens.revokeTask("task-1");
        QVERIFY(messageOf(tokens.verify(first, scope::kLlm, now())).contains("revoked"));
        QVERIFY(messageOf(tokens.verify(second, scope::kMemory, now())).contains("revoked"));
        QVERIFY(tokens.verify(otherTask, scope::kLlm, now()).ok());
        // The task resumed in the same process (after a pause or a rewind): its new run's token works, the
        // old ones stay refused.
        const std::string resumed = tokens.issue("task-1", {scope::kLlm}, 60s);
        QVERIFY(tokens.verify(resumed, scope::kLlm, now()).ok());
        QVERIFY(messageOf(tokens.verify(first, scope::kLlm, now())).contains("revoked"));
    }

    void tokenOfAnotherInstanceIsRefused() {
        TaskTokens issuer;
        TaskTokens verifier;
        const std::string token = issuer.issue("task-1", {scope::kLlm}, 60s);
        QVERIFY(issuer.verify(token, scope::kLlm, now()).ok());
        QVERIFY(messageOf(verifier.verify(token, scope::kLlm, now())).contains("bad signature"));
        verifier.revoke(token); // not its token: nothing to revoke, nothing breaks
        QVERIFY(issuer.verify(token, scope::kLlm, now()).ok());
    }

    void garbageIsMalformed_data() {
        QTest::addColumn<QByteArray>("token");
        TaskTokens tokens("secret");
        const std::string valid = tokens.issue("task-1", {scope::kLlm}, 60s);
        const std::string payload = valid.substr(0, valid.find('.'));
        const std::string mac = valid.substr(valid.find('.') + 1);
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("no dot") << QByteArray::fromStdString(payload + mac);
        QTest::newRow("only a dot") << QByteArray(".");
        QTest::newRow("empty payload") << QByteArray::fromStdString("." + mac);
        QTest::newRow("empty mac") << QByteArray::fromStdString(payload + ".");
        QTest::newRow("two dots") << QByteArray::fromStdString(payload + "." + mac + "." + mac);
        QTest::newRow("not base64") << QByteArray::fromStdString(payload + ".!!!!");
        QTest::newRow("standard base64 padding") << QByteArray::fromStdString(payload + "." + mac + "=");
        QTest::newRow("short mac") << QByteArray::fromStdString(payload + "." + mac.substr(0, 20));
        QTest::newRow("nul byte") << QByteArray::fromStdString(payload + std::string(1, '\0') + "." + mac);
        QTest::newRow("huge") << QByteArray(10 * 1024 * 1024, 'A') + "." + QByteArray::fromStdString(mac);
    }

    void garbageIsMalformed() {
        QFETCH(QByteArray, token);
        const TaskTokens tokens("secret");
        QCOMPARE(messageOf(tokens.verify(token.toStdString(), scope::kLlm, now())),
                 QString("task token refused: malformed"));
    }

    // Correctly signed, but not what issue() writes: still refused as malformed, never half-read.
    void signedButInvalidClaimsAreMalformed_data() {
        QTest::addColumn<QByteArray>("claims");
        QTest::newRow("not json") << QByteArray("task-1");
        QTest::newRow("array") << QByteArray("[1,2]");
        QTest::newRow("no task") << QByteArray(
            "{\"scopes\":[\"llm\"],\"exp\":9999999999999,\"nonce\":\"n\"}");
        QTest::newRow("scope not text")
            << QByteArray("{\"task\":\"t\",\"scopes\":[1],\"exp\":9999999999999,\"nonce\":\"n\"}");
        QTest::newRow("exp as text") << QByteArray(
            "{\"task\":\"t\",\"scopes\":[\"llm\"],\"exp\":\"9999999999999\",\"nonce\":\"n\"}");
    }

    void signedButInvalidClaimsAreMalformed() {
        QFETCH(QByteArray, claims);
        const std::string payload = encoded(claims.toStdString());
        const QByteArray mac = QMessageAuthenticationCode::hash(QByteArray::fromStdString(payload), "secret",
                                                                QCryptographicHash::Sha256);
        const std::string token =
            payload + "." +
            mac.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals).toStdString();
        const TaskTokens tokens("secret");
        QCOMPARE(messageOf(tokens.verify(token, scope::kLlm, now())),
                 QString("task token refused: malformed"));
    }
};

QTEST_GUILESS_MAIN(TestTaskTokens)
#include "tst_task_tokens.moc"
