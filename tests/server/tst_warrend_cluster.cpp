// warrend with a listener for cluster agents (`serve --backend kubernetes --agent-address 127.0.0.1:0`), as
// far as it goes without a cluster: it prints the address pods are told; the real warren-agent, connecting
// there over TCP as a pod's would (`serve --connect tcp:... --token-file`), is refused when its token is not
// one of a task this server expects, and the refusal is in warrend's log; a task of the kubernetes backend
// without a cluster to reach fails, saying what to set. (The listener's every
// refusal is tst_agent_listener's; the pod's plan is tst_launch_plan's.)
#include "app/proxy/TaskToken.h"
#include "tests/server/WarrendServer.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::test;
using nlohmann::json;

class TestWarrendCluster : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void anAgentWithoutAnExpectedTaskIsRefused();
    void withoutAClusterATaskFailsSayingSo();

private:
    std::unique_ptr<WarrendServer> m_server;
    QTemporaryDir m_scratch;
    QString m_key;
    QString m_agentAddress; // tcp:127.0.0.1:PORT
};

void TestWarrendCluster::initTestCase() {
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_key = m_server->addUser("alice");
    QVERIFY(m_key.startsWith("wrn_"));
    QVERIFY2(m_server->start(&error, {"--backend", "kubernetes", "--agent-address", "127.0.0.1:0", "--agent-peer",
                                        "warren/app.kubernetes.io/name=warrend"}),
             qPrintable(error));
    QVERIFY(m_server->waitForOutput("cluster agents connect to "));
    static const QRegularExpression told("cluster agents connect to (tcp:127\\.0\\.0\\.1:([0-9]+))");
    const auto match = told.match(QString::fromUtf8(m_server->serverOutput()));
    QVERIFY2(match.hasMatch(), m_server->serverOutput().constData());
    QVERIFY(match.captured(2).toUInt() != 0); // port 0 asked for any: the one bound is told
    m_agentAddress = match.captured(1);
}

// Another control plane's token for a task of this name, and a token of no task this server runs: the agent
// says hello, is told why it is refused, and exits; warrend logs it. Nothing else is asked of the server.
void TestWarrendCluster::anAgentWithoutAnExpectedTaskIsRefused() {
    const QString tokenFile = m_scratch.filePath("token");
    QFile file(tokenFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray::fromStdString(
        control::TaskTokens().issue("t-000000000001", {control::scope::kChannel}, std::chrono::hours(1)) +
        "\n"));
    file.close();
    for (const char* dir : {"ws", "state", "output"})
        QVERIFY(QDir(m_scratch.path()).mkpath(dir));
    QProcess agent;
    agent.start(qEnvironmentVariable("WARREN_AGENT"),
                {"serve", "--workspace", m_scratch.filePath("ws"), "--state", m_scratch.filePath("state"),
                 "--output", m_scratch.filePath("output"), "--connect", m_agentAddress, "--token-file",
                 tokenFile});
    QVERIFY(agent.waitForFinished(60000));
    QVERIFY2(agent.exitCode() != 0, agent.readAllStandardError().constData());
    QVERIFY(m_server->waitForOutput("the task token was refused"));
    QVERIFY(m_server->serverOutput().contains("agents' listener was refused"));
}

// No kubeconfig and not in a pod: the task fails with what to set, before anything is made.
void TestWarrendCluster::withoutAClusterATaskFailsSayingSo() {
    QVERIFY(QDir(m_scratch.path()).mkpath("project"));
    QFile readme(m_scratch.filePath("project/README.md"));
    QVERIFY(readme.open(QIODevice::WriteOnly));
    readme.write("hello\n");
    readme.close();
    const HttpAnswer uploaded =
        m_server->request("POST", "/v1/uploads", m_key, tarOf(m_scratch.filePath("project")),
                          {{"Content-Type", "application/x-tar"}});
    QCOMPARE(uploaded.status, 201);
    const QByteArray body =
        R"({"prompt": "do it", "workspace": ")" + QByteArray::fromStdString(uploaded.json().value("id", "")) +
        R"(", "script": {"turns": [{"tool_calls": [{"name": "finish", "arguments": {"summary": "x"}}]}]}})";
    const HttpAnswer created = m_server->request("POST", "/v1/tasks", m_key, body);
    QVERIFY2(created.status == 201, created.body.constData());
    const QString id = QString::fromStdString(created.json().value("id", ""));
    m_server->streamEvents(id, m_key, {}); // to the stream's end: the run is over
    const json shown = m_server->request("GET", "/v1/tasks/" + id, m_key).json();
    QCOMPARE(QString::fromStdString(shown.value("status", "")), QString("failed"));
    const QString error = QString::fromStdString(shown.value("error", ""));
    QVERIFY2(error.contains("cannot find its cluster") && error.contains("KUBECONFIG"), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestWarrendCluster)
#include "tst_warrend_cluster.moc"
