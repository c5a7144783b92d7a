#pragma once
// Where a task's CLI agent (Claude Code, Codex) is installed on this host, and how the sandbox sees it: the
// user's own install, never downloaded (DESIGN §11). Claude Code 2 is one native executable; Codex's npm
// package is a Node.js launcher beside a static executable with helpers of its own (rg) in a vendor
// directory, which is what is mounted, so no Node.js is needed in the sandbox. Found once per launch,
// before any sandbox starts: a missing or unusable install is an error naming what to install.

#include "agent_core/protocol/AgentKind.h"
#include "app/providers/ProviderConfig.h"
#include "app/tasks/TaskSpec.h"
#include "common/Result.h"
#include "sandbox/Backend.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warren::control {

inline constexpr const char* kCliDirInSandbox = "/opt/warren/cli";

struct CliInstall {
    std::string source;      // host path mounted read-only at kCliDirInSandbox (or at program, for a file)
    bool directory = false;  // source is the directory the executable and its helpers sit in
    std::string program;     // the executable, inside the sandbox
    std::vector<std::string> pathDirs; // helper directories to put on PATH, inside the sandbox
    friend bool operator==(const CliInstall&, const CliInstall&) = default;
};

// named: a path the user or the operator gave (`--agent-path`, `warrend serve --agent-cli`); empty: the
// CLI's command name looked up in searchPath (PATH's value). Symbolic links are followed to the real file.
Result<CliInstall> locateCli(protocol::AgentKind kind, const std::string& named, const std::string& searchPath);

// The install a task's agent runs from: nullopt for Warren's own; a cluster's pod (backend kubernetes) runs
// its image's, by its command name on the image's PATH, which nothing here can look at; else the task's own
// path (agentPath), the face's (configured), or the CLI on this process's PATH. What each launch and each
// submission checks.
Result<std::optional<CliInstall>> taskCli(protocol::AgentKind agent, const std::string& agentPath,
                                          const std::map<protocol::AgentKind, std::string>& configured,
                                          sandbox::Backend backend);

// Which provider wires a CLI speaks: Claude Code, Anthropic's Messages API; Codex, OpenAI's Responses API.
// The error says which --provider to choose. Pure.
Status cliSpeaksProvider(protocol::AgentKind agent, const ProviderConfig& provider);

// The task's agent speaks its provider's wire, where the provider reads (else the launch reports it, as for
// any task). Always, for Warren's own. Pure.
Status checkAgentProvider(const TaskSpec& spec);

// What a submission checks before a task exists, after validateSpec (TaskManager, warrend's POST /v1/tasks
// before it copies the workspace): checkAgentProvider, then the task's CLI is installed.
Status checkTaskAgent(const TaskSpec& spec, const std::map<protocol::AgentKind, std::string>& configured);

} // namespace warren::control
