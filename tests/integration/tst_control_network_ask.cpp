// `warren run --network ask` end to end (DESIGN §12): the real sandbox, the agent's forwarder, the egress proxy
// holding a connection to a host the task does not list while the user is asked on the terminal, and an HTTP
// server on this machine reached by names (--resolve). "For this task" lets the agent's later requests through
// without asking; "no" refuses the request and the agent's retries without asking again; "workspace" is kept
// in the settings, so the next task in the workspace reaches the host without a question; an address is never
// asked about. The questions and answers are the control plane's events, shown like any approval.

#include "tests/support/AgentRun.h"
#include "tests/support/EventJson.h"
#include "tests/support/HostHttpServer.h"
#include "tests/support/WarrenRun.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

std::vector<json> ofType(const std::vector<json>& events, const std::string& type) {
    std::vector<json> found;
    for (const auto& event : events)
        if (event.value("type", "") == type)
            found.push_back(event);
    return found;
}

json shell(const std::string& command) { return turn("shell", {{"command", command}}); }

// `warren run ARGS --json --approve ask` with its stdin a pipe: each network question it asks (an
// approval_requested event of the tool "network") is answered with the next of answers, as a user at the
// terminal would type it. The events it printed; fewer questions than answers fail the test.
struct AnsweredRun {
    int exitCode = -1;
    std::vector<json> events;
    QByteArray err;
    int questions = 0;
};

// answerAfter: how many questions must have been printed before the first answer is typed (the rest are
// typed as they come); the run ends without an answer if they never all are.
AnsweredRun runAnswering(const QStringList& args, const QString& dataDir, const QStringList& answers,
                         int answerAfter = 1) {
    QProcess warren;
    warren.setProcessEnvironment(warrenEnvironment(dataDir));
    warren.setProgram(warrenBinary());
    warren.setArguments(QStringList{"run", "--json", "--approve", "ask"} + args + QStringList{"--data-dir", dataDir});
    AnsweredRun run;
    QByteArray out;
    // Read as it comes, while this process's event loop runs (the test's HTTP server answers meanwhile).
    const auto readLines = [&] {
        while (warren.canReadLine()) {
            const QByteArray line = warren.readLine();
            out += line;
            const json event = json::parse(line.toStdString(), nullptr, false);
            if (event.is_discarded() || event.value("type", "") != "approval_requested" ||
                event.value("tool", "") != "network")
                continue;
            ++run.questions;
            if (run.questions > answers.size())
                warren.closeWriteChannel(); // one too many: nobody answers (the test sees it in questions)
            else if (run.questions == answerAfter)
                for (int i = 0; i < answerAfter; ++i)
                    warren.write(answers[i].toUtf8() + "\n");
            else if (run.questions > answerAfter)
                warren.write(answers[run.questions - 1].toUtf8() + "\n");
        }
    };
    QObject::connect(&warren, &QProcess::readyReadStandardOutput, &warren, readLines);
    warren.start();
    (void)QTest::qWaitFor([&] { return warren.state() == QProcess::NotRunning; }, kWarrenTimeoutMs);
    if (warren.state() != QProcess::NotRunning) {
        warren.kill();
        warren.waitForFinished();
    }
    readLines();
    out += warren.readAllStandardOutput();
    run.exitCode = warren.exitStatus() == QProcess::NormalExit ? warren.exitCode() : -1;
    run.events = jsonLines(out);
    run.err = warren.readAllStandardError();
    return run;
}

} // namespace

class TestControlNetworkAsk : public QObject {
    Q_OBJECT

private slots:
    void askedHostsWaitForTheAnswer();
    void workspaceAnswerServesTheNextTask();
    void aQuestionWaitingStallsNothingElse();
};

// While the terminal waits for an answer, the run goes on: a second request's question is printed, and
// both are answered in the order asked (a prompt that blocked the event loop would print the second only
// after the first was answered, and this test would never type).
void TestControlNetworkAsk::aQuestionWaitingStallsNothingElse() {
    HostHttpServer host;
    QVERIFY(host.port() != 0);
    const std::string port = std::to_string(host.port());
    QTemporaryDir data, workspace;
    const QString script = data.filePath("script.json");
    const std::string curl = "curl -sS --noproxy '' --max-time 100 ";
    QVERIFY(writeScript(script, {
        shell(curl + "http://first.test:" + port + "/one > one.txt 2>&1 & " + curl + "http://second.test:" + port +
              "/two 2>&1; wait; cat one.txt"),
        turn("finish", {{"summary", "both"}}),
    }));
    const QString pin = QString::fromStdString(":" + port + ":127.0.0.1");
    const auto run = runAnswering({"--provider", "scripted:" + script, "--workspace", workspace.path(), "--network",
                                   "ask", "--resolve", "first.test" + pin, "--resolve", "second.test" + pin, "both"},
                                  data.path(), {"y", "n"}, 2);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(run.questions, 2);
    const auto asked = ofType(run.events, "approval_requested");
    const auto resolved = ofType(run.events, "approval_resolved");
    QCOMPARE(resolved.size(), 2u);
    // The first asked got the first answer.
    QCOMPARE(resolved[0]["data"].value("id", ""), asked[0]["data"].value("id", ""));
    QCOMPARE(resolved[0]["data"].value("approved", false), true);
    QCOMPARE(resolved[1]["data"].value("approved", true), false);
    QCOMPARE(host.requests.size(), 1);
}

void TestControlNetworkAsk::askedHostsWaitForTheAnswer() {
    HostHttpServer host;
    QVERIFY(host.port() != 0);
    const std::string port = std::to_string(host.port());
    QTemporaryDir data, workspace;
    const QString script = data.filePath("script.json");
    const std::string curl = "curl -sS --noproxy '' --max-time 100 ";
    QVERIFY(writeScript(script, {
        shell(curl + "http://allowed.test:" + port + "/first"),                 // call_0_0: asked, "t"
        shell(curl + "http://allowed.test:" + port + "/again"),                 // call_1_0: not asked again
        shell(curl + "http://refused.test:" + port + "/first 2>&1"),            // call_2_0: asked, "n"
        shell(curl + "http://refused.test:" + port + "/again 2>&1"),            // call_3_0: refused, not asked
        shell(curl + "http://127.0.0.1:" + port + "/address 2>&1"),             // call_4_0: an address: never asked
        shell(curl + "--proxytunnel http://once.test:" + port + "/tunnel"),     // call_5_0: CONNECT, asked, "y"
        shell(curl + "http://once.test:" + port + "/later 2>&1"),               // call_6_0: asked again, "n"
        turn("finish", {{"summary", "probed"}}),
    }));
    const QString pin = QString::fromStdString(":" + port + ":127.0.0.1");
    const auto run = runAnswering({"--provider", "scripted:" + script, "--workspace", workspace.path(), "--network",
                                   "ask", "--resolve", "allowed.test" + pin, "--resolve", "refused.test" + pin,
                                   "--resolve", "once.test" + pin, "probe"},
                                  data.path(), {"t", "n", "y", "n"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(run.questions, 4);

    QCOMPARE(QString::fromStdString(toolOutput(run.events, "call_0_0")), "hello from the host: GET /first HTTP/1.1\n");
    QCOMPARE(QString::fromStdString(toolOutput(run.events, "call_1_0")), "hello from the host: GET /again HTTP/1.1\n");
    const std::string refused = toolOutput(run.events, "call_2_0");
    QVERIFY2(refused.find("the user refused refused.test:" + port + " for this task") != std::string::npos,
             refused.c_str());
    const std::string retried = toolOutput(run.events, "call_3_0");
    QVERIFY2(retried.find("the user refused refused.test:" + port) != std::string::npos, retried.c_str());
    const std::string address = toolOutput(run.events, "call_4_0");
    QVERIFY2(address.find("never asked about") != std::string::npos, address.c_str());
    QCOMPARE(QString::fromStdString(toolOutput(run.events, "call_5_0")), "hello from the host: GET /tunnel HTTP/1.1\n");
    const std::string later = toolOutput(run.events, "call_6_0");
    QVERIFY2(later.find("the user refused once.test:" + port) != std::string::npos, later.c_str());
    QCOMPARE(host.requests, (QStringList{"GET /first HTTP/1.1", "GET /again HTTP/1.1", "GET /tunnel HTTP/1.1"}));

    // The questions and their answers, in the task's events as the control plane wrote them.
    const auto asked = ofType(run.events, "approval_requested");
    const auto resolved = ofType(run.events, "approval_resolved");
    QCOMPARE(asked.size(), 4u);
    QCOMPARE(resolved.size(), 4u);
    const std::vector<std::pair<std::string, bool>> expected{
        {"allowed.test", true}, {"refused.test", false}, {"once.test", true}, {"once.test", false}};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(asked[i].value("tool", ""), "network");
        QCOMPARE(asked[i]["data"]["arguments"].value("host", ""), expected[i].first);
        QCOMPARE(asked[i]["data"]["arguments"].value("port", 0), int(host.port()));
        QCOMPARE(resolved[i]["data"].value("id", ""), asked[i]["data"].value("id", ""));
        QCOMPARE(resolved[i]["data"].value("approved", !expected[i].second), expected[i].second);
        QCOMPARE(resolved[i]["data"].value("decided_by", ""), "user");
    }
    QCOMPARE(asked[2]["data"]["arguments"].value("method", ""), "CONNECT");
}

void TestControlNetworkAsk::workspaceAnswerServesTheNextTask() {
    HostHttpServer host;
    QVERIFY(host.port() != 0);
    const std::string port = std::to_string(host.port());
    QTemporaryDir data, workspace, otherWorkspace;
    const QString script = data.filePath("script.json");
    QVERIFY(writeScript(script, {
        shell("curl -sS --noproxy '' --max-time 100 http://kept.test:" + port + "/ 2>&1"),
        turn("finish", {{"summary", "fetched"}}),
    }));
    const QStringList args{"--provider", "scripted:" + script, "--network", "ask", "--resolve",
                           QString::fromStdString("kept.test:" + port + ":127.0.0.1"), "fetch"};
    const auto first = runAnswering(QStringList{"--workspace", workspace.path()} + args, data.path(), {"w"});
    QVERIFY2(first.exitCode == 0, first.err.constData());
    QCOMPARE(first.questions, 1);
    QCOMPARE(QString::fromStdString(toolOutput(first.events, "call_0_0")), "hello from the host: GET / HTTP/1.1\n");

    // The same workspace: no question (an unexpected one would be answered by nobody: refused).
    const auto second = runAnswering(QStringList{"--workspace", workspace.path()} + args, data.path(), {});
    QVERIFY2(second.exitCode == 0, second.err.constData());
    QCOMPARE(second.questions, 0);
    QCOMPARE(QString::fromStdString(toolOutput(second.events, "call_0_0")), "hello from the host: GET / HTTP/1.1\n");

    // Another workspace is asked, and refused here.
    const auto other = runAnswering(QStringList{"--workspace", otherWorkspace.path()} + args, data.path(), {"n"});
    QVERIFY2(other.exitCode == 0, other.err.constData());
    QCOMPARE(other.questions, 1);
    QVERIFY(toolOutput(other.events, "call_0_0").find("the user refused kept.test") != std::string::npos);
    QCOMPARE(host.requests.size(), 2);
}

QTEST_GUILESS_MAIN(TestControlNetworkAsk)
#include "tst_control_network_ask.moc"
