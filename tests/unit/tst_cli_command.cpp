// How warren-agent starts a CLI (buildCliCommand, pure) and keeps its session (CliSession): the environment
// is built from nothing, HOME is the task's, the key variable holds the token and nothing else, a resume or a
// reply continues the session, and what the control plane or the CLI hands in cannot become something else
// (a prompt an option, a model name a config key, a session id a path).

#include "agent_core/clis/ClaudePermissions.h"
#include "agent_core/clis/CliCommand.h"
#include "agent_core/clis/CliSession.h"
#include "common/FileText.h"

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

using namespace warren;
using namespace warren::agent;
using namespace warren::protocol;

namespace {

CliAgentParams params(AgentKind kind) {
    return {kind, "/opt/cli/bin/cli", {"/opt/cli/path"}, "/run/warren/model.sock", "some-model"};
}

CliRun run() {
    return {"/workspace", "/state/cli-home", 40123, "payload.mac", std::nullopt, std::nullopt, "fix the test", "/bin/sh",
            {}};
}

std::optional<std::string> variable(const CliCommand& command, const std::string& name) {
    for (const auto& entry : command.environment)
        if (entry.starts_with(name + "="))
            return entry.substr(name.size() + 1);
    return std::nullopt;
}

bool hasArgs(const CliCommand& command, const std::vector<std::string>& args) {
    return std::search(command.argv.begin(), command.argv.end(), args.begin(), args.end()) != command.argv.end();
}

} // namespace

class TestCliCommand : public QObject {
    Q_OBJECT
private slots:
    void environment_data() {
        QTest::addColumn<int>("kind");
        QTest::newRow("claude-code") << int(AgentKind::ClaudeCode);
        QTest::newRow("codex") << int(AgentKind::Codex);
    }
    // Nothing of the agent's environment reaches the CLI: not a real key the sandbox was started with by
    // mistake, not the user's HOME. Only the token is a key.
    void environment() {
        QFETCH(int, kind);
        ::setenv("ANTHROPIC_API_KEY", "sk-ant-real", 1);
        ::setenv("OPENAI_API_KEY", "sk-real", 1);
        ::setenv("WARREN_CANARY", "leak", 1);
        const auto command = buildCliCommand(params(AgentKind(kind)), run());
        for (const auto& entry : command.environment) {
            QVERIFY2(entry.find("sk-") == std::string::npos, entry.c_str());
            QVERIFY2(entry.find("leak") == std::string::npos, entry.c_str());
            const auto value = entry.substr(entry.find('=') + 1);
            if (value.find("payload.mac") != std::string::npos)
                QCOMPARE(value, std::string("payload.mac")); // the token only ever whole, as a key
        }
        QCOMPARE(variable(command, "HOME"), std::optional<std::string>("/state/cli-home"));
        QCOMPARE(variable(command, "PATH")->substr(0, 14), std::string("/opt/cli/path:"));
        QVERIFY(!variable(command, "HTTP_PROXY")); // no egress forwarder: no proxy
        QCOMPARE(variable(command, "SHELL"), std::optional<std::string>("/bin/sh")); // the sandbox's, as chosen
        std::vector<std::string> names;
        for (const auto& entry : command.environment)
            names.push_back(entry.substr(0, entry.find('=')));
        std::sort(names.begin(), names.end());
        QVERIFY(std::adjacent_find(names.begin(), names.end()) == names.end()); // each variable once
        QCOMPARE(command.argv.front(), std::string("/opt/cli/bin/cli"));
        // The prompt: Claude Code's first line on stdin, Codex's last argument after "--".
        if (AgentKind(kind) == AgentKind::ClaudeCode) {
            QCOMPARE(nlohmann::json::parse(command.input)["message"]["content"], "fix the test");
            QVERIFY(std::find(command.argv.begin(), command.argv.end(), "fix the test") == command.argv.end());
        } else {
            QVERIFY(command.input.empty()); // stdin /dev/null: codex waits for an open one to end
            QCOMPARE(command.argv.back(), std::string("fix the test"));
            QCOMPARE(command.argv[command.argv.size() - 2], std::string("--"));
        }
    }

    void claude() {
        const auto command = buildCliCommand(params(AgentKind::ClaudeCode), run());
        QCOMPARE(variable(command, "ANTHROPIC_API_KEY"), std::optional<std::string>("payload.mac"));
        QCOMPARE(variable(command, "ANTHROPIC_BASE_URL"), std::optional<std::string>("http://127.0.0.1:40123"));
        QCOMPARE(variable(command, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), std::optional<std::string>("1"));
        QCOMPARE(variable(command, "DISABLE_AUTOUPDATER"), std::optional<std::string>("1"));
        QVERIFY(hasArgs(command, {"-p", "--input-format", "stream-json", "--output-format", "stream-json",
                                  "--verbose", "--model=some-model"}));
        // Its rules let through what needs no approval; anything else is asked on stdio.
        QVERIFY(hasArgs(command, {"--permission-mode", "default", "--permission-prompt-tool", "stdio",
                                  "--allowedTools", claudeAllowedTools({})}));
        const nlohmann::json message{{"type", "user"}, {"message", {{"role", "user"}, {"content", "fix the test"}}}};
        QCOMPARE(nlohmann::json::parse(command.input), message);
        // As root (a sandbox's root in its namespace) Claude Code refuses to skip its permissions.
        QVERIFY(!hasArgs(command, {"--dangerously-skip-permissions"}));
        QVERIFY(command.files.empty());
    }

    void codex() {
        const auto command = buildCliCommand(params(AgentKind::Codex), run());
        QCOMPARE(variable(command, kCodexKeyVariable), std::optional<std::string>("payload.mac"));
        QCOMPARE(variable(command, "CODEX_HOME"), std::optional<std::string>("/state/cli-home/.codex"));
        QVERIFY(hasArgs(command, {"exec", "--json"}));
        QVERIFY(hasArgs(command, {"--sandbox", "danger-full-access"}));
        QVERIFY(hasArgs(command, {"-c", "analytics.enabled=false", "--disable", "plugins"}));
        QVERIFY(hasArgs(command, {"--cd", "/workspace"}));
        QCOMPARE(command.files.size(), std::size_t(1));
        QCOMPARE(command.files[0].path.string(), std::string("/state/cli-home/.codex/config.toml"));
        const auto& config = command.files[0].content;
        QVERIFY(config.find("base_url = \"http://127.0.0.1:40123/v1\"") != std::string::npos);
        QVERIFY(config.find("wire_api = \"responses\"") != std::string::npos);
        QVERIFY(config.find("env_key = \"WARREN_MODEL_TOKEN\"") != std::string::npos);
        QVERIFY(config.find("model = \"some-model\"") != std::string::npos);
        QVERIFY(config.find("payload.mac") == std::string::npos); // the key is in the environment, not a file
    }

    // A resume continues the CLI's own session; a reply is its prompt.
    void resume_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("claude-code") << int(AgentKind::ClaudeCode) << QStringList{"--resume=abc-123"};
        QTest::newRow("codex") << int(AgentKind::Codex) << QStringList{"resume", "abc-123", "--", "go on"};
    }
    void resume() {
        QFETCH(int, kind);
        QFETCH(QStringList, expected);
        auto resumed = run();
        resumed.session = "abc-123";
        resumed.prompt = "go on";
        const auto command = buildCliCommand(params(AgentKind(kind)), resumed);
        std::vector<std::string> tail;
        for (const auto& arg : expected)
            tail.push_back(arg.toStdString());
        QVERIFY(std::equal(tail.rbegin(), tail.rend(), command.argv.rbegin()));
        if (AgentKind(kind) == AgentKind::ClaudeCode)
            QCOMPARE(nlohmann::json::parse(command.input)["message"]["content"], "go on");
    }

    // A Codex task that asks for approvals runs its app-server: the same config and environment, its thread
    // opened on stdin in the workspace with Codex's own sandbox off and every call asked, or the session
    // resumed; the prompt is not on its command line (it follows once the thread is there).
    void codexAppServer() {
        auto cli = params(AgentKind::Codex);
        cli.approvalTools = {"shell"};
        QVERIFY(codexAsks(cli) && !codexAsks(params(AgentKind::Codex)));
        for (const auto& session : {std::optional<std::string>(), std::optional<std::string>("abc-123")}) {
            auto started = run();
            started.session = session;
            const auto command = buildCliCommand(cli, started);
            QCOMPARE(command.argv,
                     (std::vector<std::string>{"/opt/cli/bin/cli", "app-server", "-c",
                                               "analytics.enabled=false", "--disable", "plugins"}));
            QCOMPARE(variable(command, kCodexKeyVariable), std::optional<std::string>("payload.mac"));
            QCOMPARE(command.files.size(), std::size_t(1));
            std::vector<nlohmann::json> lines;
            std::stringstream input(command.input);
            for (std::string line; std::getline(input, line);)
                lines.push_back(nlohmann::json::parse(line));
            QCOMPARE(lines.size(), std::size_t(3));
            QCOMPARE(lines[0]["method"], "initialize");
            QCOMPARE(lines[1]["method"], "initialized");
            QCOMPARE(lines[2]["method"], session ? "thread/resume" : "thread/start");
            const auto& thread = lines[2]["params"];
            QCOMPARE(thread["cwd"], "/workspace");
            QCOMPARE(thread["approvalPolicy"], "untrusted");
            QCOMPARE(thread["sandbox"], "danger-full-access");
            QCOMPARE(thread.value("threadId", ""), session.value_or(""));
            QVERIFY(command.input.find("fix the test") == std::string::npos);
        }
    }

    // The approval_tools of the task decide which of Claude Code's tools run unasked.
    void claudeAllowedToolsFollowApprovalTools() {
        auto cli = params(AgentKind::ClaudeCode);
        cli.approvalTools = {"shell", "write_file", "edit_file", "apply_patch"}; // safe-mode's
        const auto command = buildCliCommand(cli, run());
        const auto allowed = std::find(command.argv.begin(), command.argv.end(), "--allowedTools");
        QVERIFY(allowed != command.argv.end() && allowed + 1 != command.argv.end());
        QCOMPARE(allowed[1], std::string("Read NotebookRead Glob LS Grep TodoWrite"));
    }

    // With an egress allow-list the CLI's commands reach it through the forwarder; the model never does.
    void egressProxy() {
        auto withEgress = run();
        withEgress.egressPort = 3128;
        const auto command = buildCliCommand(params(AgentKind::ClaudeCode), withEgress);
        QCOMPARE(variable(command, "HTTPS_PROXY"), std::optional<std::string>("http://127.0.0.1:3128"));
        QCOMPARE(variable(command, "NO_PROXY"), std::optional<std::string>("127.0.0.1,localhost"));
    }

    // Attack: a model name that would end codex's TOML string and add a provider of its own.
    void modelNameCannotAddConfig() {
        auto cli = params(AgentKind::Codex);
        cli.model = "x\"\nbase_url = \"http://evil.example/v1\"\n\\";
        const auto config = buildCliCommand(cli, run()).files[0].content;
        QVERIFY(config.find("\nbase_url = \"http://evil") == std::string::npos);
        const std::string escaped = "model = \"x\\\"\\u000abase_url = \\\"http://evil.example/v1\\\"\\u000a\\\\\"";
        QVERIFY2(config.find(escaped) != std::string::npos, config.c_str());
        // Claude Code takes it as one argument, never as an option of its own.
        cli.kind = AgentKind::ClaudeCode;
        cli.model = "--dangerously-skip-permissions";
        const auto argv = buildCliCommand(cli, run()).argv;
        QVERIFY(std::find(argv.begin(), argv.end(), "--dangerously-skip-permissions") == argv.end());
    }

    void sessionIds_data() {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("valid");
        QTest::newRow("claude's uuid") << "3bc68a99-b534-4974-953b-3624ba3c854d" << true;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("an option") << "--help" << true; // harmless after --resume= and as resume's operand
        QTest::newRow("a path") << "../../etc/passwd" << false;
        QTest::newRow("a space") << "a b" << false;
        QTest::newRow("too long") << QString(129, 'a') << false;
    }
    void sessionIds() {
        QFETCH(QString, id);
        QFETCH(bool, valid);
        QCOMPARE(isValidSessionId(id.toStdString()), valid);
    }

    void sessionKeptInState() {
        QTemporaryDir state;
        const std::filesystem::path dir = state.path().toStdString();
        QVERIFY(!readCliSession(dir).value().has_value());
        const CliSession session{AgentKind::Codex, "01a24448-8064", 4};
        QVERIFY(writeCliSession(dir, session));
        QCOMPARE(readCliSession(dir).value(), std::optional<CliSession>(session));
    }

    // Attack: a session file written by something in the sandbox that would make the resume run elsewhere.
    void sessionFileRefused_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        QTest::newRow("not JSON") << QByteArray("{") << "";
        QTest::newRow("a path for an id") << QByteArray(R"({"kind":"codex","id":"../x","step":1})")
                                          << "the session id is not one a CLI gives";
        QTest::newRow("an unknown CLI") << QByteArray(R"({"kind":"aider","id":"a","step":1})") << "is not a CLI";
        QTest::newRow("an extra key") << QByteArray(R"({"kind":"codex","id":"a","step":1,"argv":["x"]})")
                                      << "unknown key";
    }
    void sessionFileRefused() {
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        QTemporaryDir state;
        QFile file(state.path() + "/" + kCliSessionFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();
        const auto read = readCliSession(state.path().toStdString());
        QVERIFY(!read);
        QVERIFY2(QString::fromStdString(read.error().message).contains(message), read.error().message.c_str());
    }

    // A task's secrets (DESIGN §12): the CLI's commands get the placeholders the sandbox holds and the
    // variables naming the task's authority, and nothing else of the sandbox's environment.
    void secretEnvironment() {
        const std::map<std::string, std::string> sandbox = {
            {"WARREN_SECRETS", "GH_TOKEN,,bad name,SEARCH_KEY,ABSENT"},
            {"GH_TOKEN", "warren-secret-1"},
            {"SEARCH_KEY", "warren-secret-2"},
            {"SSL_CERT_FILE", "/opt/warren/ca-bundle.pem"},
            {"NODE_EXTRA_CA_CERTS", "/opt/warren/egress-ca.pem"},
            {"OPENAI_API_KEY", "sk-real"},
        };
        const auto get = [&](const char* name) -> const char* {
            const auto found = sandbox.find(name);
            return found == sandbox.end() ? nullptr : found->second.c_str();
        };
        const std::vector<std::string> passed = sandboxSecretEnvironment(get);
        QCOMPARE(passed, (std::vector<std::string>{"SSL_CERT_FILE=/opt/warren/ca-bundle.pem",
                                                   "NODE_EXTRA_CA_CERTS=/opt/warren/egress-ca.pem",
                                                   "GH_TOKEN=warren-secret-1", "SEARCH_KEY=warren-secret-2"}));
        CliRun withSecrets = run();
        withSecrets.secretEnvironment = passed;
        const auto command = buildCliCommand(params(AgentKind::ClaudeCode), withSecrets);
        QCOMPARE(variable(command, "GH_TOKEN"), std::optional<std::string>("warren-secret-1"));
        QVERIFY(!variable(command, "OPENAI_API_KEY"));
        QVERIFY(sandboxSecretEnvironment([](const char*) -> const char* { return nullptr; }).empty());
    }
};

QTEST_GUILESS_MAIN(TestCliCommand)
#include "tst_cli_command.moc"
