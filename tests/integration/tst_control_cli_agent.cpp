// Claude Code and Codex under `warren run --agent ...`, end to end: the real CLI (WARREN_TEST_CLAUDE,
// WARREN_TEST_CODEX; skipped, naming the variable, without them) in the real sandbox (bubblewrap, and podman
// with the test image of packaging/make-test-image.sh where it is there), its model reached only
// through the task's model proxy, against a model double that speaks each CLI's wire. What DESIGN §11
// promises: the CLI and its commands run inside (the sandbox's host name and user), the model double receives
// the real key and nothing in the sandbox, the events or the data directory holds it, the CLI's tool calls
// are events, the model calls are the control plane's events, and diff and rewind cover what the CLI changed. A CLI
// that is not installed is refused before any task exists.

#include "tests/support/CliModelServer.h"
#include "tests/support/WarrenRun.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

using namespace warren::test;
using nlohmann::json;

namespace {

const QByteArray kRealKey = "sk-real-9f3a1c-never-in-the-sandbox";

QString cliFrom(const char* variable) { return QProcessEnvironment::systemEnvironment().value(variable); }


std::string textOf(const json& event, const char* key) {
    const json data = event.value("data", json::object());
    const auto found = data.find(key);
    return found != data.end() ? (found->is_string() ? found->get<std::string>() : found->dump()) : std::string();
}

} // namespace

class TestControlCliAgent : public QObject {
    Q_OBJECT

private slots:
    void runsInTheSandboxWithItsKeyOutside_data() {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("agent");
        QTest::addColumn<QString>("backend");
        for (const QString backend : {"bwrap", "podman"}) {
            QTest::addRow("claude-code, %s", qPrintable(backend)) << "WARREN_TEST_CLAUDE" << "claude-code" << backend;
            QTest::addRow("codex, %s", qPrintable(backend)) << "WARREN_TEST_CODEX" << "codex" << backend;
        }
    }

    void runsInTheSandboxWithItsKeyOutside() {
        QFETCH(QString, variable);
        QFETCH(QString, agent);
        QFETCH(QString, backend);
        const QString program = cliFrom(variable.toUtf8().constData());
        if (program.isEmpty())
            QSKIP(qPrintable("set " + variable + " to the CLI's executable to run this test"));
        QStringList sandbox{"--backend", backend};
        if (backend == "podman") {
            const QString image = cliFrom("WARREN_TEST_IMAGE").isEmpty() ? "localhost/warren-test:3" : cliFrom("WARREN_TEST_IMAGE");
            if (cliFrom("WARREN_AGENT_STATIC") == "0")
                QSKIP("the agent of this build is dynamically linked (sanitizers): it cannot run on an image without "
                      "the host's libraries");
            if (QProcess::execute("podman", {"image", "exists", image}) != 0)
                QSKIP(qPrintable("podman or its image " + image + " is missing (packaging/make-test-image.sh)"));
            sandbox << "--image" << image;
        }
        const bool claude = agent == "claude-code";
        QTemporaryDir data, workspace;
        QVERIFY(data.isValid() && workspace.isValid());

        // Where the model asks the CLI to look: who and where it is, and what key variable it sees.
        const std::string probe = "echo \"host=$(uname -n) user=$(id -un) key=${ANTHROPIC_API_KEY}${WARREN_MODEL_TOKEN}\"";
        CliModelServer model;
        QVERIFY(model.listen());
        scriptCommandThenNotes(model, claude, probe, "written by the model\n");

        QProcessEnvironment environment;
        environment.insert(claude ? "ANTHROPIC_API_KEY" : "WARREN_OPENAI_COMPATIBLE_API_KEY", kRealKey);
        for (const char* podmanNeeds : {"PATH", "CONTAINERS_CONF"})
            if (!cliFrom(podmanNeeds).isEmpty())
                environment.insert(podmanNeeds, cliFrom(podmanNeeds));
        const QString provider = claude ? "anthropic:" + QString::fromStdString(model.baseUrl())
                                        : "openai-compatible:" + QString::fromStdString(model.baseUrl()) + "/v1";
        const auto run = runWarren(QStringList{"run", "--json", "--agent", agent, "--agent-path", program, "--provider",
                                               provider, "--model", claude ? "claude-test" : "gpt-test", "--workspace",
                                               workspace.path()} +
                                       sandbox + QStringList{"Look around, then write notes.txt"},
                                   data.path(), environment);
        QVERIFY2(run.exitCode == 0, (run.err + run.out.right(4000)).constData());
        const auto events = jsonLines(run.out);

        // The CLI's command ran in the sandbox, as its user, and saw no key but the task's token.
        std::string output;
        bool called = false;
        int modelCalls = 0;
        for (const auto& event : events) {
            const std::string type = event.value("type", "");
            if (type == "tool_call" && event.dump().find("uname -n") != std::string::npos)
                called = true;
            if (type == "tool_result" || type == "tool_output")
                output += textOf(event, "output") + textOf(event, "text");
            if (type == "model_call") {
                ++modelCalls;
                QCOMPARE(event["data"].value("status", 0), 200);
            }
        }
        QVERIFY2(called, "no tool_call event holds the CLI's command");
        // (A container's uid has no name in its image's passwd: the host name tells.)
        QVERIFY2(output.find(backend == "bwrap" ? "host=warren user=agent" : "host=warren user=") != std::string::npos,
                 output.c_str());
        QVERIFY(modelCalls >= 3); // each of the model's turns, through the proxy
        QCOMPARE(QString::fromStdString(events.back().value("type", "")), QString("task_finished"));

        // The CLI wrote in the workspace.
        QFile notes(workspace.filePath("notes.txt"));
        QVERIFY(notes.open(QIODevice::ReadOnly));
        QCOMPARE(notes.readAll(), QByteArray("written by the model\n"));

        // The model double saw the real key on every call and nothing else; nothing Warren kept holds it.
        const auto calls = model.modelCalls();
        QVERIFY(calls.size() >= 3);
        for (const auto& call : calls) {
            const std::string key = claude ? call.headers.count("x-api-key") ? call.headers.at("x-api-key") : ""
                                           : call.headers.count("authorization") ? call.headers.at("authorization") : "";
            QCOMPARE(QString::fromStdString(key), claude ? QString(kRealKey) : "Bearer " + QString(kRealKey));
        }
        QVERIFY2(!run.out.contains(kRealKey) && !run.err.contains(kRealKey), "the key reached warren's output");
        QVERIFY2(output.find(kRealKey.toStdString()) == std::string::npos, "the key reached the sandbox");
        const QString holder = fileHolding(data.path(), kRealKey);
        QVERIFY2(holder.isEmpty(), qPrintable(holder));
        QVERIFY(fileHolding(workspace.path(), kRealKey).isEmpty());

        // What the CLI changed is the task's diff, from the snapshots taken as its model calls arrived.
        const auto tasks = jsonLines(runWarren({"tasks", "--json"}, data.path()).out);
        QCOMPARE(tasks.size(), std::size_t{1});
        const auto diff = runWarren({"diff", QString::fromStdString(tasks.front().value("id", ""))}, data.path());
        QVERIFY2(diff.exitCode == 0, diff.err.constData());
        QVERIFY2(diff.out.contains("b/notes.txt") && diff.out.contains("+written by the model"), diff.out.constData());

        // Rewind puts the workspace back as it was before the CLI's first model call, and --undo returns it.
        const QString id = QString::fromStdString(tasks.front().value("id", ""));
        const auto rewound = runWarren({"rewind", id, "--to-step", "1", "--yes"}, data.path());
        QVERIFY2(rewound.exitCode == 0, rewound.err.constData());
        QVERIFY(!QFile::exists(workspace.filePath("notes.txt")));
        const auto undone = runWarren({"rewind", id, "--undo", "--yes"}, data.path());
        QVERIFY2(undone.exitCode == 0, undone.err.constData());
        QVERIFY(QFile::exists(workspace.filePath("notes.txt")));
    }

    // With safe-mode, a CLI's commands and file writes wait for Warren's approvals, as Warren's own agent's
    // do:
    // --approve decides, and the approval rules read its calls as Warren's (a deny rule stops its `rm -rf ./`
    // even with --approve auto). What was denied did not run. Claude Code asks through its permission prompt
    // tool, Codex through its app-server (its file change is a patch).
    void cliAsksWarrensApprovals_data() {
        QTest::addColumn<QString>("agent");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("command");
        QTest::addColumn<bool>("commandRuns");
        QTest::addColumn<bool>("writeRuns");
        for (const QString agent : {"claude-code", "codex"}) {
            QTest::addRow("%s, --approve deny", qPrintable(agent)) << agent << "deny"
                                                                   << "touch ran.txt" << false << false;
            QTest::addRow("%s, --approve auto", qPrintable(agent)) << agent << "auto"
                                                                   << "touch ran.txt" << true << true;
            QTest::addRow("%s, --approve auto, a deny rule", qPrintable(agent))
                << agent << "auto"
                << "rm -rf ./ ; touch ran.txt" << false << true;
        }
    }
    void cliAsksWarrensApprovals() {
        QFETCH(QString, agent);
        QFETCH(QString, mode);
        QFETCH(QString, command);
        QFETCH(bool, commandRuns);
        QFETCH(bool, writeRuns);
        const bool claude = agent == "claude-code";
        const char* variable = claude ? "WARREN_TEST_CLAUDE" : "WARREN_TEST_CODEX";
        const QString program = cliFrom(variable);
        if (program.isEmpty())
            QSKIP(qPrintable(QString("set ") + variable + " to the CLI's executable to run this test"));
        QTemporaryDir data, workspace;
        QVERIFY(data.isValid() && workspace.isValid());
        CliModelServer model;
        QVERIFY(model.listen());
        if (claude)
            scriptCommandThenNotes(model, true, command.toStdString(), "written by the model\n");
        else
            scriptCodexCommandThenPatch(model, command.toStdString(), "written by the model\n");
        QProcessEnvironment environment;
        environment.insert(claude ? "ANTHROPIC_API_KEY" : "WARREN_OPENAI_COMPATIBLE_API_KEY", kRealKey);
        const QString provider = claude
                                     ? "anthropic:" + QString::fromStdString(model.baseUrl())
                                     : "openai-compatible:" + QString::fromStdString(model.baseUrl()) + "/v1";
        const auto run =
            runWarren({"run", "--json", "--agent", agent, "--agent-path", program, "--provider", provider,
                       "--model", claude ? "claude-test" : "gpt-test", "--preset", "safe-mode", "--approve",
                       mode, "--workspace", workspace.path(), "Look around, then write notes.txt"},
                      data.path(), environment);
        QVERIFY2(run.exitCode == 0, (run.err + run.out.right(4000)).constData());

        // Each call was asked for, by its tool_call's id, and answered as the mode and rules say.
        const std::string shellTool = claude ? "Bash" : "command_execution";
        const std::string writeTool = claude ? "Write" : "file_change";
        std::map<std::string, std::string> callIds; // tool -> its call's id
        std::map<std::string, bool> approved;       // call id -> the answer
        std::map<std::string, std::string> askedAs; // call id -> Warren's tool it was asked as
        for (const auto& event : jsonLines(run.out)) {
            const std::string type = event.value("type", "");
            if (type == "tool_call")
                callIds[event.value("tool", "")] = textOf(event, "id");
            if (type == "approval_requested")
                askedAs[textOf(event, "id")] = event.value("tool", "");
            if (type == "approval_resolved")
                approved[textOf(event, "id")] = event["data"].value("approved", false);
        }
        QCOMPARE(askedAs.size(), std::size_t(2));
        QVERIFY(callIds.count(shellTool) && callIds.count(writeTool));
        QCOMPARE(askedAs[callIds[shellTool]], std::string("shell"));
        QCOMPARE(askedAs[callIds[writeTool]], std::string(claude ? "write_file" : "apply_patch"));
        QCOMPARE(approved.count(callIds[shellTool]) ? approved[callIds[shellTool]] : !commandRuns,
                 commandRuns);
        QCOMPARE(approved.count(callIds[writeTool]) ? approved[callIds[writeTool]] : !writeRuns, writeRuns);
        QCOMPARE(QFile::exists(workspace.filePath("ran.txt")), commandRuns);
        QCOMPARE(QFile::exists(workspace.filePath("notes.txt")), writeRuns);
    }

    // kill -9 of the control plane while Claude Code's command runs: the sandbox goes with it, the next warren
    // finds the task interrupted, and `warren resume` continues the CLI's task to its end (its own session
    // where Claude Code had saved it, else anew, saying so); the first run's events are kept as they were.
    void aKilledWarrenResumesTheCli() {
        const QString program = cliFrom("WARREN_TEST_CLAUDE");
        if (program.isEmpty())
            QSKIP("set WARREN_TEST_CLAUDE to Claude Code's executable to run this test");
        QTemporaryDir data, workspace;
        QVERIFY(data.isValid() && workspace.isValid());
        CliModelServer model;
        QVERIFY(model.listen());
        const std::string marker = "sleep 617";
        scriptCommandThenNotes(model, true, marker, "written after the resume\n");
        QProcessEnvironment environment = warrenEnvironment(data.path());
        environment.insert("ANTHROPIC_API_KEY", kRealKey);
        QProcess warren;
        startWarren(warren,
                    {"run", "--json", "--agent", "claude-code", "--agent-path", program, "--provider",
                     "anthropic:" + QString::fromStdString(model.baseUrl()), "--model", "claude-test", "--workspace",
                     workspace.path(), "Look around, then write notes.txt"},
                    data.path(), environment);
        QByteArray firstRun;
        QVERIFY2(readEventsUntil(
                     warren,
                     [&](const json& event) {
                         return event.value("type", "") == "tool_call" && event.dump().find(marker) != std::string::npos;
                     },
                     &firstRun),
                 firstRun.right(3000).constData());
        warren.kill(); // SIGKILL: no chance to clean up
        QVERIFY(warren.waitForFinished(60000));

        const auto tasks = jsonLines(runWarren({"tasks", "--json"}, data.path()).out);
        QCOMPARE(tasks.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(tasks.front().value("status", "")), QString("interrupted"));
        const QString id = QString::fromStdString(tasks.front().value("id", ""));
        const auto before = jsonLines(runWarren({"show", id, "--json"}, data.path()).out);
        QVERIFY(!before.empty());

        const auto resumed = runWarren({"resume", id, "--json"}, data.path(), environment);
        QVERIFY2(resumed.exitCode == 0, (resumed.err + resumed.out.right(3000)).constData());
        QFile notes(workspace.filePath("notes.txt"));
        QVERIFY(notes.open(QIODevice::ReadOnly));
        QCOMPARE(notes.readAll(), QByteArray("written after the resume\n"));
        const auto after = jsonLines(runWarren({"show", id, "--json"}, data.path()).out);
        QVERIFY(after.size() > before.size());
        for (std::size_t i = 0; i < before.size(); ++i)
            QCOMPARE(after[i].dump(), before[i].dump());
        bool resumedEvent = false;
        for (std::size_t i = before.size(); i < after.size(); ++i)
            resumedEvent = resumedEvent || after[i].value("type", "") == "task_resumed";
        QVERIFY(resumedEvent);
        QCOMPARE(QString::fromStdString(after.back().value("type", "")), QString("task_finished"));
        QCOMPARE(QString::fromStdString(jsonLines(runWarren({"tasks", "--json"}, data.path()).out).front().value("status", "")),
                 QString("succeeded"));
        // The killed run's command went with its sandbox.
        QVERIFY(QProcess::execute("pgrep", {"-f", QString::fromStdString(marker)}) != 0);
    }

    void aMissingCliIsRefusedBeforeAnyTask() {
        QTemporaryDir data, workspace;
        QVERIFY(data.isValid() && workspace.isValid());
        const auto run = runWarren({"run", "--agent", "claude-code", "--agent-path", workspace.filePath("no-claude"),
                                    "--provider", "anthropic:http://127.0.0.1:9", "--model", "m", "--workspace",
                                    workspace.path(), "anything"},
                                   data.path());
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("npm install -g @anthropic-ai/claude-code"), run.err.constData());
        QVERIFY(jsonLines(runWarren({"tasks", "--json"}, data.path()).out).empty());

        // A CLI and a provider of another wire: refused, naming the provider to choose.
        const auto wrongWire = runWarren({"run", "--agent", "codex", "--agent-path", cliFrom("WARREN_TEST_CODEX").isEmpty()
                                                                                        ? "/bin/true"
                                                                                        : cliFrom("WARREN_TEST_CODEX"),
                                          "--provider", "anthropic:http://127.0.0.1:9", "--model", "m", "--workspace",
                                          workspace.path(), "anything"},
                                         data.path());
        QCOMPARE(wrongWire.exitCode, 2);
        QVERIFY2(wrongWire.err.contains("--provider openai"), wrongWire.err.constData());

        // A server runs its operator's install: --agent-path does not go with --remote (refused before any
        // connection: nothing listens at the URL).
        const auto remote = runWarren({"run", "--remote", "http://127.0.0.1:9", "--agent", "codex", "--agent-path",
                                       "/bin/sh", "anything"},
                                      data.path());
        QCOMPARE(remote.exitCode, 2);
        QVERIFY2(remote.err.contains("drop --agent-path with --remote"), remote.err.constData());
    }
};

QTEST_MAIN(TestControlCliAgent)
#include "tst_control_cli_agent.moc"
