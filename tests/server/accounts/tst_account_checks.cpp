// The account store's pure checks: user and tenant names, Idempotency-Key values, the calendar month
// (UTC) tokens are counted in, and the message an over-quota answer carries.

#include "server/accounts/AccountStore.h"

#include <QtTest>

using namespace warren;
using namespace warren::accounts;

class TestAccountChecks : public QObject {
    Q_OBJECT

private slots:
    void accountName_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("plain") << "alice" << true;
        QTest::newRow("digits-dots-dashes") << "team-7.ops_1" << true;
        QTest::newRow("starts-with-digit") << "7up" << true;
        QTest::newRow("longest") << QString(64, 'a') << true;
        QTest::newRow("too-long") << QString(65, 'a') << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("leading-dash") << "-alice" << false;
        QTest::newRow("leading-dot") << ".alice" << false;
        QTest::newRow("leading-underscore") << "_alice" << false;
        QTest::newRow("space") << "al ice" << false;
        QTest::newRow("slash") << "al/ice" << false;
        QTest::newRow("quote") << "al'ice" << false;
        QTest::newRow("non-ascii") << "alicé" << false;
        QTest::newRow("key-prefix") << "wrn_alice" << false;
        QTest::newRow("key-like-but-not") << "wrnalice" << true;
    }
    void accountName() {
        QFETCH(QString, name);
        QFETCH(bool, accepted);
        const Status status = checkAccountName("user", name.toStdString());
        QCOMPARE(status.ok(), accepted);
        if (!accepted)
            QVERIFY(status.error().message.find("is not a user name") != std::string::npos);
    }

    void idempotencyKey_data() {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("uuid") << QByteArray("0b7c9a4e-3f1d-4c8e-9a61-5d2f7e8b1c3a") << true;
        QTest::newRow("one") << QByteArray("x") << true;
        QTest::newRow("longest") << QByteArray(255, 'k') << true;
        QTest::newRow("too-long") << QByteArray(256, 'k') << false;
        QTest::newRow("empty") << QByteArray() << false;
        QTest::newRow("space") << QByteArray("a b") << false;
        QTest::newRow("tab") << QByteArray("a\tb") << false;
        QTest::newRow("newline") << QByteArray("a\nb") << false;
        QTest::newRow("nul") << QByteArray("a\0b", 3) << false;
        QTest::newRow("del") << QByteArray("a\x7f") << false;
        QTest::newRow("non-ascii") << QByteArray("clé") << false;
    }
    void idempotencyKey() {
        QFETCH(QByteArray, key);
        QFETCH(bool, accepted);
        QCOMPARE(checkIdempotencyKey(key.toStdString()).ok(), accepted);
    }

    void month_data() {
        QTest::addColumn<qint64>("seconds");
        QTest::addColumn<QString>("month");
        QTest::newRow("epoch") << qint64(0) << "1970-01-01";
        QTest::newRow("last-second-of-2026") << qint64(1798761599) << "2026-12-01";
        QTest::newRow("first-second-of-2027") << qint64(1798761600) << "2027-01-01";
        QTest::newRow("leap-day") << qint64(1709164800) << "2024-02-01";
    }
    void month() {
        QFETCH(qint64, seconds);
        QFETCH(QString, month);
        const Clock::time_point at{std::chrono::seconds(seconds)};
        QCOMPARE(QString::fromStdString(monthOf(at)), month);
    }

    void overQuotaMessageSaysWhichLimitAndWhatToDo() {
        const OverQuota running{LimitLevel::User, LimitName::MaxConcurrent, 2, 2};
        QCOMPARE(
            QString::fromStdString(running.message()),
            QStringLiteral("the user's max_concurrent (2) is reached: 2 tasks are running; retry when one "
                           "ends, or ask the operator to raise it"));
        const OverQuota tokens{LimitLevel::Tenant, LimitName::TokensPerMonth, 1000, 990};
        QVERIFY(
            tokens.message().starts_with("the tenant's tokens_per_month (1000) would be exceeded: 990 used"));
    }
};

QTEST_GUILESS_MAIN(TestAccountChecks)
#include "tst_account_checks.moc"
