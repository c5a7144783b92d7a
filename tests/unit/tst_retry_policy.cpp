// RetryPolicy: which answers are retried, and after how long.
#include "app/providers/RetryPolicy.h"

#include <QtTest>

using std::chrono::milliseconds;
using warren::control::RetryPolicy;

class TestRetryPolicy : public QObject {
    Q_OBJECT
private slots:
    void retryableStatuses_data();
    void retryableStatuses();
    void delays_data();
    void delays();
    void retryAfter_data();
    void retryAfter();
};

void TestRetryPolicy::retryableStatuses_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("retryable");
    QTest::newRow("429 rate limited") << 429 << true;
    QTest::newRow("500") << 500 << true;
    QTest::newRow("502") << 502 << true;
    QTest::newRow("503") << 503 << true;
    QTest::newRow("504") << 504 << true;
    QTest::newRow("529 Anthropic overloaded") << 529 << true;
    QTest::newRow("400 bad request") << 400 << false;
    QTest::newRow("401 bad key") << 401 << false;
    QTest::newRow("403") << 403 << false;
    QTest::newRow("404 unknown model") << 404 << false;
    QTest::newRow("413 too large") << 413 << false;
    QTest::newRow("501 not implemented") << 501 << false;
    QTest::newRow("200") << 200 << false;
}

void TestRetryPolicy::retryableStatuses() {
    QFETCH(int, status);
    QFETCH(bool, retryable);
    QCOMPARE(RetryPolicy::isRetryableStatus(status), retryable);
}

void TestRetryPolicy::delays_data() {
    QTest::addColumn<int>("attempt");
    QTest::addColumn<QByteArray>("retryAfter");
    QTest::addColumn<QByteArray>("retryAfterMs");
    QTest::addColumn<qint64>("delayMs");
    QTest::newRow("first retry: the base") << 1 << QByteArray() << QByteArray() << qint64(500);
    QTest::newRow("second retry: doubled") << 2 << QByteArray() << QByteArray() << qint64(1000);
    QTest::newRow("fourth retry") << 4 << QByteArray() << QByteArray() << qint64(4000);
    QTest::newRow("capped at the maximum") << 8 << QByteArray() << QByteArray() << qint64(30000);
    QTest::newRow("huge attempt does not overflow") << 1000 << QByteArray() << QByteArray() << qint64(30000);
    QTest::newRow("Retry-After seconds") << 1 << QByteArray("1") << QByteArray() << qint64(1000);
    QTest::newRow("Retry-After zero") << 3 << QByteArray("0") << QByteArray() << qint64(0);
    QTest::newRow("Retry-After beyond the maximum") << 1 << QByteArray("3600") << QByteArray() << qint64(30000);
    QTest::newRow("Retry-After HTTP-date") << 1 << QByteArray("Wed, 21 Oct 2015 07:28:10 GMT") << QByteArray()
                                           << qint64(10000);
    QTest::newRow("Retry-After date in the past") << 1 << QByteArray("Wed, 21 Oct 2015 07:27:00 GMT") << QByteArray()
                                                  << qint64(0);
    QTest::newRow("unreadable Retry-After: backoff") << 2 << QByteArray("soon") << QByteArray() << qint64(1000);
    QTest::newRow("retry-after-ms wins") << 1 << QByteArray("5") << QByteArray("250") << qint64(250);
}

void TestRetryPolicy::delays() {
    QFETCH(int, attempt);
    QFETCH(QByteArray, retryAfter);
    QFETCH(QByteArray, retryAfterMs);
    QFETCH(qint64, delayMs);
    const RetryPolicy policy{4, milliseconds(500), milliseconds(30000)};
    const QDateTime now(QDate(2015, 10, 21), QTime(7, 28, 0), Qt::UTC);
    QCOMPARE(policy.delay(attempt, retryAfter, retryAfterMs, now).count(), delayMs);
}

void TestRetryPolicy::retryAfter_data() {
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<qint64>("delayMs"); // -1: none
    QTest::newRow("absent") << QByteArray() << qint64(-1);
    QTest::newRow("seconds with spaces") << QByteArray(" 20 ") << qint64(20000);
    QTest::newRow("negative") << QByteArray("-5") << qint64(-1);
    QTest::newRow("fraction is not HTTP") << QByteArray("1.5") << qint64(-1);
    QTest::newRow("IMF-fixdate") << QByteArray("Wed, 21 Oct 2015 07:29:00 GMT") << qint64(60000);
    QTest::newRow("garbage") << QByteArray("tomorrow") << qint64(-1);
}

void TestRetryPolicy::retryAfter() {
    QFETCH(QByteArray, value);
    QFETCH(qint64, delayMs);
    const QDateTime now(QDate(2015, 10, 21), QTime(7, 28, 0), Qt::UTC);
    const auto parsed = warren::control::parseRetryAfter(value, now);
    QCOMPARE(parsed ? parsed->count() : qint64(-1), delayMs);
}

QTEST_APPLESS_MAIN(TestRetryPolicy)
#include "tst_retry_policy.moc"
