#pragma once
// How warren-agent starts a coding-agent CLI (docs/AGENT.md "A CLI agent"), as a pure function of the task's
// cli parameters and the paths of this run: argv, the whole environment (built from nothing, never inherited:
// the sandbox's variables, the agent's own, and the user's never reach the CLI) and the files to write before
// it starts (codex's config.toml). Tests inspect it without launching anything.

#include "agent_core/protocol/Methods.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace warren::agent {

// The variable holding the task token for codex (its model provider's env_key).
inline constexpr const char* kCodexKeyVariable = "WARREN_MODEL_TOKEN";
struct CliRun {
    std::filesystem::path workspace;
    std::filesystem::path home;  // the CLI's HOME: STATE/cli-home, kept across resumes
    std::uint16_t modelPort = 0; // 127.0.0.1:modelPort forwards to the model proxy's socket
    std::string token;           // the task token: the CLI's API key (the proxy swaps in the real one)
    // The port of the egress forwarder when the network is an allow-list: the CLI's commands get it as their
    // HTTP(S)_PROXY, and the model's address is exempt (NO_PROXY). nullopt: no proxy variables.
    std::optional<std::uint16_t> egressPort;
    // The CLI's own session to continue (resume, reply); nullopt: a new session.
    std::optional<std::string> session;
    std::string prompt; // the task's prompt, the user's reply, or kContinuePrompt
    // The sandbox's shell, the CLI's SHELL (Claude Code runs its commands with it, and finds none in an image
    // without bash unless told): /bin/bash where the sandbox has it, else /bin/sh.
    std::string shell = "/bin/sh";
    // What the sandbox sets for the commands of a task with secrets bound to hosts (DESIGN §12), passed on
    // to the CLI and its commands as "NAME=VALUE" (sandboxSecretEnvironment).
    std::vector<std::string> secretEnvironment;
};

struct FileToWrite {
    std::filesystem::path path;
    std::string content;
};

struct CliCommand {
    std::vector<std::string> argv;
    std::vector<std::string> environment; // "NAME=VALUE", the CLI's whole environment
    std::vector<FileToWrite> files;       // written (mode 0600) before the CLI starts
    // Claude Code: its prompt, the first line on its stdin; Codex's app-server: its opening requests. The
    // stdin stays open for the answers to the CLI's permission asks (ClaudePermissions.h,
    // CodexPermissions.h) until its result. Empty: stdin is /dev/null (codex exec waits for an open stdin to
    // end).
    std::string input;
};

// What a resumed session is told when there is no reply: the run was interrupted, not finished.
inline constexpr const char* kContinuePrompt =
    "Your previous run was interrupted before it finished. Continue the task from where you stopped; check "
    "the state of the workspace before repeating any command.";

CliCommand buildCliCommand(const protocol::CliAgentParams& cli, const CliRun& run);

// Whether the CLI runs Codex's app-server (a Codex task whose settings ask for approvals, CodexAppServer.h)
// rather than `codex exec`, which cannot ask.
bool codexAsks(const protocol::CliAgentParams& cli);

// Of the sandbox's environment (get: getenv), each secret's placeholder (the names WARREN_SECRETS lists) and
// the variables that name the task's certificate authority (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, ...), as
// "NAME=VALUE"; a name that is not a variable's is skipped.
std::vector<std::string> sandboxSecretEnvironment(const std::function<const char*(const char*)>& get);
inline constexpr const char* kSecretNamesVariable = "WARREN_SECRETS";

// A session id a CLI reported, accepted only when it can be passed back as one argument and cannot name a
// path: letters, digits, '-' and '_', 1 to 128 of them.
bool isValidSessionId(const std::string& id);

// value as a TOML basic string, quotes included: every '"', '\\' and control character escaped, so a value
// cannot end the string and add a key of its own.
std::string tomlString(const std::string& value);

} // namespace warren::agent
