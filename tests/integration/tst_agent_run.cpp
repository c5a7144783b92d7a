// warren-agent run: the standalone agent drives a real multi-step edit of a workspace with a scripted model
// (the demo), and its events and resource report say exactly what it did. Also: it is one static binary,
// nothing a tool starts outlives the tool, and bad input is a clear error, never a crash.

#include "agent_core/protocol/EventTypes.h"
#include "tests/support/AgentRun.h"
#include "tests/support/SandboxRun.h"

#include <QtTest>
#include <csignal>
#include <elf.h>

using namespace warren;
using namespace warren::test;
namespace et = warren::protocol::event_type;
using nlohmann::json;

namespace {

// A workspace, a state and an output directory, and the script, for one run.
struct AgentDirs {
    QTemporaryDir root;
    QString workspace() const { return root.path() + "/workspace"; }
    QString state() const { return root.path() + "/state"; }
    QString output() const { return root.path() + "/output"; }
    QString script() const { return root.path() + "/script.json"; }
    AgentDirs() {
        for (const auto& dir : {workspace(), state(), output()})
            QDir().mkpath(dir);
    }
    QStringList runArguments(const QString& scriptPath, const QStringList& extra = {}) const {
        return QStringList{"run", "--script", scriptPath, "--workspace", workspace(), "--state", state(),
                           "--output", output()} +
               extra;
    }
    RunOutcome run(const std::vector<json>& turns, const QStringList& extra = {},
                   const QString& prompt = "Do it") const {
        writeScript(script(), turns);
        return runProgram(agentBinary(), runArguments(script(), extra) << prompt);
    }
    json report() const {
        QFile file(output() + "/resource_report.json");
        if (!file.open(QIODevice::ReadOnly))
            return {};
        return json::parse(file.readAll().toStdString(), nullptr, false);
    }
};

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool hasInterpreter(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return true;
    const QByteArray bytes = file.readAll();
    if (bytes.size() < static_cast<qsizetype>(sizeof(Elf64_Ehdr)))
        return true;
    Elf64_Ehdr header;
    memcpy(&header, bytes.constData(), sizeof header);
    for (int i = 0; i < header.e_phnum; ++i) {
        Elf64_Phdr program;
        const auto offset = static_cast<qsizetype>(header.e_phoff + static_cast<Elf64_Off>(i) * header.e_phentsize);
        if (offset + static_cast<qsizetype>(sizeof program) > bytes.size())
            return true;
        memcpy(&program, bytes.constData() + offset, sizeof program);
        if (program.p_type == PT_INTERP || program.p_type == PT_DYNAMIC)
            return true;
    }
    return false;
}

} // namespace

class TestAgentRun : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY2(QFileInfo(agentBinary()).isExecutable(), "WARREN_AGENT must name the built warren-agent");
        QVERIFY2(QFileInfo(resourcesDir() + "/demo/script.json").exists(), "WARREN_RESOURCES must name resources/");
    }

    void theDemoFixesTheWorkspace() {
        AgentDirs dirs;
        QVERIFY(copyTree(resourcesDir() + "/demo/workspace", dirs.workspace()));
        const auto run = runProgram(agentBinary(), dirs.runArguments(resourcesDir() + "/demo/script.json")
                                                       << "Make the test pass");
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const auto events = parseEvents(run.out);
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error));

        QCOMPARE(events.events.front().type, std::string(et::kTaskStarted));
        QCOMPARE(events.events.front().seq, 1u);
        QCOMPARE(events.events.back().type, std::string(et::kTaskFinished));
        QCOMPARE(events.finished()["reason"], "finished");
        QCOMPARE(events.ofType(et::kStepStarted).size(), 6u);
        QCOMPARE(events.toolCalls(),
                 (QStringList{"list_files", "shell", "read_file", "edit_file", "shell", "finish"}));

        // The first test run fails, the edit fixes greet.sh, the second passes; output streamed live.
        QCOMPARE(events.resultOf("call_1_0")->data["exit_code"], 1);
        QVERIFY(events.outputOf("call_1_0").find("FAIL") != std::string::npos);
        QCOMPARE(events.resultOf("call_4_0")->data["exit_code"], 0);
        QVERIFY(events.outputOf("call_4_0").find("PASS: Hello, Warren!") != std::string::npos);
        const auto changes = events.ofType(et::kFileChanged);
        QCOMPARE(changes.size(), 1u);
        QCOMPARE(changes[0].data["path"], "greet.sh");
        QCOMPARE(changes[0].data["change"], "modified");
        // The event carries the edit's diff, for the UI's diff view.
        QCOMPARE(changes[0].data["added"], 1);
        QCOMPARE(changes[0].data["removed"], 1);
        const std::string diff = changes[0].data["diff"].get<std::string>();
        QVERIFY2(diff.starts_with("--- a/greet.sh\n+++ b/greet.sh\n@@ -1,4 +1,4 @@\n") &&
                     diff.ends_with("-echo \"Helo, $name!\"\n+echo \"Hello, $name!\"\n"),
                 diff.c_str());
        QVERIFY(!changes[0].data.contains("diff_truncated") && !changes[0].data.contains("binary"));
        QVERIFY(readAll(dirs.workspace() + "/greet.sh").contains("echo \"Hello, $name!\""));
        for (const auto& response : events.ofType(et::kModelResponse))
            QVERIFY(response.tokenUsage && response.tokenUsage->input > 0);
        QVERIFY(events.ofType(et::kCheckpoint).size() >= 6);

        const json report = dirs.report();
        QVERIFY2(report.is_object(), "resource_report.json must exist and be JSON");
        QCOMPARE(report["exit_reason"], "finished");
        QCOMPARE(report["steps"], 6);
        QCOMPARE(report["model_calls"], 6);
        QCOMPARE(report["tool_calls"],
                 (json{{"edit_file", 1}, {"finish", 1}, {"list_files", 1}, {"read_file", 1}, {"shell", 2}}));
        QCOMPARE(report["bytes_written"].get<qint64>(), QFileInfo(dirs.workspace() + "/greet.sh").size());
        QVERIFY(report["tokens_in"].get<std::uint64_t>() > 0);
        QVERIFY(report["tokens_out"].get<std::uint64_t>() > 0);
        QVERIFY(report["peak_rss_bytes"].get<std::uint64_t>() > 0);
        QVERIFY(report["checkpoints"].get<std::uint64_t>() >= 6);
        for (const char* key : {"wall_ms", "cpu_ms", "cache_hits", "resumes", "interrupted_calls"})
            QVERIFY2(report.contains(key), key);
    }

    // Where it belongs: the same binary, in warren-sandbox with the default profile, does the same work.
    void theDemoRunsInsideTheSandbox() {
        const QString unusable = sandboxUnusable();
        QVERIFY2(unusable.isEmpty(), qPrintable(unusable));
        AgentDirs dirs;
        QVERIFY(copyTree(resourcesDir() + "/demo/workspace", dirs.workspace()));
        const QString script = resourcesDir() + "/demo/script.json";
        QStringList sandbox = {"--workspace", dirs.workspace(), "--ro", agentBinary(), "--ro", script};
        // Sanitizer builds: LeakSanitizer stops the world with ptrace, which the sandbox's seccomp filter
        // refuses; AddressSanitizer reserves terabytes of address space for its shadow, which the
        // address-space rlimit standing in for the memory limit (unprivileged, no cgroup) forbids.
        if (qEnvironmentVariable("WARREN_AGENT_STATIC") == "0")
            sandbox << "--env" << "ASAN_OPTIONS=detect_leaks=0" << "--memory-mb" << "0";
        const auto run = runSandbox(sandbox + QStringList{"--", agentBinary(), "run", "--script", script,
                                                          "--workspace", "/workspace", "--set",
                                                          "memory_backend=in-memory", "Make the test pass"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const auto events = parseEvents(run.out);
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
        QCOMPARE(events.finished()["reason"], "finished");
        QVERIFY(events.outputOf("call_4_0").find("PASS: Hello, Warren!") != std::string::npos);
        QVERIFY(readAll(dirs.workspace() + "/greet.sh").contains("echo \"Hello, $name!\""));
    }

    void isOneStaticBinary() {
        if (qEnvironmentVariable("WARREN_AGENT_STATIC") == "0")
            QSKIP("this is a sanitizer build: AddressSanitizer has no static runtime, so warren-agent is dynamic");
        QVERIFY2(!hasInterpreter(agentBinary()), "warren-agent must not be dynamic");
    }

    // Whatever a tool starts is gone when the tool returns: background jobs, setsid escapees, daemons.
    void nothingATookStartedSurvivesIt() {
        AgentDirs dirs;
        const auto check = std::string("for f in bg.pid sid.pid daemon.pid; do "
                                       "if kill -0 $(cat $f) 2>/dev/null; then echo \"$f alive\"; "
                                       "else echo \"$f dead\"; fi; done");
        const auto run = dirs.run({turn("shell", {{"command", "sleep 1000 & echo $! > bg.pid; echo started"}}),
                                   turn("shell", {{"command", "setsid sleep 1000 & echo $! > sid.pid"}}),
                                   turn("shell", {{"command", "(setsid sh -c 'sleep 1000 & echo $! > daemon.pid' &); "
                                                             "until [ -s daemon.pid ]; do :; done"}}),
                                   turn("shell", {{"command", check}}),
                                   turn("finish", {{"summary", "done"}})});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const auto events = parseEvents(run.out);
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
        QCOMPARE(QString::fromStdString(events.outputOf("call_3_0")),
                 QString("bg.pid dead\nsid.pid dead\ndaemon.pid dead\n"));
        for (const char* file : {"bg.pid", "sid.pid", "daemon.pid"}) {
            const pid_t pid = readAll(dirs.workspace() + "/" + file).trimmed().toInt();
            QVERIFY(pid > 0);
            QVERIFY2(kill(pid, 0) != 0, file);
        }
    }

    void hugeOutputIsCappedForTheModelAndStreamedWhole() {
        AgentDirs dirs;
        const auto run = dirs.run({turn("shell", {{"command", "head -c 3000000 /dev/zero | tr '\\0' a"}}),
                                   turn("finish", {{"summary", "done"}})},
                                  {"--set", "tool_output_limit_bytes=4096"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const auto events = parseEvents(run.out);
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
        const auto result = events.resultOf("call_0_0");
        QVERIFY(result);
        QCOMPARE(result->data["truncated"], true);
        const auto output = result->data["output"].get<std::string>();
        QVERIFY2(output.size() < 4096 + 200, qPrintable(QString::number(output.size())));
        QVERIFY(output.find("cut") != std::string::npos);
        QCOMPARE(events.outputOf("call_0_0").size(), 3000000u);
    }

    void pathsOutsideTheWorkspaceAreRefused_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("arguments");
        QTest::newRow("read ..") << "read_file" << R"({"path":"../../../../etc/passwd"})";
        QTest::newRow("read absolute") << "read_file" << R"({"path":"/etc/passwd"})";
        QTest::newRow("write ..") << "write_file" << R"({"path":"../escaped.txt","content":"x"})";
        QTest::newRow("edit absolute") << "edit_file" << R"({"path":"/etc/hostname","old_string":"a","new_string":"b"})";
        QTest::newRow("list /") << "list_files" << R"({"path":"/"})";
        QTest::newRow("search /etc") << "search" << R"({"pattern":"root","path":"/etc"})";
        QTest::newRow("shell workdir") << "shell" << R"({"command":"pwd","workdir":"/etc"})";
    }
    void pathsOutsideTheWorkspaceAreRefused() {
        QFETCH(QString, tool);
        QFETCH(QString, arguments);
        AgentDirs dirs;
        const auto run = dirs.run({turn(tool.toStdString(), json::parse(arguments.toStdString())),
                                   turn("finish", {{"summary", "done"}})});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const auto events = parseEvents(run.out);
        const auto result = events.resultOf("call_0_0");
        QVERIFY(result);
        QCOMPARE(result->data["exit_code"], 1);
        QVERIFY2(result->data["output"].get<std::string>().find("outside the workspace") != std::string::npos,
                 result->data["output"].dump().c_str());
        QVERIFY(!QFileInfo::exists(dirs.root.path() + "/escaped.txt"));
    }

    void aScriptThatRunsOutFailsTheTask() {
        AgentDirs dirs;
        const auto run = dirs.run({turn("shell", {{"command", "true"}})});
        QCOMPARE(run.exitCode, 1);
        const auto events = parseEvents(run.out);
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
        QCOMPARE(events.finished()["reason"], "failed");
        QVERIFY(events.finished()["summary"].get<std::string>().find("finish") != std::string::npos);
        QCOMPARE(dirs.report()["exit_reason"], "failed");
    }

    void usageErrorsNameTheProblem_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no mode") << QStringList{} << "a mode is required";
        QTest::newRow("unknown mode") << QStringList{"fly"} << "unknown mode";
        QTest::newRow("no script") << QStringList{"run", "--workspace", "/tmp", "hi"} << "--script";
        QTest::newRow("missing script") << QStringList{"run", "--script", "/nonexistent.json", "--workspace", "/tmp", "hi"}
                                        << "/nonexistent.json";
        QTest::newRow("no prompt") << QStringList{"run", "--script", "S", "--workspace", "/tmp"} << "PROMPT";
        QTest::newRow("bad workspace") << QStringList{"run", "--script", "S", "--workspace", "/nonexistent", "hi"}
                                       << "--workspace /nonexistent";
        QTest::newRow("unknown preset") << QStringList{"run", "--script", "S", "--workspace", "/tmp", "--preset", "turbo", "hi"}
                                        << "turbo";
        QTest::newRow("unknown key") << QStringList{"run", "--script", "S", "--workspace", "/tmp", "--set", "max_stepz=3", "hi"}
                                     << "max_stepz";
        QTest::newRow("bad value") << QStringList{"run", "--script", "S", "--workspace", "/tmp", "--set", "max_steps=-1", "hi"}
                                   << "max_steps";
        QTest::newRow("unknown option") << QStringList{"run", "--frobnicate"} << "--frobnicate";
        QTest::newRow("bad script") << QStringList{"run", "--script", "BAD", "--workspace", "/tmp", "hi"} << "turns[0]";
    }
    void usageErrorsNameTheProblem() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        QTemporaryDir dir;
        writeScript(dir.path() + "/good.json", {turn("finish", {{"summary", "ok"}})});
        QFile bad(dir.path() + "/bad.json");
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"turns":[{"tool_calls":[{"name":""}]}]})");
        bad.close();
        arguments.replaceInStrings(QRegularExpression("^S$"), dir.path() + "/good.json");
        arguments.replaceInStrings(QRegularExpression("^BAD$"), dir.path() + "/bad.json");
        const auto run = runProgram(agentBinary(), arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(message.toUtf8()), qPrintable(run.describe()));
        QVERIFY(run.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestAgentRun)
#include "tst_agent_run.moc"
