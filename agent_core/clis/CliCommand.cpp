#include "agent_core/clis/CliCommand.h"

#include "agent_core/clis/ClaudePermissions.h"
#include "agent_core/clis/CodexAppServer.h"

#include <algorithm>
#include <cstdio>

namespace warren::agent {

namespace {

// The system's directories after the task's own (codex's vendored rg): what a shell in the sandbox finds.
constexpr const char* kSystemPath = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";

std::string searchPath(const protocol::CliAgentParams& cli) {
    std::string path;
    for (const auto& dir : cli.pathDirs)
        path += dir + ":";
    return path + kSystemPath;
}

std::vector<std::string> commonEnvironment(const protocol::CliAgentParams& cli, const CliRun& run) {
    std::vector<std::string> env{
        "HOME=" + run.home.string(),
        "PATH=" + searchPath(cli),
        "SHELL=" + run.shell,
        "LANG=C.UTF-8",
        "TERM=dumb",
        "NO_COLOR=1",
        // XDG lookups land in HOME too, never in a directory of the sandbox's user.
        "XDG_CONFIG_HOME=" + (run.home / ".config").string(),
        "XDG_CACHE_HOME=" + (run.home / ".cache").string(),
        "XDG_DATA_HOME=" + (run.home / ".local/share").string(),
        "XDG_STATE_HOME=" + (run.home / ".local/state").string(),
    };
    if (run.egressPort) {
        const std::string proxy = "http://127.0.0.1:" + std::to_string(*run.egressPort);
        for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
            env.push_back(std::string(name) + "=" + proxy);
        // The model is reached directly on loopback, never through the egress proxy.
        env.push_back("NO_PROXY=127.0.0.1,localhost");
        env.push_back("no_proxy=127.0.0.1,localhost");
    }
    env.insert(env.end(), run.secretEnvironment.begin(), run.secretEnvironment.end());
    return env;
}

std::string modelUrl(const CliRun& run) {
    return "http://127.0.0.1:" + std::to_string(run.modelPort);
}

CliCommand claudeCommand(const protocol::CliAgentParams& cli, const CliRun& run) {
    CliCommand command;
    // Its own permission rules let through what needs no approval (Warren's sandbox is the boundary;
    // --dangerously-skip-permissions would say so more simply but Claude Code refuses it as root, and the
    // sandbox may run the agent as root in its user namespace); every other call is asked for on stdio.
    command.argv = {cli.program,
                    "-p",
                    "--input-format",
                    "stream-json",
                    "--output-format",
                    "stream-json",
                    "--verbose",
                    "--model=" + cli.model,
                    "--permission-mode",
                    "default",
                    "--permission-prompt-tool",
                    "stdio",
                    "--allowedTools",
                    claudeAllowedTools(cli.approvalTools)};
    if (run.session)
        command.argv.push_back("--resume=" + *run.session);
    command.input = claudeUserMessage(run.prompt);
    command.environment = commonEnvironment(cli, run);
    const std::vector<std::string> claude{
        "ANTHROPIC_BASE_URL=" + modelUrl(run),
        "ANTHROPIC_API_KEY=" + run.token,
        // Nothing but the model calls: no telemetry, error reports, update checks or feedback.
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
        "DISABLE_AUTOUPDATER=1",
        "DISABLE_TELEMETRY=1",
        "DISABLE_ERROR_REPORTING=1",
        "DISABLE_BUG_COMMAND=1",
        "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL=1",
    };
    command.environment.insert(command.environment.end(), claude.begin(), claude.end());
    return command;
}

CliCommand codexCommand(const protocol::CliAgentParams& cli, const CliRun& run) {
    const auto codexHome = run.home / ".codex";
    CliCommand command;
    // Codex ignores OPENAI_BASE_URL: the model proxy is a model provider of its config.
    command.files.push_back({codexHome / "config.toml",
                             "# Written by warren-agent before each run: the model is Warren's model proxy.\n"
                             "model = " +
                                 tomlString(cli.model) +
                                 "\n"
                                 "model_provider = \"warren\"\n"
                                 "approval_policy = \"never\"\n"
                                 "sandbox_mode = \"danger-full-access\"\n"
                                 "check_for_update_on_startup = false\n"
                                 "\n[analytics]\nenabled = false\n"
                                 "\n[model_providers.warren]\n"
                                 "name = \"Warren model proxy\"\n"
                                 "base_url = " +
                                 tomlString(modelUrl(run) + "/v1") +
                                 "\n"
                                 "wire_api = \"responses\"\n"
                                 "env_key = \"" +
                                 std::string(kCodexKeyVariable) + "\"\n"});
    if (codexAsks(cli)) {
        // Its approval requests need the app-server (CodexAppServer.h): the thread and its sandbox mode are
        // the opening lines on its stdin, the prompt follows once the thread is there.
        command.argv = {cli.program, "app-server", "-c", "analytics.enabled=false", "--disable", "plugins"};
        command.input = codexAppServerOpening(run.workspace, run.session);
    } else {
        // Warren's sandbox is the boundary: codex's own would only get in the way of the work.
        command.argv = {cli.program, "exec",
                        "--json",    "--skip-git-repo-check",
                        "--sandbox", "danger-full-access",
                        "-c",        "analytics.enabled=false",
                        "--disable", "plugins",
                        "--cd",      run.workspace.string()};
        if (run.session)
            command.argv.insert(command.argv.end(), {"resume", *run.session});
        command.argv.insert(command.argv.end(), {"--", run.prompt});
    }
    command.environment = commonEnvironment(cli, run);
    command.environment.push_back("CODEX_HOME=" + codexHome.string());
    command.environment.push_back(std::string(kCodexKeyVariable) + "=" + run.token);
    return command;
}

} // namespace

bool codexAsks(const protocol::CliAgentParams& cli) {
    return cli.kind == protocol::AgentKind::Codex && !cli.approvalTools.empty();
}

CliCommand buildCliCommand(const protocol::CliAgentParams& cli, const CliRun& run) {
    // cli.kind is a CLI: cliAgentParamsFromJson refuses Warren's own agent.
    return cli.kind == protocol::AgentKind::Codex ? codexCommand(cli, run) : claudeCommand(cli, run);
}

bool isValidSessionId(const std::string& id) {
    if (id.empty() || id.size() > 128)
        return false;
    for (const char c : id)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '_'))
            return false;
    return true;
}

std::string tomlString(const std::string& value) {
    std::string out = "\"";
    for (const char raw : value) {
        const auto c = static_cast<unsigned char>(raw);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                out += escaped;
            } else {
                out += raw;
            }
        }
    }
    return out + "\"";
}

std::vector<std::string> sandboxSecretEnvironment(const std::function<const char*(const char*)>& get) {
    std::vector<std::string> names{"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO",
                                   "NODE_EXTRA_CA_CERTS"};
    if (const char* listed = get(kSecretNamesVariable)) {
        std::string list = listed;
        for (std::size_t start = 0; start <= list.size();) {
            const std::size_t comma = std::min(list.find(',', start), list.size());
            const std::string name = list.substr(start, comma - start);
            const bool variable = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
                return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
            });
            if (variable)
                names.push_back(name);
            start = comma + 1;
        }
    }
    std::vector<std::string> environment;
    for (const std::string& name : names)
        if (const char* value = get(name.c_str()))
            environment.push_back(name + "=" + value);
    return environment;
}

} // namespace warren::agent
