// warren-agent serve running the real Claude Code and Codex under its supervisor (task.start's cli), against
// the model double behind a Unix socket that stands in for the control plane's model proxy. The model asks
// for a shell command and a file write; the events show both, the file is in the workspace, the double saw
// only the token as the key, and a second start with the user's reply continues the same session. The CLIs
// come from $WARREN_TEST_CLAUDE and $WARREN_TEST_CODEX (the project's test runner sets them); without one,
// its test is skipped.

#include "tests/support/CliModelServer.h"
#include "tests/support/ServeSession.h"
#include "tests/support/UnixTcpRelay.h"

#include <algorithm>

#include <QFile>
#include <QFileInfo>
#include <QtTest>

using namespace warren;
using namespace warren::test;

namespace {

constexpr const char* kToken = "task-token.for-the-cli";

// The CLI named by variable, or empty (the test skips).
QString cliFrom(const char* variable) {
    return qEnvironmentVariable(variable);
}

json cliParams(const std::string& kind, const QString& program, const std::string& socket, const std::string& model) {
    json pathDirs = json::array();
    // Codex's npm package keeps rg beside its binary, in ../codex-path.
    const QString vendored = QFileInfo(program).absolutePath() + "/../codex-path";
    if (kind == "codex" && QFileInfo(vendored).isDir())
        pathDirs.push_back(QFileInfo(vendored).canonicalFilePath().toStdString());
    return {{"kind", kind},
            {"program", QFileInfo(program).absoluteFilePath().toStdString()},
            {"path_dirs", pathDirs},
            {"model_socket", socket},
            {"model", model}};
}

void startCliTask(ServeSession& session, const json& cli, const std::optional<std::string>& reply = std::nullopt) {
    json params = {{"protocol_version", protocol::kProtocolVersion},
                   {"task_id", "t-cli"},
                   {"prompt", "Say hello, then write notes.txt"},
                   {"token", kToken},
                   {"cli", cli}};
    if (reply)
        params["reply"] = *reply;
    session.send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "task.start"}, {"params", params}});
}

std::vector<json> ofType(const ServeSession& session, const std::string& type) {
    std::vector<json> out;
    for (const auto& event : session.events)
        if (event.value("type", "") == type)
            out.push_back(event);
    return out;
}

} // namespace

class TestCliAgent : public QObject {
    Q_OBJECT
private slots:
    void runAndReply_data() {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("kind");
        QTest::newRow("claude-code") << "WARREN_TEST_CLAUDE" << "claude-code";
        QTest::newRow("codex") << "WARREN_TEST_CODEX" << "codex";
    }
    void runAndReply() {
        QFETCH(QString, variable);
        QFETCH(QString, kind);
        const QString program = cliFrom(variable.toUtf8().constData());
        if (program.isEmpty())
            QSKIP(qPrintable("set " + variable + " to the CLI's executable to run this test"));
        const bool claude = kind == "claude-code";

        ServeSession session;
        QVERIFY(session.root.isValid());
        const std::string workspace = session.dir("workspace").toStdString();
        CliModelServer model;
        QVERIFY(model.listen());
        const std::string hello = "echo hello from $(hostname)";
        if (claude)
            model.scriptAnthropic({ScriptedTurn::call("Bash", {{"command", hello}, {"description", "say hello"}}),
                                   ScriptedTurn::call("Write", {{"file_path", workspace + "/notes.txt"},
                                                                {"content", "written by the model\n"}}),
                                   ScriptedTurn::say("Done: said hello and wrote notes.txt."),
                                   ScriptedTurn::say("Follow-up done.")});
        else
            model.scriptResponses({ScriptedTurn::call("exec_command", {{"cmd", hello}}),
                                   ScriptedTurn::call("exec_command", {{"cmd", "printf 'written by the model\\n' > notes.txt"}}),
                                   ScriptedTurn::say("Done: said hello and wrote notes.txt."),
                                   ScriptedTurn::say("Follow-up done.")});
        UnixTcpRelay proxy;
        const std::string socket = session.dir("model.sock").toStdString();
        QVERIFY(proxy.start(socket, model.port()));
        const json cli = cliParams(kind.toStdString(), program, socket, claude ? "claude-test" : "gpt-test");

        QVERIFY(session.start());
        startCliTask(session, cli);
        QCOMPARE(session.finish(), 0);

        // The command and its output, the write, the end.
        const auto calls = ofType(session, "tool_call");
        QVERIFY2(calls.size() >= 2, session.events.empty() ? "no events" : session.lastEvent().dump().c_str());
        QCOMPARE(calls[0].value("tool", ""), std::string(claude ? "Bash" : "command_execution"));
        QVERIFY(calls[0]["data"]["arguments"].dump().find("echo hello from") != std::string::npos);
        const auto results = ofType(session, "tool_result");
        QVERIFY(!results.empty());
        QVERIFY(results[0]["data"]["output"].get<std::string>().starts_with("hello from "));
        QCOMPARE(results[0]["data"]["exit_code"].get<int>(), 0);
        QFile notes(session.dir("workspace") + "/notes.txt");
        QVERIFY(notes.open(QIODevice::ReadOnly));
        QCOMPARE(notes.readAll(), QByteArray("written by the model\n"));
        QCOMPARE(session.lastEvent().value("type", ""), std::string("task_finished"));
        QCOMPARE(session.lastEvent()["data"]["reason"].get<std::string>(), std::string("finished"));
        QCOMPARE(session.lastEvent()["data"]["summary"].get<std::string>(),
                 std::string("Done: said hello and wrote notes.txt."));
        QVERIFY(!ofType(session, "step_started").empty());
        // What the CLI's process tree used, at each step's end and the task's: the window's resource graphs
        // (a CLI's runtime holds tens of megabytes at least; its CPU time only grows). A run's last sample
        // may come after the CLI exited (its final line read from the pipe after it) and then measures the
        // supervisor alone; the others measured the CLI.
        const auto samples = ofType(session, "resource_sample");
        QVERIFY(samples.size() >= 2);
        std::uint64_t cpuMs = 0;
        std::uint64_t largestRss = 0;
        for (const auto& sample : samples) {
            QVERIFY2(sample["data"].value("rss_bytes", 0ull) > 0, sample.dump().c_str());
            largestRss = std::max<std::uint64_t>(largestRss, sample["data"].value("rss_bytes", 0ull));
            QVERIFY(sample["data"].value("cpu_ms", 0ull) >= cpuMs);
            cpuMs = sample["data"].value("cpu_ms", 0ull);
        }
        QVERIFY2(largestRss > (16ull << 20), std::to_string(largestRss).c_str());

        // The double saw the token as the key, on every model call, and nothing else.
        const auto firstRun = model.modelCalls();
        QCOMPARE(firstRun.size(), std::size_t(3));
        for (const auto& request : model.requests()) {
            if (request.method != "POST")
                continue;
            if (claude)
                QCOMPARE(request.headers.at("x-api-key"), std::string(kToken));
            else
                QCOMPARE(request.headers.at("authorization"), "Bearer " + std::string(kToken));
        }
        // The CLI's home is the task's state, where its session is.
        QVERIFY(QFileInfo(session.dir("state") + (claude ? "/cli-home/.claude" : "/cli-home/.codex/sessions")).isDir());
        QVERIFY(QFileInfo(session.dir("state") + "/cli-session.json").isFile());
        QVERIFY(!QFileInfo(session.dir("workspace") + (claude ? "/.claude" : "/.codex")).exists());

        // The user's reply continues the session: the model reads the earlier conversation and the reply.
        const std::size_t before = session.events.size();
        QVERIFY(session.start());
        startCliTask(session, cli, std::string("-now the follow-up"));
        QCOMPARE(session.finish(), 0);
        std::vector<std::string> types;
        for (std::size_t i = before; i < session.events.size(); ++i)
            types.push_back(session.events[i].value("type", ""));
        QCOMPARE(types.front(), std::string("task_resumed"));
        QCOMPARE(types[1], std::string("user_message"));
        QCOMPARE(session.lastEvent()["data"]["summary"].get<std::string>(), std::string("Follow-up done."));
        const auto calls2 = model.modelCalls();
        QCOMPARE(calls2.size(), std::size_t(4));
        const std::string last = calls2.back().body;
        QVERIFY2(last.find("-now the follow-up") != std::string::npos, "the reply did not reach the model");
        QVERIFY2(last.find("echo hello from") != std::string::npos, "the earlier conversation is not in the request");
        for (std::size_t i = 1; i < session.events.size(); ++i) // seqs go on across the two runs
            QVERIFY(session.events[i]["seq"].get<std::uint64_t>() > session.events[i - 1]["seq"].get<std::uint64_t>());
        for (const auto& event : session.events) // the token is the CLI's key, never in an event
            QVERIFY(event.dump().find(kToken) == std::string::npos);
    }

    // kill -9 of warren-agent while the CLI runs a command: the next start continues the CLI's session.
    void killedAgentResumes_data() { runAndReply_data(); }
    void killedAgentResumes() {
        QFETCH(QString, variable);
        QFETCH(QString, kind);
        const QString program = cliFrom(variable.toUtf8().constData());
        if (program.isEmpty())
            QSKIP(qPrintable("set " + variable + " to the CLI's executable to run this test"));
        const bool claude = kind == "claude-code";
        ServeSession session;
        CliModelServer model;
        QVERIFY(model.listen());
        const std::vector<ScriptedTurn> turns{
            claude ? ScriptedTurn::call("Bash", {{"command", "echo started; sleep 600"}})
                   : ScriptedTurn::call("exec_command", {{"cmd", "echo started; sleep 600"}}),
            ScriptedTurn::say("Resumed and done.")};
        claude ? model.scriptAnthropic(turns) : model.scriptResponses(turns);
        UnixTcpRelay proxy;
        const std::string socket = session.dir("model.sock").toStdString();
        QVERIFY(proxy.start(socket, model.port()));
        const json cli = cliParams(kind.toStdString(), program, socket, claude ? "claude-test" : "gpt-test");
        QVERIFY(session.start());
        startCliTask(session, cli);
        QVERIFY(session.waitForEvent("tool_call"));
        session.kill9();

        const std::size_t before = session.events.size();
        QVERIFY(session.start());
        startCliTask(session, cli);
        const int status = session.finish();
        std::string resumed;
        for (std::size_t i = before; i < session.events.size(); ++i)
            resumed += session.events[i].dump().substr(0, 300) + "\n";
        QVERIFY2(status == 0, resumed.c_str());
        QCOMPARE(session.events[before].value("type", ""), std::string("task_resumed"));
        QCOMPARE(session.lastEvent()["data"]["summary"].get<std::string>(), std::string("Resumed and done."));
        const auto calls = model.modelCalls();
        QCOMPARE(calls.size(), std::size_t(2));
        QVERIFY2(calls.back().body.find("Say hello, then write notes.txt") != std::string::npos,
                 "the resumed session does not hold the earlier conversation");
        // Killed in its first turn, Claude Code may not have saved the session it named: then a new one
        // starts from the task's prompt, and says so. Otherwise the session is told to continue.
        if (!session.hasEvent("log", "a new session starts from the task's prompt"))
            QVERIFY(calls.back().body.find("Continue the task") != std::string::npos);
    }

    // A cancel from the control plane ends the CLI at once and the task as cancelled.
    void cancelKillsTheCli() {
        const QString program = cliFrom("WARREN_TEST_CLAUDE");
        if (program.isEmpty())
            QSKIP("set WARREN_TEST_CLAUDE to the CLI's executable to run this test");
        ServeSession session;
        CliModelServer model;
        QVERIFY(model.listen());
        model.scriptAnthropic({ScriptedTurn::call("Bash", {{"command", "echo started; sleep 600"}})});
        UnixTcpRelay proxy;
        const std::string socket = session.dir("model.sock").toStdString();
        QVERIFY(proxy.start(socket, model.port()));
        QVERIFY(session.start());
        startCliTask(session, cliParams("claude-code", program, socket, "claude-test"));
        QVERIFY(session.waitForEvent("tool_call"));
        session.send({{"jsonrpc", "2.0"}, {"method", "control.cancel"}, {"params", json::object()}});
        QCOMPARE(session.finish(), 1);
        QCOMPARE(session.lastEvent()["data"]["reason"].get<std::string>(), std::string("cancelled"));
    }
};

QTEST_GUILESS_MAIN(TestCliAgent)
#include "tst_cli_agent.moc"
