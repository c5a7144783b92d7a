// Claude Code and Codex on a warrend, end to end: a user asks for `"agent": "claude-code"` or `"codex"`, the
// operator's install (`serve --agent-cli`, the real CLI: WARREN_TEST_CLAUDE, WARREN_TEST_CODEX; skipped,
// naming the variable, without them) runs in the task's sandbox, its model reached only through the task's
// model proxy with the operator's key. The model double receives that key on every call; the user's events,
// the task's answer and warrend's data directory never hold it; the task's patch is what the CLI wrote; with
// safe-mode, the task's owner answers the CLI's asks.

#include "tests/support/WarrendServer.h"
#include "tests/support/CliModelServer.h"
#include "tests/support/WarrenRun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

const QByteArray kOperatorKey = "sk-operator-5d1e-never-in-the-sandbox";


} // namespace

class TestWarrendCliAgent : public QObject {
    Q_OBJECT

private slots:
    void runsTheOperatorsInstallWithItsKeyOutside_data() {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("agent");
        QTest::newRow("claude-code") << "WARREN_TEST_CLAUDE" << "claude-code";
        QTest::newRow("codex") << "WARREN_TEST_CODEX" << "codex";
    }

    void runsTheOperatorsInstallWithItsKeyOutside() {
        QFETCH(QString, variable);
        QFETCH(QString, agent);
        const QString program = QProcessEnvironment::systemEnvironment().value(variable);
        if (program.isEmpty())
            QSKIP(qPrintable("set " + variable + " to the CLI's executable to run this test"));
        const bool claude = agent == "claude-code";

        const std::string probe = "echo \"host=$(uname -n) user=$(id -un)\"";
        CliModelServer model;
        QVERIFY(model.listen());
        scriptCommandThenNotes(model, claude, probe, "written on the server\n");

        // The operator's provider is the model double, with the operator's key; the CLI is the operator's.
        QString error;
        auto server = WarrendServer::create(&error);
        QVERIFY2(server, qPrintable(error));
        const QString alice = server->addUser("alice");
        const QString base = QString::fromStdString(model.baseUrl());
        server->setEnvironment(claude ? "ANTHROPIC_API_KEY" : "WARREN_OPENAI_COMPATIBLE_API_KEY", kOperatorKey);
        QVERIFY2(server->start(&error, {"--provider", claude ? "anthropic:" + base : "openai-compatible:" + base + "/v1",
                                        "--model", claude ? "claude-test" : "gpt-test", "--agent-cli",
                                        agent + "=" + program}),
                 qPrintable(error));

        QTemporaryDir workspace;
        QVERIFY(workspace.isValid());
        QFile readme(workspace.filePath("README.md"));
        QVERIFY(readme.open(QIODevice::WriteOnly) && readme.write("# project\n") > 0);
        readme.close();
        const QString upload = server->upload(alice, workspace.path());
        QVERIFY(!upload.isEmpty());

        const json body = {{"prompt", "Look around, then write notes.txt"},
                           {"agent", agent.toStdString()},
                           {"workspace", upload.toStdString()}};
        const HttpAnswer created =
            server->request("POST", "/v1/tasks", alice, QByteArray::fromStdString(body.dump()));
        QVERIFY2(created.status == 201, created.body.constData());
        const QString task = QString::fromStdString(created.json().value("id", ""));
        QCOMPARE(QString::fromStdString(created.json()["spec"].value("agent", "")), agent);

        const auto events = server->streamEvents(task, alice, {}); // to the stream's end
        QVERIFY(!events.empty());
        std::string seen;
        int modelCalls = 0;
        for (const auto& event : events) {
            seen += event.dump() + "\n";
            if (event.value("type", "") == "model_call")
                ++modelCalls;
        }
        QVERIFY2(events.back().value("type", "") == "task_finished", seen.c_str());
        QVERIFY2(seen.find("host=warren user=agent") != std::string::npos, seen.c_str()); // inside the sandbox
        QVERIFY(modelCalls >= 3); // the control plane's record of each call
        QVERIFY2(seen.find(kOperatorKey.toStdString()) == std::string::npos, "the key reached the user's events");

        const HttpAnswer shown = server->request("GET", "/v1/tasks/" + task, alice);
        QCOMPARE(QString::fromStdString(shown.json().value("status", "")), QString("succeeded"));
        QVERIFY(!shown.body.contains(kOperatorKey));
        const HttpAnswer patch = server->request("GET", "/v1/tasks/" + task + "/patch", alice);
        QCOMPARE(patch.status, 200);
        QVERIFY2(patch.body.contains("b/notes.txt") && patch.body.contains("+written on the server"),
                 patch.body.constData());

        // The model double saw the operator's key on every call; nothing warrend keeps on disk holds it.
        const auto calls = model.modelCalls();
        QVERIFY(calls.size() >= 3);
        for (const auto& call : calls) {
            const char* header = claude ? "x-api-key" : "authorization";
            const std::string key = call.headers.count(header) ? call.headers.at(header) : "";
            QCOMPARE(QString::fromStdString(key), claude ? QString(kOperatorKey) : "Bearer " + QString(kOperatorKey));
        }
        const QString holder = fileHolding(server->dataDir(), kOperatorKey);
        QVERIFY2(holder.isEmpty(), qPrintable(holder));
    }

    // With safe-mode on a warrend, a CLI's command and write wait for the task's owner, who answers through
    // the API by the tool call's id: the denied command did not run (and Claude Code's model got the owner's
    // note; Codex's decline carries none), the approved write is in the task's patch.
    void cliAsksItsOwner_data() { runsTheOperatorsInstallWithItsKeyOutside_data(); }
    void cliAsksItsOwner() {
        QFETCH(QString, variable);
        QFETCH(QString, agent);
        const QString program = QProcessEnvironment::systemEnvironment().value(variable);
        if (program.isEmpty())
            QSKIP(qPrintable("set " + variable + " to the CLI's executable to run this test"));
        const bool claude = agent == "claude-code";
        CliModelServer model;
        QVERIFY(model.listen());
        if (claude)
            scriptCommandThenNotes(model, true, "touch ran.txt", "approved by alice\n");
        else
            scriptCodexCommandThenPatch(model, "touch ran.txt", "approved by alice\n");
        QString error;
        auto server = WarrendServer::create(&error);
        QVERIFY2(server, qPrintable(error));
        const QString alice = server->addUser("alice");
        const QString base = QString::fromStdString(model.baseUrl());
        server->setEnvironment(claude ? "ANTHROPIC_API_KEY" : "WARREN_OPENAI_COMPATIBLE_API_KEY",
                               kOperatorKey);
        QVERIFY2(server->start(&error,
                               {"--provider",
                                claude ? "anthropic:" + base : "openai-compatible:" + base + "/v1", "--model",
                                claude ? "claude-test" : "gpt-test", "--agent-cli", agent + "=" + program}),
                 qPrintable(error));
        QTemporaryDir workspace;
        QVERIFY(workspace.isValid());
        const QString upload = server->upload(alice, workspace.path());
        QVERIFY(!upload.isEmpty());
        const json body = {{"prompt", "Look around, then write notes.txt"},
                           {"agent", agent.toStdString()},
                           {"presets", {"safe-mode"}},
                           {"workspace", upload.toStdString()}};
        const HttpAnswer created = server->request("POST", "/v1/tasks", alice, QByteArray::fromStdString(body.dump()));
        QVERIFY2(created.status == 201, created.body.constData());
        const QString task = QString::fromStdString(created.json().value("id", ""));

        // Two questions, in order: the command (denied, with a note), then the write (approved).
        QByteArray lastSeq;
        std::vector<std::string> toolsAsked;
        for (const bool approve : {false, true}) {
            const auto events = server->streamEvents(task, alice, "approval_requested", lastSeq);
            QVERIFY2(!events.empty() && events.back().value("type", "") == "approval_requested",
                     server->serverOutput().right(3000).constData());
            lastSeq = QByteArray::number(events.back().value("seq", 0ull));
            toolsAsked.push_back(events.back().value("tool", ""));
            const QString call = QString::fromStdString(events.back()["data"].value("id", ""));
            const json answer = approve ? json{{"approved", true}} : json{{"approved", false}, {"note", "not that"}};
            QCOMPARE(server->request("POST", "/v1/tasks/" + task + "/approvals/" + call, alice,
                                     QByteArray::fromStdString(answer.dump()))
                         .status,
                     202);
        }
        // Asked as Warren's calls.
        QCOMPARE(toolsAsked, (std::vector<std::string>{"shell", claude ? "write_file" : "apply_patch"}));
        const auto rest = server->streamEvents(task, alice, {}, lastSeq);
        QVERIFY(!rest.empty() && rest.back().value("type", "") == "task_finished");

        const HttpAnswer patch = server->request("GET", "/v1/tasks/" + task + "/patch", alice);
        QCOMPARE(patch.status, 200);
        QVERIFY2(patch.body.contains("b/notes.txt") && patch.body.contains("+approved by alice"), patch.body.constData());
        QVERIFY2(!patch.body.contains("ran.txt"), patch.body.constData());
        if (!claude)
            return;
        // Claude Code told its model the owner's words with the refusal.
        const auto calls = model.modelCalls();
        QVERIFY(calls.size() >= 2);
        QVERIFY2(calls[1].body.find("not that") != std::string::npos, calls[1].body.c_str());
    }
};

QTEST_MAIN(TestWarrendCliAgent)
#include "tst_warrend_cli_agent.moc"
