// What a failed request to warrend tells the person at the desktop: each status and network failure, a
// row. The message must say what happened and what to do; the code, what the caller may do next.
#include "app/remote/Backoff.h"
#include "app/remote/RemoteClient.h"
#include "app/remote/RemoteFailure.h"

#include <QNetworkReply>
#include <QtTest>

using namespace warren;
using namespace warren::remote;

class TestRemoteFailure : public QObject {
    Q_OBJECT

private slots:
    void describes_data();
    void describes();
    void readsTheServersMessage();
    void backsOffAndStartsOver();
    void parsesServerUrls_data();
    void parsesServerUrls();
};

void TestRemoteFailure::describes_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("networkError");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    const QByteArray notFound = R"({"error": {"code": "not_found", "message": "no task t-1 of yours"}})";
    const QByteArray quota = R"({"error": {"code": "quota_exceeded", "message": "2 tasks at once at most"}})";
    const QByteArray invalid = R"({"error": {"code": "invalid_request", "message": "prompt: is empty"}})";
    QTest::newRow("connection refused") << 0 << int(QNetworkReply::ConnectionRefusedError) << QByteArray()
                                        << int(ErrorCode::Unavailable) << "nothing listens there (connection refused)";
    QTest::newRow("unknown host") << 0 << int(QNetworkReply::HostNotFoundError) << QByteArray()
                                  << int(ErrorCode::Unavailable) << "host name is not known here";
    QTest::newRow("closed mid-answer") << 0 << int(QNetworkReply::RemoteHostClosedError) << QByteArray()
                                       << int(ErrorCode::Unavailable) << "it may be restarting";
    QTest::newRow("timed out") << 0 << int(QNetworkReply::OperationCanceledError) << QByteArray()
                               << int(ErrorCode::Unavailable) << "did not answer in time";
    QTest::newRow("TLS") << 0 << int(QNetworkReply::SslHandshakeFailedError) << QByteArray()
                         << int(ErrorCode::System) << "not one this machine trusts";
    QTest::newRow("401") << 401 << 0 << QByteArray(R"({"error": {"code": "unauthorized", "message": "no"}})")
                         << int(ErrorCode::InvalidArgument) << "refused the API key";
    QTest::newRow("404 keeps the server's words") << 404 << 0 << notFound << int(ErrorCode::NotFound)
                                                   << "no task t-1 of yours";
    QTest::newRow("429 is for later") << 429 << 0 << quota << int(ErrorCode::Unavailable) << "2 tasks at once at most";
    QTest::newRow("400 keeps the server's words") << 400 << 0 << invalid << int(ErrorCode::InvalidArgument)
                                                   << "prompt: is empty";
    QTest::newRow("503") << 503 << 0 << QByteArray(R"({"error": {"code": "unavailable", "message": "database"}})")
                         << int(ErrorCode::Unavailable) << "try again shortly";
    QTest::newRow("500 without a body") << 500 << 0 << QByteArray("oops") << int(ErrorCode::System) << "HTTP 500";
}

void TestRemoteFailure::describes() {
    QFETCH(int, status);
    QFETCH(int, networkError);
    QFETCH(QByteArray, body);
    QFETCH(int, code);
    QFETCH(QString, message);
    const Error error = describeFailure({status, networkError, "Qt's words", body}, "http://h:8420");
    QCOMPARE(int(error.code), code);
    QVERIFY2(QString::fromStdString(error.message).contains(message), error.message.c_str());
    QCOMPARE(isKeyRejected({status, networkError, {}, body}), status == 401);
}

void TestRemoteFailure::readsTheServersMessage() {
    QCOMPARE(serverMessage(R"({"error": {"code": "x", "message": "said"}})"), "said");
    QCOMPARE(serverMessage("not json"), "");
    QCOMPARE(serverMessage(R"({"error": "flat"})"), "");
    QCOMPARE(serverMessage(R"({"error": {"message": 5}})"), "");
    // An error object without a message was read with a const operator[], which asserts (undefined behaviour
    // without assertions); and a value nested deeper than the cap is not JSON to the client.
    QCOMPARE(serverMessage(R"({"error": {"code": "x"}})"), "");
    QCOMPARE(serverMessage(QByteArray(100000, '[') + QByteArray(100000, ']')), "");
}

void TestRemoteFailure::backsOffAndStartsOver() {
    Backoff backoff;
    std::vector<long> pauses;
    for (int i = 0; i < 9; ++i)
        pauses.push_back(static_cast<long>(backoff.next().count()));
    QCOMPARE(pauses, (std::vector<long>{500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000}));
    backoff.reset();
    QCOMPARE(backoff.next().count(), 500);
}

void TestRemoteFailure::parsesServerUrls_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("base"); // empty: refused
    QTest::newRow("https with a port") << "https://warren.example:8420" << "https://warren.example:8420";
    QTest::newRow("trailing slashes go") << "http://127.0.0.1:8420//" << "http://127.0.0.1:8420";
    QTest::newRow("a path prefix stays") << "https://example.org/warren/" << "https://example.org/warren";
    QTest::newRow("spaces around") << "  http://h:1 " << "http://h:1";
    QTest::newRow("ftp") << "ftp://h" << "";
    QTest::newRow("empty") << "" << "";
    QTest::newRow("a query") << "http://h:1/?x=1" << "";
    QTest::newRow("a user") << "http://me@h:1" << "";
}

void TestRemoteFailure::parsesServerUrls() {
    QFETCH(QString, text);
    QFETCH(QString, base);
    const auto parsed = parseServerUrl(text);
    QCOMPARE(parsed.ok(), !base.isEmpty());
    if (parsed)
        QCOMPARE(parsed->toString(), base);
}

QTEST_GUILESS_MAIN(TestRemoteFailure)
#include "tst_remote_failure.moc"
