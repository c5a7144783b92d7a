// Key isolation, end to end: a recognisable fake API key is given to `warren` (by environment variable,
// so no file of Warren's holds it), and the model (MockLlmServer in this process) makes the sandboxed
// agent search for it everywhere it can reach. The key must then be nowhere: not in what the searches
// found, not in any stored event, not in the database's bytes, not in any file under the data directory,
// not in warren's output, not in what the agent sent the model — while the mock did receive it.
#include "tests/support/MockLlmServer.h"
#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using nlohmann::json;
using warren::test::MockLlmServer;
using warren::test::MockResponse;
using warren::test::WarrenResult;

namespace {

// What the searches in the sandbox look for. Written so that the commands themselves do not contain it
// (the bracket keeps grep's own command line from matching), and printing the whole match: a key found
// anywhere would appear in full in the tool output.
const QString kSearchPattern = QStringLiteral("sk-warren-canar[y][-0-9A-Za-z]*");
const QByteArray kDecoy = "sk-warren-canary-decoy0000";

QString makeCanary() {
    return QStringLiteral("sk-warren-canary-%1%2")
        .arg(QRandomGenerator::system()->generate64(), 16, 16, QLatin1Char('0'))
        .arg(QRandomGenerator::system()->generate64(), 16, 16, QLatin1Char('0'));
}

MockResponse shellTurn(int n, const QString& command) {
    const json arguments{{"command", command.toStdString()}, {"timeout_sec", 150}};
    return MockResponse::sse(warren::test::splitEvents(warren::test::openAiToolCallStream(
        QStringLiteral("call_search_%1").arg(n), "shell", {QString::fromStdString(arguments.dump())})));
}

MockResponse finishTurn() {
    return MockResponse::sse(warren::test::splitEvents(warren::test::openAiToolCallStream(
        "call_finish", "finish", {"{\"summary\": \"searched everywhere\"}"})));
}

// The searches, one shell call each.
QStringList searchCommands() {
    const QString grep = "grep -raoE '" + kSearchPattern + "' ";
    return {
        // The environment of every process the sandbox can see, and their command lines.
        "env; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do echo \"== $f\"; tr '\\0' ' ' < \"$f\"; echo; "
        "done 2>&1",
        // The places a key could have been put for the agent, then every readable file.
        "timeout 60 " + grep +
            "/proc /state /output /opt /tmp /home /etc /workspace /memories /dev /run /var 2>/dev/null | sort -u | "
            "head -200; echo \"searched the usual places\"",
        "timeout 60 " + grep + "/ 2>/dev/null | sort -u | head -200; echo \"searched /\"",
        "ls -la /opt/warren /state /output /tmp /home/agent /workspace 2>&1; cat /state/* /output/* 2>&1 | "
        "head -c 200000",
    };
}

QProcessEnvironment environmentWithKey(const QString& dataDir, const QString& key) {
    QProcessEnvironment environment = warren::test::warrenEnvironment(dataDir);
    for (const char* name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "WARREN_OPENAI_COMPATIBLE_API_KEY"})
        environment.remove(name);
    environment.insert("WARREN_OPENAI_COMPATIBLE_API_KEY", key);
    return environment;
}

QString describe(const WarrenResult& result) {
    return QString::fromUtf8("exit " + QByteArray::number(result.exitCode) + "\nstderr:\n" + result.err.right(3000) +
                             "\nstdout (tail):\n" + result.out.right(3000));
}

// The line around the first needle in bytes, the needle masked, to say where a leak was found.
QString context(const QByteArray& bytes, const QByteArray& needle) {
    const qsizetype at = bytes.indexOf(needle);
    const qsizetype lineStart = bytes.lastIndexOf('\n', at) + 1;
    const qsizetype start = std::max(lineStart, at - 300);
    QByteArray around = bytes.mid(start, at - start + needle.size() + 100);
    around.replace(needle, "[THE KEY]");
    return QString::fromUtf8(around);
}

// Every file under dir whose raw bytes contain needle.
QStringList filesContaining(const QString& dir, const QByteArray& needle) {
    QStringList found;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (file.open(QIODevice::ReadOnly) && file.readAll().contains(needle))
            found << path;
    }
    return found;
}

} // namespace

class TestControlKeys : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void keyIsNowhereTheAgentOrTheRecordsReach();
    void agentRequestsCarryATaskTokenNotTheKey();
};

void TestControlKeys::initTestCase() {
    if (warren::test::warrenBinary().isEmpty())
        QSKIP("WARREN_CLI is not set: run through ctest");
}

void TestControlKeys::keyIsNowhereTheAgentOrTheRecordsReach() {
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString workspace = root.filePath("workspace");
    const QString dataDir = root.filePath("data");
    QVERIFY(QDir().mkpath(workspace));
    // The positive control: a string of the key's shape that the searches must find and print.
    QFile decoy(workspace + "/decoy.txt");
    QVERIFY(decoy.open(QIODevice::WriteOnly));
    decoy.write("not a key: " + kDecoy + "\n");
    decoy.close();

    const QString canary = makeCanary();
    const QByteArray key = canary.toUtf8();
    MockLlmServer server;
    QVERIFY(server.listen());
    const QStringList commands = searchCommands();
    for (int i = 0; i < commands.size(); ++i) {
        QVERIFY(!commands[i].contains(canary.left(16)));
        server.enqueue(shellTurn(i + 1, commands[i]));
    }
    server.enqueue(finishTurn());

    const WarrenResult result = warren::test::runWarren(
        {"run", "--json", "--approve", "auto", "--provider", "openai-compatible:" + server.baseUrl() + "/v1", "--model",
         "mock-1", "--workspace", workspace, "look around"},
        dataDir, environmentWithKey(dataDir, canary));
    QVERIFY2(result.exitCode == 0, qPrintable(describe(result)));

    // The key was used: every model call reached the mock with it.
    QCOMPARE(int(server.requests().size()), int(commands.size()) + 1);
    for (const auto& request : server.requests())
        QCOMPARE(request.headers.value("authorization"), "Bearer " + key);

    // The searches ran and would have printed the key: each shell call has a result, and the decoy was found.
    const auto events = warren::test::jsonLines(result.out);
    QByteArray toolOutput;
    int shellResults = 0;
    for (const auto& event : events) {
        if (event.value("type", "") == "tool_result" && event.value("tool", "") == "shell")
            ++shellResults;
        if (event.value("type", "") == "tool_result" || event.value("type", "") == "tool_output")
            toolOutput += QByteArray::fromStdString(event.value("data", json::object()).value("output", "")) +
                          QByteArray::fromStdString(event.value("data", json::object()).value("text", ""));
    }
    QCOMPARE(shellResults, int(commands.size()));
    QVERIFY2(toolOutput.contains("PATH="), "the env search printed nothing");
    QVERIFY2(toolOutput.contains("/workspace/decoy.txt:" + kDecoy), "the grep searches did not find the decoy");
    QVERIFY(toolOutput.contains("searched the usual places"));
    QVERIFY(toolOutput.contains("searched /"));

    // Nowhere the agent or the records reach; every place is checked, then all that hold it are named.
    QStringList leaks;
    const auto check = [&](const QString& where, const QByteArray& bytes) {
        if (!bytes.contains(key))
            return;
        leaks << where;
        qWarning().noquote() << "the key in" << where << "at:" << context(bytes, key);
    };
    check("the sandbox's searches (tool output)", toolOutput);
    for (const auto& request : server.requests())
        check("what the agent sent the model", request.body);
    check("warren's --json output", result.out);
    check("warren's stderr", result.err);
    const WarrenResult listed = warren::test::runWarren({"tasks", "--json"}, dataDir);
    const auto tasks = warren::test::jsonLines(listed.out);
    QCOMPARE(int(tasks.size()), 1);
    check("the task record", listed.out);
    const WarrenResult shown =
        warren::test::runWarren({"show", QString::fromStdString(tasks[0].value("id", "")), "--json"}, dataDir);
    QCOMPARE(shown.exitCode, 0);
    QVERIFY(int(warren::test::jsonLines(shown.out).size()) >= int(events.size()));
    check("the stored events", shown.out);
    QVERIFY(QFile::exists(dataDir + "/warren.db"));
    for (const char* name : {"warren.db", "warren.db-wal", "warren.db-shm"}) {
        QFile file(dataDir + "/" + name);
        if (file.open(QIODevice::ReadOnly))
            check(name, file.readAll());
    }
    for (const QString& path : filesContaining(dataDir, key) + filesContaining(workspace, key))
        leaks << "the file " + path;
    QVERIFY2(leaks.isEmpty(), qPrintable("the API key was found in: " + leaks.join("; ")));
    // A refused token would show as an error event and no model call; there is neither.
    QVERIFY2(!shown.out.contains("unauthorized"), "a request of the agent was refused by the tool proxy");
}

void TestControlKeys::agentRequestsCarryATaskTokenNotTheKey() {
    // The agent's stdout is its requests to the control plane: a wrapper, run as the agent in the sandbox,
    // copies it to /output, where this test reads the token each request carried.
    const QString realAgent = QProcessEnvironment::systemEnvironment().value("WARREN_AGENT");
    if (realAgent.isEmpty())
        QSKIP("WARREN_AGENT is not set: run through ctest");
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString workspace = root.filePath("workspace");
    const QString dataDir = root.filePath("data");
    QVERIFY(QDir().mkpath(workspace));
    QVERIFY(QFile::copy(realAgent, workspace + "/.warren-agent"));
    QVERIFY(QFile::setPermissions(workspace + "/.warren-agent", QFile::ReadOwner | QFile::ExeOwner | QFile::ReadOther |
                                                                    QFile::ExeOther));
    const QString wrapper = root.filePath("agent-wrapper.sh");
    QFile script(wrapper);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write("#!/bin/sh\n/workspace/.warren-agent \"$@\" | tee /output/agent-stdout.jsonl\n");
    script.close();
    QVERIFY(QFile::setPermissions(wrapper, QFile::ReadOwner | QFile::ExeOwner | QFile::ReadOther | QFile::ExeOther));

    const QString canary = makeCanary();
    MockLlmServer server;
    QVERIFY(server.listen());
    server.enqueue(shellTurn(1, "echo hello"));
    server.enqueue(finishTurn());
    QProcessEnvironment environment = environmentWithKey(dataDir, canary);
    environment.insert("WARREN_AGENT", wrapper);
    const WarrenResult result = warren::test::runWarren(
        {"run", "--json", "--approve", "auto", "--provider", "openai-compatible:" + server.baseUrl() + "/v1", "--model",
         "mock-1", "--workspace", workspace, "say hello"},
        dataDir, environment);
    QVERIFY2(result.exitCode == 0, qPrintable(describe(result)));
    QCOMPARE(int(server.requests().size()), 2);

    const WarrenResult listed = warren::test::runWarren({"tasks", "--json"}, dataDir);
    const auto tasks = warren::test::jsonLines(listed.out);
    QCOMPARE(int(tasks.size()), 1);
    QFile copied(dataDir + "/tasks/" + QString::fromStdString(tasks[0].value("id", "")) +
                 "/output/agent-stdout.jsonl");
    QVERIFY2(copied.open(QIODevice::ReadOnly), "the wrapper did not copy the agent's stdout");
    const QByteArray agentOut = copied.readAll();
    QVERIFY(!agentOut.contains(canary.toUtf8()));
    QStringList tokens;
    for (const auto& line : warren::test::jsonLines(agentOut))
        if (line.value("method", "") == "llm.chat")
            tokens << QString::fromStdString(line.value("params", json::object()).value("token", ""));
    QCOMPARE(tokens.size(), 2);
    for (const QString& token : tokens) {
        QVERIFY2(token.size() >= 32, "an llm.chat request carried no task token");
        QVERIFY(token != canary);
        QVERIFY(!token.contains(canary) && !canary.contains(token));
    }
}

QTEST_GUILESS_MAIN(TestControlKeys)
#include "tst_control_keys.moc"
