// warrend placing its tasks' sandboxes on a cluster (`serve --backend kubernetes --agent-address 127.0.0.1:0
// --agent-peer ...`), end to end as far as this machine allows. No cluster can run here: the cluster is the
// API server DOUBLE (tests/support/KubeApiDouble, over TLS with a bearer token, which warrend reaches through
// a kubeconfig as on a cluster) and the kubelet DOUBLE (tests/support/KubeletDouble), which runs each pod's
// command, the real warren-agent, as a host process with the pod's volumes as directories and its Secret's
// token as a file. Everything of warrend is real: PostgreSQL, HTTP, the pod's objects, the agents' TCP
// listener, the task token's hello, the trees carried across the connection.
//
// The API double serves agent-sandbox's CRD and plays its controller, so warrend creates a Sandbox for each
// task (the double makes its pod, which the kubelet double runs) and never a bare Pod.
//
// Checked: a task runs in its pod and its work comes back (status, events, the patch, the agent's artifacts),
// with the objects warrend made as they must be (labels of the owner, runtime class, image, the token only in
// the Secret, the NetworkPolicy naming warrend's pods on the port bound) and none left after; a cancelled
// task's pod is deleted, its process killed; an agent whose token is of no expected task is refused; an
// agent that fails in its pod has its own words, from the pod's log, in the task's error; a task whose warrend
// was killed (kill -9) or stopped, or whose connection dropped, goes on in the pod it started in (its agent
// reconnects and the restarted warrend rejoins the pod), and what a killed warrend left of a pod that ended
// is removed when the task's pod is made again; Claude Code and Codex
// (the real CLIs: WARREN_TEST_CLAUDE, WARREN_TEST_CODEX; skipped, naming the variable, without them) run as
// the image's CLI in their pod, their model calls crossing warrend's agents' listener to the task's model
// proxy, which alone holds the operator's key.
#include "app/proxy/TaskToken.h"
#include "tests/kube/KubeTestFiles.h"
#include "tests/support/CliModelServer.h"
#include "tests/support/KubeApiDouble.h"
#include "tests/support/KubeletDouble.h"
#include "tests/support/LosingRelay.h"
#include "tests/support/WarrenRun.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::test;
using nlohmann::json;
using Stage = KubeletDouble::Stage;

namespace {

constexpr const char* kNamespace = "sandboxes"; // the kubeconfig context's: where warrend's pods go

const QByteArray kScriptWriting = R"({"turns": [
  {"content": "Writing the notes.", "tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "written in the pod\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote notes.txt"}}]}]})";

const QByteArray kScriptWritingThenWaiting = R"({"turns": [
  {"content": "Writing the notes.", "tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "written in the pod\n"}}]},
  {"content": "A long command.", "tool_calls": [{"name": "shell", "arguments": {"command": "sleep 600"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "wrote notes.txt, then slept"}}]}]})";

const QByteArray kScriptWaiting = R"({"turns": [
  {"content": "A long command.", "tool_calls": [{"name": "shell", "arguments": {"command": "sleep 600"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "slept"}}]}]})";

// A turn that runs line with the CLI's shell tool: Claude Code's Bash, Codex's exec_command. (Claude Code's
// Write takes an absolute path, and the kubelet double's pod sees the host's: the CLIs write with commands.)
ScriptedTurn shellTurn(bool claude, const std::string& line) {
    return claude ? ScriptedTurn::call("Bash", {{"command", line}, {"description", "run it"}})
                  : ScriptedTurn::call("exec_command", {{"cmd", line}});
}

// The model double plays turns in the CLI's wire.
void script(CliModelServer& model, bool claude, const std::vector<ScriptedTurn>& turns) {
    if (claude)
        model.scriptAnthropic(turns);
    else
        model.scriptResponses(turns);
}

} // namespace

class TestWarrendCluster : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void aTaskRunsInAPodAndItsWorkComesBack();
    void aCancelledTasksPodIsDeleted();
    void anAgentWithoutAnExpectedTaskIsRefused();
    void anAgentThatFailsInItsPodIsHeardInTheTasksError();
    void aKilledWarrendsTaskGoesOnInItsPod_data();
    void aKilledWarrendsTaskGoesOnInItsPod();
    void aLostConnectionLeavesThePodRunning();
    void aPodWhoseReplicaIsGoneReconnectsThroughTheService();
    void whatAKilledWarrendLeftIsRemovedWhenItsPodEnded();
    void aCliAgentRunsInItsPodWithTheKeyOutside_data();
    // Last: they restart warrend with a model provider.
    void aCliAgentRunsInItsPodWithTheKeyOutside();
    void aCliTasksSessionReachesWarrendAsItGoes_data() { aCliAgentRunsInItsPodWithTheKeyOutside_data(); }
    void aCliTasksSessionReachesWarrendAsItGoes();
    void aCliTaskGoesOnInItsPodAfterAKill_data() { aCliAgentRunsInItsPodWithTheKeyOutside_data(); }
    void aCliTaskGoesOnInItsPodAfterAKill();

private:
    QString writeKubeconfig();
    bool restartWarrend(const QStringList& extra, QString* error);
    bool restartWithCli(const QString& agent, const QString& program, const CliModelServer& model,
                        const QByteArray& key, QString* error);
    static QStringList cliFlags(const QString& agent, const CliModelServer& model);
    QString cliTaskAtItsLongCommand(const QString& agent, const std::string& prompt);
    QString createTask(const QByteArray& script); // its id
    std::string waitForTheLongCommand(const QString& id); // its pod's name; empty when it did not come
    void checkTheTaskWentOnInItsPod(const QString& id, const std::string& pod, std::size_t sandboxesCreated,
                                    int podsRun);
    json lastCreated(const std::string& resource) const;

    QTemporaryDir m_scratch;
    std::unique_ptr<KubeApiDouble> m_api;
    std::unique_ptr<KubeletDouble> m_kubelet; // destroyed before the API double
    std::unique_ptr<WarrendServer> m_server;
    QString m_key;
    QString m_agentAddress; // tcp:127.0.0.1:PORT
    QString m_agentPort;    // where warrend listens for agents, kept across restarts
    QString m_upload;
    std::unique_ptr<QTemporaryDir> m_image; // the CLI's "image" directory, on the pods' PATH
};

QString TestWarrendCluster::writeKubeconfig() {
    return warren::test::writeKubeconfig(m_scratch.filePath("kubeconfig"), m_api->url(), m_scratch.filePath("cert.pem"),
                                 kToken, kNamespace);
}

void TestWarrendCluster::initTestCase() {
    QVERIFY(m_scratch.isValid());
    if (QStandardPaths::findExecutable("openssl").isEmpty())
        QSKIP("needs openssl to make the API double's certificate (packaging/install-deps.sh)");
    QVERIFY(makeCertificate(m_scratch.filePath("cert.pem"), m_scratch.filePath("key.pem")));
    QString error;
    m_api = KubeApiDouble::start({m_scratch.filePath("cert.pem"), m_scratch.filePath("key.pem"), kToken, true},
                                 &error);
    QVERIFY2(m_api, qPrintable(error));
    QVERIFY(QDir(m_scratch.path()).mkdir("kubelet"));
    m_kubelet = std::make_unique<KubeletDouble>(
        *m_api, KubeletDouble::Options{m_scratch.filePath("kubelet").toStdString(),
                                       {{"warren-agent", qEnvironmentVariable("WARREN_AGENT").toStdString()}},
                                       std::chrono::seconds(5)});
    const QString kubeconfig = writeKubeconfig();
    QVERIFY(!kubeconfig.isEmpty());

    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_key = m_server->addUser("alice", "acme");
    QVERIFY(m_key.startsWith("wrn_"));
    m_server->setEnvironment("KUBECONFIG", kubeconfig);
    QVERIFY2(restartWarrend({}, &error), qPrintable(error));

    QVERIFY(QDir(m_scratch.path()).mkpath("project"));
    QFile readme(m_scratch.filePath("project/README.md"));
    QVERIFY(readme.open(QIODevice::WriteOnly));
    readme.write("hello\n");
    readme.close();
    m_upload = m_server->upload(m_key, m_scratch.filePath("project"));
    QVERIFY(!m_upload.isEmpty());
}

// warrend serve on the double (killed with kill -9 first when it runs), with more options; m_agentAddress the
// agents' address it tells.
bool TestWarrendCluster::restartWarrend(const QStringList& extra, QString* error) {
    if (m_server->processId() != 0)
        m_server->kill();
    // The agents' port the first start bound, kept as a Service's address is: a pod's agent reconnects to it.
    const QString port = m_agentPort.isEmpty() ? "0" : m_agentPort;
    if (!m_server->start(error,
                         QStringList{"--backend", "kubernetes", "--image", "localhost/warren-sandbox:dev",
                                     "--agent-address", "127.0.0.1:" + port, "--agent-peer",
                                     "warren/app.kubernetes.io/name=warrend", "--runtime-class", "gvisor"} +
                             extra))
        return false;
    if (!m_server->waitForOutput("cluster agents connect to ")) {
        *error = "warrend did not say where cluster agents connect";
        return false;
    }
    static const QRegularExpression told("cluster agents connect to (tcp:127\\.0\\.0\\.1:([0-9]+))");
    QRegularExpressionMatch match;
    // The last one told: a restarted warrend's output follows the earlier one's.
    for (auto matches = told.globalMatch(QString::fromUtf8(m_server->serverOutput())); matches.hasNext();)
        match = matches.next();
    if (!match.hasMatch() || match.captured(2).toUInt() == 0) { // port 0 asked for any: the one bound is told
        *error = "no agents' address in warrend's output: " + QString::fromUtf8(m_server->serverOutput());
        return false;
    }
    m_agentAddress = match.captured(1);
    if (!extra.contains("--agent-advertise")) // then the address told is the one listened on
        m_agentPort = match.captured(2);
    return true;
}

// warrend restarted with the model double as its provider (the operator's key in its environment) and a
// site profile putting a directory with the CLI, by its command name, first on the pods' PATH: the "image's"
// CLI.
bool TestWarrendCluster::restartWithCli(const QString& agent, const QString& program,
                                        const CliModelServer& model, const QByteArray& key, QString* error) {
    const bool claude = agent == "claude-code";
    // Under none of the pod's volumes (/tmp is one: the kubelet double would read the path as in it), wherever
    // the checkout is.
    m_image = std::make_unique<QTemporaryDir>("/var/tmp/warren-cluster-image-XXXXXX");
    const QString site = m_scratch.filePath("site-" + agent + ".json");
    QFile layer(site);
    if (!m_image->isValid() || !QFile::link(program, m_image->filePath(claude ? "claude" : "codex")) ||
        !layer.open(QIODevice::WriteOnly)) {
        *error = "cannot make the image's directory or the site's profile";
        return false;
    }
    layer.write(QByteArray::fromStdString(
        json{{"env", {{"PATH", m_image->path().toStdString() + ":/usr/local/bin:/usr/bin:/bin"}}}}.dump()));
    layer.close();
    m_server->setEnvironment("WARREN_SANDBOX_PROFILE", site);
    m_server->setEnvironment(claude ? "ANTHROPIC_API_KEY" : "WARREN_OPENAI_COMPATIBLE_API_KEY", key);
    return restartWarrend(cliFlags(agent, model), error);
}

// A CLI task created, once its CLI runs its second command, `sleep 600` (the model's script says so): its id;
// empty (and said) when that did not come.
QString TestWarrendCluster::cliTaskAtItsLongCommand(const QString& agent, const std::string& prompt) {
    const json body = {
        {"prompt", prompt}, {"agent", agent.toStdString()}, {"workspace", m_upload.toStdString()}};
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", m_key, QByteArray::fromStdString(body.dump()));
    const QString id = QString::fromStdString(created.status == 201 ? created.json().value("id", "") : "");
    const auto first = id.isEmpty() ? std::vector<json>{} : m_server->streamEvents(id, m_key, "tool_call");
    const QByteArray seen =
        QByteArray::number(static_cast<qulonglong>(first.empty() ? 0u : first.back().value("seq", 0u)));
    const auto second =
        first.empty() ? std::vector<json>{} : m_server->streamEvents(id, m_key, "tool_call", seen);
    if (second.empty() || second.back().dump().find("sleep 600") == std::string::npos) {
        qWarning("the CLI did not come to its long command: %s\n%s", created.body.constData(),
                 m_server->serverOutput().constData());
        return {};
    }
    return id;
}

// The provider and model warrend serves a CLI's task with: the model double.
QStringList TestWarrendCluster::cliFlags(const QString& agent, const CliModelServer& model) {
    const bool claude = agent == "claude-code";
    const QString base = QString::fromStdString(model.baseUrl());
    return {"--provider", claude ? "anthropic:" + base : "openai-compatible:" + base + "/v1", "--model",
            claude ? "claude-test" : "gpt-test"};
}

void TestWarrendCluster::cleanupTestCase() {
    m_server.reset(); // warrend first: it deletes what it made
    m_kubelet.reset();
    m_api.reset();
}

QString TestWarrendCluster::createTask(const QByteArray& script) {
    return m_server->createTask(
        m_key, R"({"prompt": "do it", "workspace": ")" + m_upload.toUtf8() + R"(", "script": )" + script + "}");
}

json TestWarrendCluster::lastCreated(const std::string& resource) const {
    const auto created = m_api->created(resource, kNamespace);
    return created.empty() ? json() : created.back();
}

void TestWarrendCluster::aTaskRunsInAPodAndItsWorkComesBack() {
    const int podsBefore = m_kubelet->podsRun();
    const QString id = createTask(kScriptWriting);
    QVERIFY(!id.isEmpty());
    const auto events = m_server->streamEvents(id, m_key, {}); // to the stream's end: the run is over
    const json shown = m_server->request("GET", "/v1/tasks/" + id, m_key).json();
    const json sandbox = lastCreated("sandboxes");
    const std::string podName = sandbox.is_object() ? sandbox["metadata"].value("name", "") : "";
    QVERIFY2(shown.value("status", "") == "succeeded",
             (shown.dump() + "\nthe pod's log:\n" + m_kubelet->log(kNamespace, podName)).c_str());
    QCOMPARE(m_kubelet->podsRun(), podsBefore + 1);
    QVERIFY(!events.empty());
    QCOMPARE(QString::fromStdString(events.back().value("type", "")), QString("task_finished"));
    QVERIFY(dense(seqsOf(events)));

    // The workspace came back from the pod: the patch has the file written there, the artifacts the agent's
    // /output.
    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + id + "/patch", m_key);
    QCOMPARE(patch.status, 200);
    QVERIFY2(patch.body.contains("b/notes.txt") && patch.body.contains("+written in the pod"),
             patch.body.constData());
    const HttpAnswer report = m_server->request("GET", "/v1/tasks/" + id + "/artifacts/resource_report.json", m_key);
    QVERIFY2(report.status == 200, report.body.constData());

    // The Sandbox as warrend made it, in place of a Pod: the owner's labels (on it and its pod template), the
    // runtime class and image, the agent connecting to the address told, the token in the Secret alone.
    QVERIFY(sandbox.is_object());
    QVERIFY(m_api->created("pods", kNamespace).empty());
    const json& podTemplate = sandbox["spec"]["podTemplate"];
    for (const json* labels : {&sandbox["metadata"]["labels"], &podTemplate["metadata"]["labels"]}) {
        QCOMPARE(labels->value("warren.task", ""), id.toStdString());
        QCOMPARE(labels->value("warren.tenant", ""), std::string("acme"));
        QCOMPARE(labels->value("warren.user", ""), std::string("alice"));
    }
    QCOMPARE(podTemplate["metadata"]["labels"].value("warren.sandbox/pod", ""), podName); // the policy's selector
    const json& pod = podTemplate;
    QCOMPARE(pod["spec"].value("runtimeClassName", ""), std::string("gvisor"));
    const json& container = pod["spec"]["containers"][0];
    QCOMPARE(container.value("image", ""), std::string("localhost/warren-sandbox:dev"));
    const auto command = container["command"].get<std::vector<std::string>>();
    QVERIFY(std::find(command.begin(), command.end(), m_agentAddress.toStdString()) != command.end());
    const json secret = lastCreated("secrets");
    QVERIFY(secret.is_object());
    const std::string token = secret["stringData"].value("token", "");
    QVERIFY(!token.empty());
    QVERIFY(sandbox.dump().find(token) == std::string::npos);
    // The pod's one way out: warrend's pods in their namespace, on the port its listener bound.
    const json policy = lastCreated("networkpolicies");
    QVERIFY(policy.is_object());
    const json& out = policy["spec"]["egress"][0];
    QCOMPARE(out["to"][0]["podSelector"]["matchLabels"], (json{{"app.kubernetes.io/name", "warrend"}}));
    QCOMPARE(out["to"][0]["namespaceSelector"]["matchLabels"], (json{{"kubernetes.io/metadata.name", "warren"}}));
    QCOMPARE(out["ports"][0]["port"].get<int>(), m_agentAddress.section(':', -1).toInt());
    QCOMPARE(policy["spec"]["podSelector"]["matchLabels"], (json{{"warren.sandbox/pod", podName}}));

    // Nothing is left on the cluster; the pod's process has ended.
    QVERIFY(m_kubelet->waitFor(kNamespace, podName, Stage::Removed, kSafety));
    QCOMPARE(m_api->objectCount(kNamespace), std::size_t(0));
}

// Cancelled while its agent runs a long command: warrend tells the agent, which ends; the pod, its Secret and
// policy are deleted, its process gone.
void TestWarrendCluster::aCancelledTasksPodIsDeleted() {
    const QString id = createTask(kScriptWaiting);
    QVERIFY(!id.isEmpty());
    const auto started = m_server->streamEvents(id, m_key, "tool_call");
    QVERIFY(!started.empty());
    QCOMPARE(QString::fromStdString(started.back().value("type", "")), QString("tool_call"));
    QCOMPARE(m_server->request("POST", "/v1/tasks/" + id + "/cancel", m_key).status, 202);
    m_server->streamEvents(id, m_key, {}); // to the stream's end
    const json shown = m_server->request("GET", "/v1/tasks/" + id, m_key).json();
    QCOMPARE(QString::fromStdString(shown.value("status", "")), QString("cancelled"));
    const std::string podName = lastCreated("sandboxes")["metadata"].value("name", "");
    QCOMPARE(lastCreated("sandboxes")["metadata"]["labels"].value("warren.task", ""), id.toStdString());
    QVERIFY(m_kubelet->waitFor(kNamespace, podName, Stage::Removed, kSafety));
    QVERIFY(!m_kubelet->processAlive(kNamespace, podName));
    QCOMPARE(m_api->objectCount(kNamespace), std::size_t(0));
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

// warrend tells its pods to connect to its HTTP port instead of the agents' one (an --agent-advertise
// naming the wrong port): the agent in the pod is answered with HTTP, says so on its stderr and exits 1. Its
// stderr is in no pipe of warrend's: its words reach the task's error through the pod's log.
void TestWarrendCluster::anAgentThatFailsInItsPodIsHeardInTheTasksError() {
    const QString httpPort = m_server->url().section(':', -1);
    QString error;
    QVERIFY2(restartWarrend({"--agent-advertise", "127.0.0.1:" + httpPort}, &error), qPrintable(error));
    const QString id = createTask(kScriptWriting);
    QVERIFY(!id.isEmpty());
    m_server->streamEvents(id, m_key, {}); // to the stream's end: the run is over
    const json shown = m_server->request("GET", "/v1/tasks/" + id, m_key).json();
    const std::string podName = lastCreated("sandboxes")["metadata"].value("name", "");
    const std::string log = m_kubelet->log(kNamespace, podName);
    QVERIFY2(!log.empty(), "the agent said nothing in its pod");
    const QString taskError = QString::fromStdString(shown.value("error", ""));
    QVERIFY2(shown.value("status", "") != "succeeded" && taskError.contains("The agent said:") &&
                 taskError.contains("warren-agent: "),
             (shown.dump() + "\nthe pod's log:\n" + log).c_str());
    // The agent's own last line, word for word.
    std::string lastLine = log.substr(0, log.find_last_not_of('\n') + 1);
    lastLine = lastLine.substr(lastLine.rfind('\n') + 1);
    QVERIFY2(taskError.contains(QString::fromStdString(lastLine)), (lastLine + "\n" + shown.dump()).c_str());
    QVERIFY(m_kubelet->waitFor(kNamespace, podName, Stage::Removed, kSafety));
    QCOMPARE(m_api->objectCount(kNamespace), std::size_t(0));
    QVERIFY2(restartWarrend({}, &error), qPrintable(error));
}

// Waits until the task's agent runs its long command (the script's second tool call,
// kScriptWritingThenWaiting): the file it wrote first is in its pod's workspace alone, which reaches warrend
// only at the run's end.
std::string TestWarrendCluster::waitForTheLongCommand(const QString& id) {
    const auto wrote = m_server->streamEvents(id, m_key, "tool_call");
    if (wrote.empty())
        return {};
    const QByteArray seen = QByteArray::number(static_cast<qulonglong>(wrote.back().value("seq", 0u)));
    const auto waiting = m_server->streamEvents(id, m_key, "tool_call", seen);
    if (waiting.empty() || waiting.back().value("tool", "") != "shell")
        return {};
    return lastCreated("sandboxes")["metadata"].value("name", "");
}

// The task went on in the pod it started in: no other pod was made, the file written before the fault came
// home in the patch, the tool calls before the fault were not made again, and the task resumed from its
// checkpoint; once it ends, the cluster holds nothing.
void TestWarrendCluster::checkTheTaskWentOnInItsPod(const QString& id, const std::string& pod,
                                                    std::size_t sandboxesCreated, int podsRun) {
    const auto events = m_server->streamEvents(id, m_key, {}); // to the stream's end
    const json shown = m_server->request("GET", "/v1/tasks/" + id, m_key).json();
    QVERIFY2(shown.value("status", "") == "succeeded",
             (shown.dump() + "\nwarrend:\n" + m_server->serverOutput().toStdString() + "\nthe pod's log:\n" +
              m_kubelet->log(kNamespace, pod))
                 .c_str());
    QCOMPARE(m_api->created("sandboxes", kNamespace).size(), sandboxesCreated);
    QCOMPARE(m_kubelet->podsRun(), podsRun);
    int writes = 0;
    bool resumed = false;
    for (const auto& event : events) {
        writes += event.value("type", "") == "tool_call" && event.value("tool", "") == "write_file" ? 1 : 0;
        resumed = resumed || event.value("type", "") == "task_resumed";
    }
    QCOMPARE(writes, 1);
    QVERIFY(resumed);
    QVERIFY(dense(seqsOf(events)));
    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + id + "/patch", m_key);
    QVERIFY2(patch.body.contains("b/notes.txt") && patch.body.contains("+written in the pod"),
             patch.body.constData());
    QVERIFY(m_kubelet->waitFor(kNamespace, pod, Stage::Removed, kSafety));
    QCOMPARE(m_api->objectCount(kNamespace), std::size_t(0));
}

void TestWarrendCluster::aKilledWarrendsTaskGoesOnInItsPod_data() {
    QTest::addColumn<bool>("killed");
    QTest::newRow("kill -9") << true;
    QTest::newRow("stopped (SIGTERM), as a rolling update does") << false;
}

// kill -9, or a stop, while the task's agent runs a long command: its pod runs on, and its agent, which lost
// its connection, pauses at its checkpoint and connects again, to the restarted warrend (a replica of the
// same address, as a Service gives), which takes the task over and continues it in the same pod: its hello
// carries the dead warrend's token, known by its digest in the data directory (PodTokens).
void TestWarrendCluster::aKilledWarrendsTaskGoesOnInItsPod() {
    QFETCH(bool, killed);
    const int podsRun = m_kubelet->podsRun();
    const QString id = createTask(kScriptWritingThenWaiting);
    QVERIFY(!id.isEmpty());
    const std::string pod = waitForTheLongCommand(id);
    QVERIFY(!pod.empty());
    const std::size_t sandboxesCreated = m_api->created("sandboxes", kNamespace).size();

    if (!killed)
        m_server->stop();
    QString error;
    QVERIFY2(restartWarrend({}, &error), qPrintable(error)); // kill -9 (when it runs), then start again
    QVERIFY(m_kubelet->processAlive(kNamespace, pod));
    checkTheTaskWentOnInItsPod(id, pod, sandboxesCreated, podsRun + 1);
}

// The network between the pod and warrend drops while warrend lives: warrend leaves the pod running after a
// grace (an agent that had exited would have ended its pod by then) and queues the task again; its next
// launch rejoins the pod, whose agent connects again.
void TestWarrendCluster::aLostConnectionLeavesThePodRunning() {
    LosingRelay network("");
    QVERIFY(network.start(static_cast<std::uint16_t>(m_agentPort.toUInt())));
    QString error;
    QVERIFY2(restartWarrend({"--agent-advertise", "127.0.0.1:" + QString::number(network.port())}, &error),
             qPrintable(error));
    const int podsRun = m_kubelet->podsRun();
    const QString id = createTask(kScriptWritingThenWaiting);
    QVERIFY(!id.isEmpty());
    const std::string pod = waitForTheLongCommand(id);
    QVERIFY(!pod.empty());
    const std::size_t sandboxesCreated = m_api->created("sandboxes", kNamespace).size();

    network.cutAll();
    checkTheTaskWentOnInItsPod(id, pod, sandboxesCreated, podsRun + 1);
    QVERIFY2(restartWarrend({}, &error), qPrintable(error));
}

// The address the pod was told (the replica's own) is gone for good, as a dead replica's pod address is: the
// agent connects again to that address and to every replica's Service (--agent-service, told to the pod as
// --reconnect) in turn, one try each, and the replica there continues the task in the same pod.
void TestWarrendCluster::aPodWhoseReplicaIsGoneReconnectsThroughTheService() {
    auto replica = std::make_unique<LosingRelay>("");
    QVERIFY(replica->start(static_cast<std::uint16_t>(m_agentPort.toUInt())));
    QString error;
    QVERIFY2(restartWarrend({"--agent-advertise", "127.0.0.1:" + QString::number(replica->port()),
                             "--agent-service", "127.0.0.1:" + m_agentPort},
                            &error),
             qPrintable(error));
    const int podsRun = m_kubelet->podsRun();
    const QString id = createTask(kScriptWritingThenWaiting);
    QVERIFY(!id.isEmpty());
    const std::string pod = waitForTheLongCommand(id);
    QVERIFY(!pod.empty());
    const auto command = lastCreated("sandboxes")["spec"]["podTemplate"]["spec"]["containers"][0]["command"];
    const std::string service = "tcp:127.0.0.1:" + m_agentPort.toStdString();
    QVERIFY2(command.dump().find("\"--reconnect\",\"" + service + "\"") != std::string::npos,
             command.dump().c_str());
    const std::size_t sandboxesCreated = m_api->created("sandboxes", kNamespace).size();

    replica.reset(); // its connections cut, its port closed
    checkTheTaskWentOnInItsPod(id, pod, sandboxesCreated, podsRun + 1);
    QVERIFY2(restartWarrend({}, &error), qPrintable(error));
}

// kill -9 of warrend and of the pod's process (its node died) while the agent runs a long command: nothing
// deletes the ended pod, its Secret and policy. The restarted warrend resumes the task, and its launch,
// finding no pod running to rejoin, removes them before making the task's new ones; once the task is
// cancelled, the cluster holds nothing.
void TestWarrendCluster::whatAKilledWarrendLeftIsRemovedWhenItsPodEnded() {
    const QString id = createTask(kScriptWaiting);
    QVERIFY(!id.isEmpty());
    const auto started = m_server->streamEvents(id, m_key, "tool_call");
    QVERIFY(!started.empty());
    const std::string firstPod = lastCreated("sandboxes")["metadata"].value("name", "");
    QVERIFY(m_api->object("sandboxes", kNamespace, firstPod));
    QVERIFY(m_api->object("pods", kNamespace, firstPod));
    const std::size_t sandboxesCreated = m_api->created("sandboxes", kNamespace).size();

    m_server->kill();
    QVERIFY(m_kubelet->killProcess(kNamespace, firstPod));
    QVERIFY(m_kubelet->waitFor(kNamespace, firstPod, Stage::Ended, kSafety));
    QString error;
    QVERIFY2(restartWarrend({}, &error), qPrintable(error));
    // Nothing but the resumed task's launch deletes the first pod: its removal is the sweep's. The resumed
    // agent's next tool call says the task's new pod runs.
    QVERIFY(m_kubelet->waitFor(kNamespace, firstPod, Stage::Removed, kSafety));
    QVERIFY(!m_api->object("pods", kNamespace, firstPod));
    QVERIFY(!m_api->object("sandboxes", kNamespace, firstPod));
    const QByteArray seen = QByteArray::number(static_cast<qulonglong>(started.back().value("seq", 0u)));
    const auto resumed = m_server->streamEvents(id, m_key, "tool_call", seen);
    QVERIFY2(!resumed.empty() && resumed.back().value("type", "") == "tool_call", m_server->serverOutput().constData());
    QVERIFY(m_api->created("sandboxes", kNamespace).size() > sandboxesCreated); // the task's, made again
    QCOMPARE(m_api->names("sandboxes", kNamespace).size(), std::size_t(1));
    QCOMPARE(m_api->names("pods", kNamespace).size(), std::size_t(1));
    QCOMPARE(m_api->names("secrets", kNamespace).size(), std::size_t(1));
    QCOMPARE(m_api->names("networkpolicies", kNamespace).size(), std::size_t(1));

    QCOMPARE(m_server->request("POST", "/v1/tasks/" + id + "/cancel", m_key).status, 202);
    m_server->streamEvents(id, m_key, {}); // to the stream's end
    const std::string secondPod = lastCreated("sandboxes")["metadata"].value("name", "");
    QVERIFY(m_kubelet->waitFor(kNamespace, secondPod, Stage::Removed, kSafety));
    QCOMPARE(m_api->objectCount(kNamespace), std::size_t(0));
}

void TestWarrendCluster::aCliAgentRunsInItsPodWithTheKeyOutside_data() {
    QTest::addColumn<QString>("variable");
    QTest::addColumn<QString>("agent");
    QTest::newRow("claude-code") << "WARREN_TEST_CLAUDE"
                                 << "claude-code";
    QTest::newRow("codex") << "WARREN_TEST_CODEX"
                           << "codex";
}

// The image's CLI, by its command name on the pod's PATH (a site's profile puts the CLI's directory there, as
// an operator whose image keeps it outside /usr/local/bin would): it works in the pod's copy of the
// workspace, its model calls go through the task's model proxy over warrend's listener, the model double
// receives the operator's key on each, and neither the CLI's commands, the cluster's objects, the user's
// events nor warrend's data directory hold it.
void TestWarrendCluster::aCliAgentRunsInItsPodWithTheKeyOutside() {
    QFETCH(QString, variable);
    QFETCH(QString, agent);
    const QString program = qEnvironmentVariable(variable.toUtf8().constData());
    if (program.isEmpty())
        QSKIP(qPrintable("set " + variable + " to the CLI's executable to run this test"));
    const bool claude = agent == "claude-code";
    const QByteArray key = "sk-operator-7c2a-never-in-the-pod";

    CliModelServer model;
    QVERIFY(model.listen());
    // Both CLIs hand their key variable to the commands they run: the pod's must hold the task token alone.
    script(model, claude,
           {shellTurn(claude, "echo \"keys-seen=$(env | grep -c sk-operator)\""),
            shellTurn(claude, "printf 'written in the pod\\n' > notes.txt"),
            ScriptedTurn::say("Done: looked around and wrote notes.txt.")});

    QString error;
    QVERIFY2(restartWithCli(agent, program, model, key, &error), qPrintable(error));

    const json body = {{"prompt", "Look around, then write notes.txt"},
                       {"agent", agent.toStdString()},
                       {"workspace", m_upload.toStdString()}};
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", m_key, QByteArray::fromStdString(body.dump()));
    QVERIFY2(created.status == 201, created.body.constData());
    const QString id = QString::fromStdString(created.json().value("id", ""));
    const auto events = m_server->streamEvents(id, m_key, {}); // to the stream's end
    const std::string podName = lastCreated("sandboxes")["metadata"].value("name", "");
    std::string seen;
    int modelCalls = 0;
    for (const auto& event : events) {
        seen += event.dump() + "\n";
        modelCalls += event.value("type", "") == "model_call" ? 1 : 0;
    }
    const json shown = m_server->request("GET", "/v1/tasks/" + id, m_key).json();
    QVERIFY2(
        shown.value("status", "") == "succeeded",
        (shown.dump() + "\n" + seen + "\nthe pod's log:\n" + m_kubelet->log(kNamespace, podName)).c_str());
    QVERIFY2(seen.find("keys-seen=0") != std::string::npos, seen.c_str()); // the command ran, without the key
    QVERIFY(modelCalls >= 3);                                              // warrend's record of each call
    QVERIFY2(seen.find(key.toStdString()) == std::string::npos, "the key reached the user's events");

    // The work came back from the pod.
    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + id + "/patch", m_key);
    QCOMPARE(patch.status, 200);
    QVERIFY2(patch.body.contains("b/notes.txt") && patch.body.contains("+written in the pod"),
             patch.body.constData());

    // The image's CLI, named by its command; the pod's objects carry the token (its Secret) and never the
    // key.
    const json sandbox = lastCreated("sandboxes");
    QVERIFY(sandbox.dump().find(key.toStdString()) == std::string::npos);
    QVERIFY(lastCreated("secrets").dump().find(key.toStdString()) == std::string::npos);
    const auto calls = model.modelCalls();
    QVERIFY(calls.size() >= 3);
    for (const auto& call : calls) {
        const char* header = claude ? "x-api-key" : "authorization";
        const std::string sent = call.headers.count(header) ? call.headers.at(header) : "";
        QCOMPARE(QString::fromStdString(sent), claude ? QString(key) : "Bearer " + QString(key));
    }
    const QString holder = fileHolding(m_server->dataDir(), key);
    QVERIFY2(holder.isEmpty(), qPrintable(holder));
    QVERIFY(m_kubelet->waitFor(kNamespace, podName, Stage::Removed, kSafety));
    QCOMPARE(m_api->objectCount(kNamespace), std::size_t(0));
}

// A pod's /state is its own: the CLI's session must reach warrend while the CLI runs, or a warrend killed
// then would resume the task from its prompt. It goes back as each step starts: while the second step's long
// command runs, warrend holds the session the first step left (its id, and the CLI's own file of it).
void TestWarrendCluster::aCliTasksSessionReachesWarrendAsItGoes() {
    QFETCH(QString, variable);
    QFETCH(QString, agent);
    const QString program = qEnvironmentVariable(variable.toUtf8().constData());
    if (program.isEmpty())
        QSKIP(qPrintable("set " + variable + " to the CLI's executable to run this test"));
    const bool claude = agent == "claude-code";
    CliModelServer model;
    QVERIFY(model.listen());
    script(
        model, claude,
        {shellTurn(claude, "echo first-step"), shellTurn(claude, "sleep 600"), ScriptedTurn::say("Done.")});
    QString error;
    QVERIFY2(restartWithCli(agent, program, model, "sk-operator-session", &error), qPrintable(error));
    const QString id = cliTaskAtItsLongCommand(agent, "Run two commands");
    QVERIFY(!id.isEmpty());

    const QString state = m_server->dataDir() + "/data/tasks/" + id + "/state";
    const std::string podName = lastCreated("sandboxes")["metadata"].value("name", "");
    QFile saved(state + "/cli-session.json");
    QVERIFY2(saved.open(QIODevice::ReadOnly),
             qPrintable(state + ": nothing of the session; the pod's log:\n" +
                        QString::fromStdString(m_kubelet->log(kNamespace, podName))));
    const std::string session = json::parse(saved.readAll().toStdString(), nullptr, false).value("id", "");
    QVERIFY(!session.empty());
    bool found = false;
    for (QDirIterator files(state + "/cli-home", QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
         files.hasNext() && !found;)
        found = files.next().endsWith(".jsonl") && files.fileName().contains(QString::fromStdString(session));
    QVERIFY2(found, ("no file of session " + session + " in " + state.toStdString() + "/cli-home").c_str());

    QCOMPARE(m_server->request("POST", "/v1/tasks/" + id + "/cancel", m_key).status, 202);
    m_server->streamEvents(id, m_key, {}); // to the stream's end
    QVERIFY(m_kubelet->waitFor(kNamespace, podName, Stage::Removed, kSafety));
}

// kill -9 while the CLI runs a long command in its pod: the agent stops the CLI (its session stays in the
// pod's /state) and reconnects; the restarted warrend rejoins the pod, and the CLI resumes its session there,
// its model calls crossing the new warrend's listener: the task ends as the model's last turn says, in the
// pod it started in, with the file written before the kill.
void TestWarrendCluster::aCliTaskGoesOnInItsPodAfterAKill() {
    QFETCH(QString, variable);
    QFETCH(QString, agent);
    const QString program = qEnvironmentVariable(variable.toUtf8().constData());
    if (program.isEmpty())
        QSKIP(qPrintable("set " + variable + " to the CLI's executable to run this test"));
    const bool claude = agent == "claude-code";
    CliModelServer model;
    QVERIFY(model.listen());
    script(model, claude,
           {shellTurn(claude, "printf 'written in the pod\\n' > notes.txt"), shellTurn(claude, "sleep 600"),
            ScriptedTurn::say("Done: wrote notes.txt.")});
    QString error;
    QVERIFY2(restartWithCli(agent, program, model, "sk-operator-rejoin", &error), qPrintable(error));
    const QString id = cliTaskAtItsLongCommand(agent, "Write notes.txt, then wait");
    QVERIFY(!id.isEmpty());
    const std::string pod = lastCreated("sandboxes")["metadata"].value("name", "");
    const std::size_t sandboxesCreated = m_api->created("sandboxes", kNamespace).size();
    const int podsRun = m_kubelet->podsRun();

    QVERIFY2(restartWarrend(cliFlags(agent, model), &error), qPrintable(error)); // kill -9, then start again
    m_server->streamEvents(id, m_key, {});                                       // to the stream's end
    const json shown = m_server->request("GET", "/v1/tasks/" + id, m_key).json();
    QVERIFY2(shown.value("status", "") == "succeeded",
             (shown.dump() + "\nthe pod's log:\n" + m_kubelet->log(kNamespace, pod)).c_str());
    QCOMPARE(m_api->created("sandboxes", kNamespace).size(), sandboxesCreated);
    QCOMPARE(m_kubelet->podsRun(), podsRun);
    const HttpAnswer patch = m_server->request("GET", "/v1/tasks/" + id + "/patch", m_key);
    QVERIFY2(patch.body.contains("b/notes.txt") && patch.body.contains("+written in the pod"),
             patch.body.constData());
    QVERIFY(m_kubelet->waitFor(kNamespace, pod, Stage::Removed, kSafety));
    QCOMPARE(m_api->objectCount(kNamespace), std::size_t(0));
}

QTEST_GUILESS_MAIN(TestWarrendCluster)
#include "tst_warrend_cluster.moc"
