// NetworkQuestions (the questions of `--network ask`) and NetworkQuestion (how one travels as an approval):
// one question per host:port however many connections wait on it; the user's answer reaches every one of
// them; a refusal (the user's, or the clock's after the wait) holds for the rest of the task; no more than
// kMaxWaiting wait at once; the task's end refuses what still waits; an agent's event can never pass for one.

#include "app/egress/NetworkQuestion.h"
#include "app/tasks/NetworkQuestions.h"

#include <QSignalSpy>
#include <memory>
#include <QtTest>

using namespace warren::control;
using nlohmann::json;

Q_DECLARE_METATYPE(warren::control::ApprovalRecord)

namespace {

// The verdicts an answer brought; shared with the answer, which NetworkQuestions may call when it goes (after
// a test's locals declared later are gone).
struct Answers {
    std::shared_ptr<std::vector<EgressAsker::Verdict>> kept = std::make_shared<std::vector<EgressAsker::Verdict>>();
    std::vector<EgressAsker::Verdict>& got = *kept;
    EgressAsker::Answer collect() {
        return [kept = kept](const EgressAsker::Verdict& verdict) { kept->push_back(verdict); };
    }
};

ApprovalRecord recordAt(const QSignalSpy& spy, qsizetype index) { return spy.at(index).at(0).value<ApprovalRecord>(); }

} // namespace

class TestNetworkQuestions : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<ApprovalRecord>(); }
    void oneQuestionPerHostAndPort();
    void aRefusalHoldsForTheTask();
    void anApprovalOnceAsksAgainLater();
    void noAnswerWithinTheWaitRefuses();
    void questionsAtOnceAreBounded();
    void theTaskEndRefusesWhatWaits();
    void questionsTravelAsApprovals();
    void agentEventsNeverPassForQuestions_data();
    void agentEventsNeverPassForQuestions();
};

void TestNetworkQuestions::oneQuestionPerHostAndPort() {
    NetworkQuestions questions({"task-1", 2, std::chrono::minutes(5)});
    QSignalSpy asked(&questions, &NetworkQuestions::asked);
    QSignalSpy decided(&questions, &NetworkQuestions::decided);
    Answers a, b, c;
    questions.ask("pypi.org", 443, "CONNECT", a.collect());
    questions.ask("pypi.org", 443, "CONNECT", b.collect());
    questions.ask("pypi.org", 80, "GET", c.collect());
    QCOMPARE(asked.size(), 2);
    const ApprovalRecord first = recordAt(asked, 0);
    QCOMPARE(first.taskId, "task-1");
    QCOMPARE(first.callId, "network.2.1");
    QCOMPARE(first.tool, "network");
    QCOMPARE(json::parse(first.arguments), (json{{"host", "pypi.org"}, {"port", 443}, {"method", "CONNECT"}}));
    QVERIFY(first.reason.find("pypi.org:443") != std::string::npos);
    QCOMPARE(recordAt(asked, 1).callId, "network.2.2");
    QVERIFY(questions.isWaiting("network.2.1"));

    QVERIFY(questions.answer("network.2.1", true, "", true));
    QCOMPARE(a.got.size(), 1u);
    QCOMPARE(b.got.size(), 1u);
    QVERIFY(a.got[0].allowed && a.got[0].forTask && b.got[0].allowed && b.got[0].forTask);
    QVERIFY(c.got.empty()); // another port: its own question, still waiting
    QVERIFY(!questions.isWaiting("network.2.1"));
    QVERIFY(!questions.answer("network.2.1", true, "", false)); // answered already
    QCOMPARE(decided.size(), 1);
    QCOMPARE(recordAt(decided, 0).approved, std::optional<bool>(true));
    QCOMPARE(recordAt(decided, 0).decidedBy, "user");
}

void TestNetworkQuestions::aRefusalHoldsForTheTask() {
    NetworkQuestions questions({"task-1", 1, std::chrono::minutes(5)});
    QSignalSpy asked(&questions, &NetworkQuestions::asked);
    Answers first, retry;
    questions.ask("evil.example", 443, "CONNECT", first.collect());
    QVERIFY(questions.answer(recordAt(asked, 0).callId, false, "not that one", false));
    QCOMPARE(first.got.size(), 1u);
    QVERIFY(!first.got[0].allowed);
    QCOMPARE(first.got[0].why, "the user refused evil.example:443 for this task: not that one");
    questions.ask("evil.example", 443, "CONNECT", retry.collect());
    QCOMPARE(asked.size(), 1); // not asked again
    QCOMPARE(retry.got.size(), 1u);
    QCOMPARE(retry.got[0].why, first.got[0].why);
}

void TestNetworkQuestions::anApprovalOnceAsksAgainLater() {
    NetworkQuestions questions({"task-1", 1, std::chrono::minutes(5)});
    QSignalSpy asked(&questions, &NetworkQuestions::asked);
    Answers first, later;
    questions.ask("api.example", 443, "CONNECT", first.collect());
    QVERIFY(questions.answer(recordAt(asked, 0).callId, true, "", false));
    QVERIFY(first.got.at(0).allowed && !first.got.at(0).forTask);
    questions.ask("api.example", 443, "CONNECT", later.collect());
    QCOMPARE(asked.size(), 2);
    QVERIFY(later.got.empty());
}

void TestNetworkQuestions::noAnswerWithinTheWaitRefuses() {
    NetworkQuestions questions({"task-1", 1, std::chrono::milliseconds(50)});
    QSignalSpy decided(&questions, &NetworkQuestions::decided);
    Answers waiting, retry;
    questions.ask("slow.example", 443, "CONNECT", waiting.collect());
    QVERIFY(decided.wait(10000));
    QCOMPARE(waiting.got.size(), 1u);
    QVERIFY(!waiting.got[0].allowed);
    QVERIFY2(waiting.got[0].why.find("no answer about slow.example:443 within 50 ms") != std::string::npos,
             waiting.got[0].why.c_str());
    const ApprovalRecord record = recordAt(decided, 0);
    QCOMPARE(record.approved, std::optional<bool>(false));
    QCOMPARE(record.decidedBy, "timeout");
    QVERIFY(!questions.answer(record.callId, true, "", false)); // too late
    questions.ask("slow.example", 443, "CONNECT", retry.collect());
    QCOMPARE(retry.got.size(), 1u); // refused at once: an unattended run does not wait again
    QVERIFY(!retry.got[0].allowed);
}

void TestNetworkQuestions::questionsAtOnceAreBounded() {
    NetworkQuestions questions({"task-1", 1, std::chrono::minutes(5)});
    QSignalSpy asked(&questions, &NetworkQuestions::asked);
    std::vector<Answers> answers(NetworkQuestions::kMaxWaiting + 1);
    for (std::size_t i = 0; i < answers.size(); ++i)
        questions.ask("host" + std::to_string(i) + ".example", 443, "CONNECT", answers[i].collect());
    QCOMPARE(std::size_t(asked.size()), NetworkQuestions::kMaxWaiting);
    QCOMPARE(answers.back().got.size(), 1u);
    QVERIFY(answers.back().got[0].why.find("refused without asking") != std::string::npos);
    // One answered: room for one more.
    QVERIFY(questions.answer(recordAt(asked, 0).callId, true, "", false));
    Answers more;
    questions.ask("more.example", 443, "CONNECT", more.collect());
    QCOMPARE(std::size_t(asked.size()), NetworkQuestions::kMaxWaiting + 1);
}

void TestNetworkQuestions::theTaskEndRefusesWhatWaits() {
    Answers waiting, after;
    {
        NetworkQuestions questions({"task-1", 1, std::chrono::minutes(5)});
        questions.ask("a.example", 443, "CONNECT", waiting.collect());
        questions.abortAll();
        QCOMPARE(waiting.got.size(), 1u);
        QCOMPARE(waiting.got[0].why, "the task has ended");
        questions.ask("b.example", 443, "CONNECT", after.collect());
        QCOMPARE(after.got.size(), 1u);
        QVERIFY(!after.got[0].allowed);
    }
    QCOMPARE(waiting.got.size(), 1u); // answered once, not again when it goes
}

void TestNetworkQuestions::questionsTravelAsApprovals() {
    const NetworkQuestion question{"pypi.org", 443, "CONNECT"};
    QCOMPARE(NetworkQuestion::fromApproval("network", question.toJson()), std::optional(question));
    QCOMPARE(question.target(), "pypi.org:443");
    QVERIFY(!NetworkQuestion::fromApproval("shell", question.toJson()));
    for (const json& arguments : {json{{"host", "a"}, {"port", 0}, {"method", "GET"}},
                                  json{{"host", "a"}, {"port", 65536}, {"method", "GET"}},
                                  json{{"host", "a"}, {"port", "443"}, {"method", "GET"}},
                                  json{{"host", "a"}, {"port", 443}},
                                  json{{"host", "a"}, {"port", 443}, {"method", "GET"}, {"more", 1}}, json::array()})
        QVERIFY2(!NetworkQuestion::fromApproval("network", arguments), arguments.dump().c_str());
    QCOMPARE(networkQuestionId(3, 7), "network.3.7");
    QVERIFY(isNetworkQuestionId("network.3.7"));
    QVERIFY(!isNetworkQuestionId("3.7"));
}

void TestNetworkQuestions::agentEventsNeverPassForQuestions_data() {
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("question");
    QTest::newRow("asked, tool network") << "approval_requested" << "network" << "call_1" << true;
    QTest::newRow("asked, a question's id") << "approval_requested" << "shell" << "network.1.1" << true;
    QTest::newRow("resolved, a question's id") << "approval_resolved" << "" << "network.1.1" << true;
    QTest::newRow("resolved, tool network") << "approval_resolved" << "network" << "x" << true;
    QTest::newRow("a tool's approval") << "approval_requested" << "shell" << "call_1" << false;
    QTest::newRow("another type") << "tool_call" << "network" << "network.1.1" << false;
}

void TestNetworkQuestions::agentEventsNeverPassForQuestions() {
    QFETCH(QString, type);
    QFETCH(QString, tool);
    QFETCH(QString, id);
    QFETCH(bool, question);
    const std::optional<std::string> envelopeTool =
        tool.isEmpty() ? std::nullopt : std::optional(tool.toStdString());
    QCOMPARE(isNetworkQuestionEvent(type.toStdString(), envelopeTool, json{{"id", id.toStdString()}}), question);
}

QTEST_GUILESS_MAIN(TestNetworkQuestions)
#include "tst_network_questions.moc"
