// The bodies of an owner's answers to a task, read strictly: POST /v1/tasks/{id}/reply's {"message"} and
// POST /v1/tasks/{id}/approvals/{call}'s {"approved", "note"?, "always"?}. Every refusal names the field.
#include "app/wire/OwnerAnswers.h"
#include "server/api/AnswerRequest.h"

#include <QtTest>

using namespace warren::server;
using nlohmann::json;

class TestAnswerRequest : public QObject {
    Q_OBJECT

private slots:
    void readsReplies_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("message"); // the reply, or a part of the refusal
        QTest::addColumn<bool>("ok");
        QTest::newRow("a message") << QByteArray(R"({"message": "now add a test"})") << "now add a test" << true;
        QTest::newRow("blank") << QByteArray(R"({"message": " \n\t"})") << "" << false;
        QTest::newRow("missing") << QByteArray("{}") << "message" << false;
        QTest::newRow("a number") << QByteArray(R"({"message": 3})") << "message" << false;
        QTest::newRow("an unknown field") << QByteArray(R"({"message": "a", "force": true})") << "force" << false;
        QTest::newRow("an array") << QByteArray(R"(["message"])") << "the request body" << false;
        QTest::newRow("too long") << (R"({"message": ")" + QByteArray(256 * 1024 + 1, 'a') + R"("})") << "" << false;
    }
    void readsReplies() {
        QFETCH(QByteArray, body);
        QFETCH(QString, message);
        QFETCH(bool, ok);
        const auto read = parseReplyRequest(json::parse(body.toStdString()));
        QCOMPARE(read.ok(), ok);
        if (ok)
            QCOMPARE(QString::fromStdString(*read), message);
        else
            QVERIFY2(QString::fromStdString(read.error().message).contains(message), read.error().message.c_str());
    }

    void readsApprovalAnswers_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<bool>("approved");
        QTest::addColumn<QString>("note"); // or a part of the refusal
        QTest::addColumn<bool>("always");
        QTest::newRow("approved") << QByteArray(R"({"approved": true})") << true << true << "" << false;
        QTest::newRow("denied with a note") << QByteArray(R"({"approved": false, "note": "not there"})") << true
                                            << false << "not there" << false;
        QTest::newRow("always") << QByteArray(R"({"approved": true, "always": true})") << true << true << ""
                                << true;
        QTest::newRow("no answer") << QByteArray(R"({"note": "x"})") << false << false << "approved" << false;
        QTest::newRow("a string for a boolean") << QByteArray(R"({"approved": "yes"})") << false << false
                                                << "approved" << false;
        QTest::newRow("a note that is a number") << QByteArray(R"({"approved": true, "note": 1})") << false
                                                 << false << "note" << false;
        QTest::newRow("an unknown field") << QByteArray(R"({"approved": true, "rule": "*"})") << false << false
                                          << "rule" << false;
        QTest::newRow("null") << QByteArray("null") << false << false << "the request body" << false;
    }
    void readsApprovalAnswers() {
        QFETCH(QByteArray, body);
        QFETCH(bool, ok);
        QFETCH(QString, note);
        const auto read = warren::wire::ApprovalAnswer::fromJson(json::parse(body.toStdString()));
        QCOMPARE(read.ok(), ok);
        if (!ok) {
            QVERIFY2(QString::fromStdString(read.error().message).contains(note), read.error().message.c_str());
            return;
        }
        QTEST(read->approved, "approved");
        QCOMPARE(QString::fromStdString(read->note), note);
        QTEST(read->always, "always");
    }
};

QTEST_APPLESS_MAIN(TestAnswerRequest)
#include "tst_answer_request.moc"
