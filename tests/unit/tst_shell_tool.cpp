// ShellTool: the shell tool of DESIGN §4. Strict arguments, a workdir that cannot leave the workspace,
// timeout_sec and the step's deadline honoured, output capped with the cut marked, the exit code reported,
// live output streamed, and a stop request obeyed.

#include "agent_core/process/OutputCap.h"
#include "agent_core/tools/Cancellation.h"
#include "agent_core/tools/ShellTool.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/prctl.h>

using namespace warren::agent;
using namespace std::chrono_literals;
using nlohmann::json;

class TestShellTool : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::filesystem::path m_workspace;
    Cancellation m_cancellation;

    ToolEnv env() {
        ToolEnv env;
        env.workspace = m_workspace;
        env.cancellation = &m_cancellation;
        env.deadline = std::chrono::steady_clock::now() + 60s; // a hang fails instead of blocking
        return env;
    }

    ToolOutcome run(const json& arguments, const ToolEnv& toolEnv) {
        return ShellTool().run(arguments, toolEnv);
    }
    ToolOutcome run(const json& arguments) { return run(arguments, env()); }

private slots:
    void initTestCase() {
        QCOMPARE(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        QVERIFY(m_dir.isValid());
        m_workspace = QDir(m_dir.path()).canonicalPath().toStdString();
        QVERIFY(QDir(m_dir.path()).mkpath("sub/deeper"));
        QFile file(m_dir.filePath("file.txt"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(QFile::link(QDir(m_dir.path()).canonicalPath() + "/..", m_dir.filePath("up")));
    }

    void specDescribesTheArguments() {
        const auto spec = ShellTool::spec();
        QCOMPARE(spec.name, std::string("shell"));
        QVERIFY(!spec.description.empty());
        QCOMPARE(spec.parameters.at("required"), json::array({"command"}));
        QCOMPARE(spec.parameters.at("properties").at("command").at("type"), json("string"));
        QCOMPARE(spec.parameters.at("properties").at("timeout_sec").at("type"), json("integer"));
        QCOMPARE(spec.parameters.at("properties").at("workdir").at("type"), json("string"));
        QCOMPARE(spec.parameters.at("properties").size(), std::size_t(3));
        QCOMPARE(spec.parameters.at("additionalProperties"), json(false));
    }

    void refusesBadArguments_data() {
        QTest::addColumn<QByteArray>("arguments");
        QTest::addColumn<QString>("message");

        QTest::newRow("not an object")
            << QByteArray(R"("touch ran")") << "shell: arguments must be an object";
        QTest::newRow("no command") << QByteArray("{}") << R"(shell: "command" must be a non-empty string)";
        QTest::newRow("empty command")
            << QByteArray(R"({"command":""})") << R"(shell: "command" must be a non-empty string)";
        QTest::newRow("command not a string") << QByteArray(R"({"command":["touch","ran"]})")
                                              << R"(shell: "command" must be a non-empty string)";
        QTest::newRow("unknown argument")
            << QByteArray(R"({"command":"touch ran","cwd":"sub"})")
            << R"(shell: unknown argument "cwd"; allowed: command, timeout_sec, workdir)";
        QTest::newRow("timeout zero")
            << QByteArray(R"({"command":"touch ran","timeout_sec":0})")
            << R"(shell: "timeout_sec" must be a whole number of seconds, at least 1)";
        QTest::newRow("timeout negative") << QByteArray(R"({"command":"touch ran","timeout_sec":-5})")
                                          << R"("timeout_sec" must be a whole number)";
        QTest::newRow("timeout fractional") << QByteArray(R"({"command":"touch ran","timeout_sec":1.5})")
                                            << R"("timeout_sec" must be a whole number)";
        QTest::newRow("timeout as text") << QByteArray(R"({"command":"touch ran","timeout_sec":"10"})")
                                         << R"("timeout_sec" must be a whole number)";
        QTest::newRow("workdir not a string")
            << QByteArray(R"({"command":"touch ran","workdir":1})") << R"(shell: "workdir" must be a string)";
    }

    void refusesBadArguments() {
        QFETCH(QByteArray, arguments);
        QFETCH(QString, message);

        const auto outcome = run(json::parse(arguments.toStdString()));
        QVERIFY(!outcome.ok);
        QCOMPARE(outcome.exitCode, 1);
        QVERIFY2(QString::fromStdString(outcome.output).startsWith(message) ||
                     QString::fromStdString(outcome.output).contains(message),
                 outcome.output.c_str());
        QVERIFY(!QFile::exists(m_dir.filePath("ran"))); // nothing ran
    }

    void refusesWorkdirOutsideTheWorkspace_data() {
        QTest::addColumn<QString>("workdir");
        QTest::addColumn<QString>("message");

        // The refusals are WorkspacePath's, the same as for every path a tool is given.
        const QString root = QString::fromStdString(m_workspace.string());
        const QString outside = " is outside the workspace " + root;
        QTest::newRow("parent") << ".."
                                << "shell: workdir: path \"..\"" + outside;
        QTest::newRow("escape through a subdirectory") << "sub/../../x"
                                                       << "shell: workdir: path \"sub/../../x\"" + outside;
        QTest::newRow("absolute elsewhere") << "/etc"
                                            << "shell: workdir: path \"/etc\"" + outside;
        QTest::newRow("root") << "/"
                              << "shell: workdir: path \"/\"" + outside;
        QTest::newRow("sibling sharing the prefix")
            << root + "-other" << "shell: workdir: path \"" + root + "-other\"" + outside;
        QTest::newRow("symlink out") << "up"
                                     << "shell: workdir: path \"up\"" + outside + " (through the symlink \"up\" -> \"" +
                                            root + "/..\")";
        QTest::newRow("missing directory") << "nope"
                                           << R"(shell: workdir "nope" is not a directory in the workspace)";
        QTest::newRow("a file") << "file.txt"
                                << R"(shell: workdir "file.txt" is not a directory in the workspace)";
    }

    void refusesWorkdirOutsideTheWorkspace() {
        QFETCH(QString, workdir);
        QFETCH(QString, message);

        const auto outcome = run({{"command", "touch ran"}, {"workdir", workdir.toStdString()}});
        QVERIFY(!outcome.ok);
        QCOMPARE(QString::fromStdString(outcome.output), message);
    }

    void runsInTheWorkdir_data() {
        QTest::addColumn<QString>("workdir");
        QTest::addColumn<QString>("expected");

        const QString root = QString::fromStdString(m_workspace.string());
        QTest::newRow("default is the workspace") << QString() << root;
        QTest::newRow("dot") << "." << root;
        QTest::newRow("relative") << "sub/deeper" << root + "/sub/deeper";
        QTest::newRow("absolute under the workspace") << root + "/sub" << root + "/sub";
        QTest::newRow("the sandbox's view of the workspace") << "/workspace/sub" << root + "/sub";
        QTest::newRow("dot-dot that stays inside") << "sub/deeper/.." << root + "/sub";
        QTest::newRow("trailing slash") << "sub/" << root + "/sub";
    }

    void runsInTheWorkdir() {
        QFETCH(QString, workdir);
        QFETCH(QString, expected);

        json arguments = {{"command", "pwd -P"}};
        if (!workdir.isNull())
            arguments["workdir"] = workdir.toStdString();
        const auto outcome = run(arguments);
        QVERIFY2(outcome.ok, outcome.output.c_str());
        QCOMPARE(QString::fromStdString(outcome.output), expected + "\n");
    }

    void reportsTheExitCode_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("output");

        QTest::newRow("silent success") << "true" << true << 0 << "";
        QTest::newRow("success with output") << "echo hi" << true << 0 << "hi\n";
        QTest::newRow("failure after a line")
            << "echo oops >&2; exit 3" << false << 3 << "oops\n[exit code 3]";
        QTest::newRow("failure mid-line") << "printf x; exit 2" << false << 2 << "x\n[exit code 2]";
        QTest::newRow("silent failure") << "exit 1" << false << 1 << "[exit code 1]";
        QTest::newRow("killed by a signal")
            << "kill -KILL $$" << false << 137 << "[exit code 137: killed by SIGKILL]";
        QTest::newRow("command not found") << "warren-no-such-command" << false << 127 << "";
    }

    void reportsTheExitCode() {
        QFETCH(QString, command);
        QFETCH(bool, ok);
        QFETCH(int, exitCode);
        QFETCH(QString, output);

        const auto outcome = run({{"command", command.toStdString()}});
        QCOMPARE(outcome.ok, ok);
        QCOMPARE(outcome.exitCode, exitCode);
        QVERIFY(!outcome.timedOut && !outcome.cancelled && !outcome.truncated);
        if (exitCode == 127) // the shell's own wording of "not found" varies
            QVERIFY(QString::fromStdString(outcome.output).endsWith("[exit code 127]"));
        else
            QCOMPARE(QString::fromStdString(outcome.output), output);
    }

    void timeoutSecIsHonoured() {
        auto toolEnv = env();
        toolEnv.shellTimeoutSec = 120;
        const auto outcome = run({{"command", "echo started; sleep 1000"}, {"timeout_sec", 1}}, toolEnv);
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.timedOut);
        QCOMPARE(outcome.exitCode, 124);
        QCOMPARE(QString::fromStdString(outcome.output), QString("started\n[timed out after 1 s]"));
    }

    void stepDeadlineIsHonoured() {
        auto toolEnv = env();
        toolEnv.deadline = std::chrono::steady_clock::now() + 1s;
        const auto outcome = run({{"command", "sleep 1000"}, {"timeout_sec", 100}}, toolEnv);
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.timedOut);
        QCOMPARE(QString::fromStdString(outcome.output),
                 QString("[timed out after 1 s: the step's time limit]"));
    }

    void passedDeadlineRunsNothing() {
        auto toolEnv = env();
        toolEnv.deadline = std::chrono::steady_clock::now() - 1s;
        const auto outcome = run({{"command", "touch ran"}}, toolEnv);
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.timedOut);
        QVERIFY(!QFile::exists(m_dir.filePath("ran")));
    }

    void capsOutputAndStreamsItWhole() {
        auto toolEnv = env();
        toolEnv.outputLimitBytes = 1000;
        std::string streamed;
        toolEnv.onOutput = [&](std::string_view stream, std::string_view text) {
            QCOMPARE(stream, std::string_view("stdout"));
            streamed.append(text);
        };
        const auto outcome = run({{"command", "seq 1 100000"}}, toolEnv);
        std::string expected;
        for (int i = 1; i <= 100000; ++i)
            expected += std::to_string(i) + "\n";

        QVERIFY(outcome.ok);
        QVERIFY(outcome.truncated);
        QCOMPARE(streamed, expected);
        QVERIFY(outcome.output.size() <= 1000 + OutputCap::kMaxMarkerBytes);
        QCOMPARE(outcome.output.substr(0, 500), expected.substr(0, 500));
        QCOMPARE(outcome.output.substr(outcome.output.size() - 500), expected.substr(expected.size() - 500));
        const std::string marker = "\n[... " + std::to_string(expected.size() - 1000) + " bytes cut ...]\n";
        QCOMPARE(outcome.output.substr(500, marker.size()), marker);
    }

    void stopRequestEndsIt() {
        Cancellation cancellation;
        auto toolEnv = env();
        toolEnv.cancellation = &cancellation;
        toolEnv.onOutput = [&](std::string_view, std::string_view) {
            cancellation.request(StopRequest::Cancel);
        };
        const auto outcome = run({{"command", "echo started; sleep 1000"}}, toolEnv);
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.cancelled);
        QVERIFY(!outcome.timedOut);
        QCOMPARE(QString::fromStdString(outcome.output),
                 QString("started\n[stopped: the agent was asked to stop]"));
    }
};

QTEST_GUILESS_MAIN(TestShellTool)
#include "tst_shell_tool.moc"
