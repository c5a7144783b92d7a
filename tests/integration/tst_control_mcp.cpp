// MCP servers under `warren run` (DESIGN §13), through the real sandbox: the workspace's .mcp.json is read by
// the agent inside the sandbox, its stdio servers start there as the agent's children (their pid namespace,
// environment and home are the sandbox's: the user's home, the provider key and the control plane's
// variables are not there), their tools are offered and called as mcp__SERVER__TOOL, the calls are events as
// any tool's, and nothing of a server is left running after the task. Also the real
// @modelcontextprotocol/server-filesystem from npm, as a user's project would hold it (node_modules in the
// workspace), reading and writing the workspace it is given and nothing outside it. Remote servers: the
// real server-everything over streamable HTTP on this machine, reached by the agent through the task's egress
// proxy (allowed by --network, the name given with --resolve) and refused when the list lacks it; and an
// HTTPS server whose token is a secret: the placeholder in the .mcp.json's header becomes the value at the
// egress, and the sandbox never holds it.
#include "app/control/Settings.h"
#include "app/store/sqlite/SqliteStore.h"
#include "tests/support/AgentRun.h"
#include "tests/support/EventJson.h"
#include "tests/support/ServerProcess.h"
#include "tests/support/TestCertificate.h"
#include "tests/support/WarrenRun.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <QDirIterator>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

const QByteArray kRealKey = "sk-ant-REAL-provider-key-0123456789";
const QByteArray kMcpToken = "mcp-real-token-5f3a9c0e7d1b2468";

bool write(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// Processes whose command line holds text (a server named by its unique workspace path).
QStringList processesHolding(const QString& text) {
    QStringList found;
    for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
        QFile file("/proc/" + pid + "/cmdline");
        if (pid.toInt() > 0 && file.open(QIODevice::ReadOnly) && file.readAll().replace('\0', ' ').contains(text.toUtf8()))
            found << pid;
    }
    return found;
}

// where-server.js (copied into the workspace) as an .mcp.json entry, its PROBE variable set to probe.
json probeServer(const std::string& probe) {
    return json{{"command", "node"}, {"args", {"where-server.js"}}, {"env", {{"PROBE", probe}}}};
}

// The PROBE a where-server's answer to the call reports.
std::string probeOf(const std::vector<json>& events, const std::string& callId) {
    return json::parse(toolOutput(events, callId), nullptr, false).value("probe", "");
}

std::vector<json> eventsOfType(const std::vector<json>& events, const std::string& type) {
    std::vector<json> found;
    for (const auto& event : events)
        if (event.value("type", "") == type)
            found.push_back(event);
    return found;
}

} // namespace

class TestControlMcp : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (QStandardPaths::findExecutable("node").isEmpty())
            QSKIP("needs node (Node.js) on this machine, where the sandbox sees /usr");
    }

    void aWorkspaceServerRunsInsideTheSandbox() {
        QTemporaryDir data, workspace;
        QVERIFY(QFile::copy(qEnvironmentVariable("WARREN_TEST_DATA") + "/mcp/where-server.js", workspace.filePath("where-server.js")));
        const QString marker = workspace.filePath("where-server.js");
        QVERIFY(write(workspace.filePath(".mcp.json"), QByteArray::fromStdString(json{
            {"mcpServers", {{"probe", {{"command", "node"}, {"args", {"where-server.js", QDir::homePath().toStdString()}},
                                       {"env", {{"PROBE", "from .mcp.json ${HOME:-none}"}}}}}}}}.dump())));
        const QString script = data.filePath("script.json");
        QVERIFY(writeScript(script, {turn("mcp__probe__where", json::object()), turn("finish", {{"summary", "probed"}})}));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("ANTHROPIC_API_KEY", QString::fromUtf8(kRealKey));
        const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace",
                                       workspace.path(), "where does the server run?"},
                                      data.path(), environment);
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const auto events = jsonLines(result.out);
        QVERIFY(!result.out.contains(kRealKey) && !result.err.contains(kRealKey));

        // Offered and called as any tool: a tool_call and its result.
        const auto calls = eventsOfType(events, "tool_call");
        QVERIFY(std::any_of(calls.begin(), calls.end(),
                            [](const json& e) { return e.value("tool", "") == "mcp__probe__where"; }));
        const std::string output = toolOutput(events, "call_0_0");
        const json where = json::parse(output, nullptr, false);
        QVERIFY2(where.is_object(), output.c_str());
        // The sandbox's: its own pid namespace, a home that is not the user's, the workspace as its directory.
        QVERIFY2(where.value("pid1", "").find("systemd") == std::string::npos &&
                     where.value("pid1", "").find("/sbin/init") == std::string::npos,
                 output.c_str());
        QVERIFY2(where.value("home", "") != QDir::homePath().toStdString(), output.c_str());
        QCOMPARE(where.value("realHome", true), false);
        QCOMPARE(where.value("cwd", ""), std::string("/workspace"));
        QVERIFY2(where.value("probe", "").rfind("from .mcp.json /", 0) == 0, output.c_str()); // env, expanded
        for (const auto& name : where["env"]) {
            const std::string variable = name.get<std::string>();
            QVERIFY2(variable != "ANTHROPIC_API_KEY" && variable.rfind("WARREN_TOKEN", 0) != 0, variable.c_str());
        }
        // Gone with the task.
        QVERIFY2(processesHolding(marker).isEmpty() && processesHolding("where-server.js " + QDir::homePath()).isEmpty(),
                 qPrintable(processesHolding("where-server.js").join(",")));
    }

    // `--mcp-config FILE`: the user's servers for one task, over the workspace's of the same name (the
    // workspace is the less trusted of the two); a file that is not one is a usage error before any sandbox.
    void theUsersConfigIsUsedBeforeTheWorkspaces() {
        QTemporaryDir data, workspace;
        QVERIFY(QFile::copy(qEnvironmentVariable("WARREN_TEST_DATA") + "/mcp/where-server.js",
                            workspace.filePath("where-server.js")));
        QVERIFY(write(workspace.filePath(".mcp.json"),
                      QByteArray::fromStdString(json{{"mcpServers", {{"probe", probeServer("the workspace's")}}}}.dump())));
        const QString config = data.filePath("mine.json");
        QVERIFY(write(config, QByteArray::fromStdString(json{{"mcpServers", {{"probe", probeServer("the user's")},
                                                                             {"second", probeServer("also mine")}}}}.dump())));
        const QString script = data.filePath("script.json");
        QVERIFY(writeScript(script, {turn("mcp__probe__where", json::object()), turn("mcp__second__where", json::object()),
                                     turn("finish", {{"summary", "probed"}})}));
        const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace",
                                       workspace.path(), "--mcp-config", config, "which probe?"},
                                      data.path());
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const auto events = jsonLines(result.out);
        QCOMPARE(probeOf(events, "call_0_0"), std::string("the user's"));
        QCOMPARE(probeOf(events, "call_1_0"), std::string("also mine"));
        // The workspace's entry is said to be left out, in an event.
        QVERIFY2(result.out.contains("the user's mcp_servers (Settings, --mcp-config) has one of that name, which is used"),
                 result.out.constData());

        QVERIFY(write(config, R"({"servers": {}})"));
        const auto refused = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace",
                                        workspace.path(), "--mcp-config", config, "which probe?"},
                                       data.path());
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("--mcp-config " + config.toUtf8() + ": no \"mcpServers\" object"),
                 refused.err.constData());
    }

    // The MCP servers kept in Settings (the window's, in the data directory's warren.db) reach `warren run`'s
    // task too, under the task's own of a name (--mcp-config's).
    void theSettingsServersReachEveryTask() {
        QTemporaryDir data, workspace;
        QVERIFY(QFile::copy(qEnvironmentVariable("WARREN_TEST_DATA") + "/mcp/where-server.js",
                            workspace.filePath("where-server.js")));
        {
            auto store = warren::control::openSqliteStore(data.filePath("warren.db").toStdString());
            QVERIFY(store.ok());
            warren::control::Settings settings;
            settings.mcpServers = {{"probe", probeServer("from Settings")}, {"kept", probeServer("only in Settings")}};
            QVERIFY(warren::control::saveSettings(**store, settings).ok());
        }
        const QString config = data.filePath("mine.json");
        QVERIFY(write(config, QByteArray::fromStdString(json{{"mcpServers", {{"probe", probeServer("the task's own")}}}}.dump())));
        const QString script = data.filePath("script.json");
        QVERIFY(writeScript(script, {turn("mcp__probe__where", json::object()), turn("mcp__kept__where", json::object()),
                                     turn("finish", {{"summary", "probed"}})}));
        const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace",
                                       workspace.path(), "--mcp-config", config, "which probe?"},
                                      data.path());
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const auto events = jsonLines(result.out);
        QCOMPARE(probeOf(events, "call_0_0"), std::string("the task's own"));
        QCOMPARE(probeOf(events, "call_1_0"), std::string("only in Settings"));
    }

    // A server that cannot start is an error event and a clear tool error; the task goes on and ends well.
    void aServerThatFailsIsAnEventNotADeadTask() {
        QTemporaryDir data, workspace;
        QVERIFY(write(workspace.filePath(".mcp.json"),
                      R"({"mcpServers": {"broken": {"command": "no-such-mcp-server-anywhere"}}})"));
        const QString script = data.filePath("script.json");
        QVERIFY(writeScript(script, {turn("mcp__broken__anything", json::object()), turn("finish", {{"summary", "went on"}})}));
        const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace",
                                       workspace.path(), "use the broken server"},
                                      data.path());
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const auto events = jsonLines(result.out);
        const auto errors = eventsOfType(events, "error");
        QVERIFY2(std::any_of(errors.begin(), errors.end(),
                             [](const json& e) { return e.dump().find("broken") != std::string::npos; }),
                 result.out.constData());
        QVERIFY2(toolOutput(events, "call_0_0").find("mcp__broken__anything") != std::string::npos,
                 toolOutput(events, "call_0_0").c_str());
        QCOMPARE(eventsOfType(events, "task_finished").size(), std::size_t(1));
    }

    // The real server-filesystem from npm, held by the project as node_modules (linked in from the test
    // tools), given the workspace: it lists and writes there, and refuses a path outside it.
    void theRealFilesystemServerWorksOnTheWorkspace() {
        const QString bin = qEnvironmentVariable("WARREN_TEST_MCP_FILESYSTEM");
        if (bin.isEmpty())
            QSKIP("WARREN_TEST_MCP_FILESYSTEM is not set (the path of @modelcontextprotocol/server-filesystem's bin)");
        const QString modules = QFileInfo(bin).absoluteDir().absoluteFilePath(".."); // node_modules/.bin/..
        QTemporaryDir data, workspace;
        QProcess link;
        link.start("cp", {"-al", QDir(modules).canonicalPath(), workspace.filePath("node_modules")});
        if (!link.waitForFinished(60000) || link.exitCode() != 0) { // another filesystem, or files not ours
            QDir(workspace.filePath("node_modules")).removeRecursively(); // what the links made, or cp nests
            link.start("cp", {"-a", QDir(modules).canonicalPath(), workspace.filePath("node_modules")});
            QVERIFY(link.waitForFinished(120000) && link.exitCode() == 0);
        }
        QVERIFY(write(workspace.filePath("notes.txt"), "first note\n"));
        QVERIFY(write(workspace.filePath(".mcp.json"), QByteArray::fromStdString(json{
            {"mcpServers", {{"fs", {{"command", "node"},
                                    {"args", {"node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
                                              "/workspace"}}}}}}}.dump())));
        const QString script = data.filePath("script.json");
        QVERIFY(writeScript(script, {
            turn("mcp__fs__read_text_file", {{"path", "/workspace/notes.txt"}}),
            turn("mcp__fs__write_file", {{"path", "/workspace/answer.txt"}, {"content", "written by an MCP server\n"}}),
            turn("mcp__fs__read_text_file", {{"path", "/etc/hostname"}}),
            turn("finish", {{"summary", "used the filesystem server"}}),
        }));
        const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace",
                                       workspace.path(), "use the filesystem server"},
                                      data.path());
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const auto events = jsonLines(result.out);
        std::string errors;
        for (const auto& event : eventsOfType(events, "error"))
            errors += event["data"].value("message", "") + "\n";
        QVERIFY2(toolOutput(events, "call_0_0").find("first note") != std::string::npos,
                 (toolOutput(events, "call_0_0") + "\n" + errors).c_str());
        QFile written(workspace.filePath("answer.txt"));
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll(), QByteArray("written by an MCP server\n"));
        const std::string outside = toolOutput(events, "call_2_0");
        QVERIFY2(outside.find("denied") != std::string::npos || outside.find("outside") != std::string::npos,
                 outside.c_str());
        // The server's write is a file change of the task, as a command's is.
        const auto changes = eventsOfType(events, "file_changed");
        QVERIFY2(std::any_of(changes.begin(), changes.end(),
                             [](const json& e) { return e.dump().find("answer.txt") != std::string::npos; }),
                 result.out.constData());
        QVERIFY(processesHolding(workspace.path() + "/node_modules").isEmpty());
    }
    // A remote server (streamable HTTP) outside the sandbox: the agent reaches it through the task's egress
    // proxy when --network allows its host, and is refused (an error event, the task going on) when not.
    void aRemoteServerIsReachedThroughTheEgressProxy() {
        const QString program = qEnvironmentVariable("WARREN_TEST_MCP_EVERYTHING");
        if (program.isEmpty())
            QSKIP("WARREN_TEST_MCP_EVERYTHING is not set (the path of @modelcontextprotocol/server-everything's bin)");
        ServerProcess server;
        QVERIFY(server.startOnFreePort(program, {"streamableHttp"}, QProcessEnvironment::systemEnvironment(), "PORT",
                                       QProcess::StandardError, QRegularExpression("listening on port")));
        const quint16 port = server.port;
        const QString host = "mcp.example.test:" + QString::number(port);
        QTemporaryDir data, workspace;
        QVERIFY(write(workspace.filePath(".mcp.json"), QByteArray::fromStdString(json{
            {"mcpServers", {{"everything", {{"type", "http"}, {"url", "http://" + host.toStdString() + "/mcp"}}}}}}.dump())));
        const QString script = data.filePath("script.json");
        QVERIFY(writeScript(script, {turn("mcp__everything__echo", {{"message", "through the egress"}}),
                                     turn("finish", {{"summary", "echoed"}})}));
        const QStringList common{"run", "--json", "--provider", "scripted:" + script, "--workspace", workspace.path(),
                                 "--resolve", host + ":127.0.0.1"};

        const auto allowed = runWarren(common + QStringList{"--network", "allow:" + host, "echo remotely"}, data.path());
        QVERIFY2(allowed.exitCode == 0, allowed.err.constData());
        auto events = jsonLines(allowed.out);
        // On failure, what the agent said of its servers (an error or a notice) says why.
        QVERIFY2(toolOutput(events, "call_0_0") == "Echo: through the egress",
                 (toolOutput(events, "call_0_0") + "\n" + allowed.out.toStdString() + "\n" + allowed.err.toStdString())
                     .c_str());
        const auto requests = eventsOfType(events, "network_request");
        QVERIFY2(std::any_of(requests.begin(), requests.end(),
                             [&](const json& e) { return e["data"].value("host", "") == "mcp.example.test"; }),
                 allowed.out.constData());

        // The same server, its host not on the list: the proxy refuses it, the task goes on.
        const auto refused = runWarren(common + QStringList{"--network", "allow:other.example.test", "echo remotely"},
                                       data.path());
        QVERIFY2(refused.exitCode == 0, refused.err.constData());
        events = jsonLines(refused.out);
        const auto errors = eventsOfType(events, "error");
        QVERIFY2(std::any_of(errors.begin(), errors.end(), [](const json& e) {
                     const std::string message = e["data"].value("message", "");
                     return message.find("MCP server \"everything\"") != std::string::npos &&
                            message.find("403") != std::string::npos;
                 }),
                 refused.out.constData());
        QVERIFY2(toolOutput(events, "call_0_0").find("mcp__everything__echo") != std::string::npos,
                 toolOutput(events, "call_0_0").c_str());
    }

    // An HTTPS server whose token is a secret bound to its host: the .mcp.json names the secret's placeholder
    // (${MCP_TOKEN} in a header), the egress puts the value in, and nothing in the sandbox or the events
    // holds the value.
    void aRemoteServersTokenIsASecretPutInAtTheEgress() {
        if (QStandardPaths::findExecutable("openssl").isEmpty())
            QSKIP("needs openssl (packaging/install-deps.sh)");
        QTemporaryDir data, workspace, certificates;
        const QString certificate = certificates.filePath("mcp.pem"), key = certificates.filePath("mcp.key");
        QVERIFY(makeSelfSignedCertificate("mcp.example.test", certificate, key));
        const QString log = certificates.filePath("requests.log");
        ServerProcess server;
        auto serverEnvironment = QProcessEnvironment::systemEnvironment();
        serverEnvironment.insert("TLS_CERT", certificate);
        serverEnvironment.insert("TLS_KEY", key);
        QVERIFY(server.start(QStandardPaths::findExecutable("node"),
                             {qEnvironmentVariable("WARREN_TEST_DATA") + "/mcp/http-server.js", "ok", log},
                             serverEnvironment, QProcess::StandardOutput, QRegularExpression("port ([0-9]+)")));
        const QString host = "mcp.example.test:" + QString::number(server.port);
        const auto stored = setSecret({"MCP_TOKEN", "--host", host}, kMcpToken, data.path());
        QVERIFY2(stored.exitCode == 0, stored.err.constData());
        QVERIFY(write(workspace.filePath(".mcp.json"), QByteArray::fromStdString(json{
            {"mcpServers", {{"tracker", {{"type", "http"}, {"url", "https://" + host.toStdString() + "/mcp"},
                                         {"headers", {{"Authorization", "Bearer ${MCP_TOKEN}"}}}}}}}}.dump())));
        const QString script = data.filePath("script.json");
        QVERIFY(writeScript(script, {turn("mcp__tracker__echo", {{"message", "with a token"}}),
                                     turn("shell", {{"command", "printenv MCP_TOKEN"}}),
                                     turn("finish", {{"summary", "called"}})}));
        const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace",
                                       workspace.path(), "--secret", "MCP_TOKEN", "--resolve", host + ":127.0.0.1",
                                       "--egress-ca", certificate, "call the tracker"},
                                      data.path());
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const auto events = jsonLines(result.out);
        QCOMPARE(toolOutput(events, "call_0_0"), std::string("echo: with a token (ping answered)"));
        // The sandbox holds a placeholder; the server received the value, on every request.
        const std::string placeholder = toolOutput(events, "call_1_0");
        QVERIFY2(placeholder.find("warren-secret-") != std::string::npos, placeholder.c_str());
        QVERIFY(!result.out.contains(kMcpToken) && !result.err.contains(kMcpToken));
        QFile requests(log);
        QVERIFY(requests.open(QIODevice::ReadOnly));
        int seen = 0;
        for (const QByteArray& line : requests.readAll().split('\n')) {
            if (line.isEmpty())
                continue;
            const QJsonObject request = QJsonDocument::fromJson(line).object();
            QCOMPARE(request["headers"].toObject()["authorization"].toString().toUtf8(), "Bearer " + kMcpToken);
            ++seen;
        }
        QVERIFY(seen >= 4); // initialize, initialized, tools/list, the ping's answer, tools/call, DELETE
    }
};

QTEST_GUILESS_MAIN(TestControlMcp)
#include "tst_control_mcp.moc"
