#pragma once
// `warren`'s command line (DESIGN.md §4), parsed without side effects into one value per command, so every
// command and every mistake is tested as data. Values stay as the user wrote them (strings, whole numbers):
// provider names, presets and --set keys are checked by the parts that use them; only syntax is checked
// here. Paths are not resolved against the current directory.

#include "agent_core/protocol/AgentKind.h"
#include "common/Result.h"
#include "sandbox/Backend.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace warren::control {

struct WindowCommand {}; // `warren` with no command: open the window

struct HelpCommand {
    std::string topic; // empty: every command; else one command's name ("run")
};

struct VersionCommand {};

struct RunCommand {
    std::string prompt; // the words that are not options, joined by spaces (or everything after --)
    std::optional<std::string> workspace;
    std::optional<std::string> provider; // NAME or scripted:FILE
    std::optional<std::string> model;
    std::vector<std::string> presets;                          // --preset a,b --preset c: a, b, c
    std::vector<std::pair<std::string, std::string>> settings; // --set KEY=VALUE, in order
    std::optional<sandbox::Backend> backend;
    std::optional<std::string> image;                          // docker/podman: the agent's image
    std::optional<protocol::AgentKind> agent;                  // warren, claude-code or codex
    std::optional<std::string> agentPath;                      // the CLI's executable (default: on PATH)
    std::optional<std::string> network;                        // none, loopback or allow:HOST[,HOST...]
    std::vector<std::string> secrets;                          // --secret NAME[,NAME...] (repeatable)
    std::vector<std::string> resolve;                          // --resolve HOST:PORT:ADDRESS (repeatable)
    std::optional<std::string> egressCa;                       // --egress-ca FILE
    std::vector<std::string> mcpConfigs;                       // --mcp-config FILE, repeatable
    std::optional<std::string> approve;                        // ask, auto or deny
    bool json = false;                                         // one event per line instead of the live view
    std::optional<std::uint64_t> timeoutSec;                   // > 0
    std::optional<std::uint64_t> tokenBudget;                  // > 0
    bool demo = false; // the scripted demo, whatever model is set up: `warren` where no window can open
};

struct TasksCommand {
    bool json = false;
};

struct ShowCommand {
    std::string taskId;
    bool json = false;
};

struct ResumeCommand {
    std::string taskId;
    bool json = false;
    std::optional<std::string> approve; // ask, auto or deny
    std::optional<sandbox::Backend> backend; // run it in another sandbox from here on
    std::optional<std::string> image;   // docker/podman: the agent's image
};

// `warren reply TASK MESSAGE`: the task whose run ended goes on with the user's message.
struct ReplyCommand {
    std::string taskId;
    std::string message; // the words after TASK, joined by spaces (or everything after --)
    bool json = false;
    std::optional<std::string> approve; // ask, auto or deny
};

struct CancelCommand {
    std::string taskId;
};

struct ExportCommand {
    std::string taskId;
    std::string directory;
};

struct DoctorCommand {
    bool json = false;
};

// `warren apply TASK --remote URL`: a finished remote task's change, applied to its local workspace.
struct ApplyCommand {
    std::string taskId;
    std::optional<std::string> workspace; // default: the one the task was uploaded from
    bool check = false;                   // only say what would be applied and what conflicts
};

// `warren diff TASK [--step N]`: what the task changed in its workspace, from its snapshots.
struct DiffCommand {
    std::string taskId;
    std::optional<std::uint64_t> step; // only what step N changed
};

// `warren rewind TASK --to-step N | --undo`: the workspace as it was before step N ran (step 1: as the task
// found it), or as it was before the last rewind; `--fork` a new task from before step N instead.
struct RewindCommand {
    std::string taskId;
    std::optional<std::uint64_t> toStep; // else --undo
    std::vector<std::string> paths;      // --path, repeatable: only these files or directories
    bool check = false;                  // only list what would change
    bool yes = false;                    // no question on the terminal
    bool files = true;                   // --files (the default), and with --conversation
    bool conversation = false;           // --conversation: the agent's checkpoint, so the task continues there
    bool fork = false;                   // --fork: a new task from before step N, this one left as it is
    std::string workspace;               // --workspace DIR: the fork's (empty: in the data directory)
};

// The key itself is read from stdin, never from argv (argv is visible to every user in ps and is kept in
// shell history).
struct SecretsSetCommand {
    std::string name;
    // --host: a secret bound to hosts (DESIGN §12), put in by the egress proxy; none: a provider's API key.
    std::optional<std::string> hosts;
    std::optional<std::string> header; // --header 'Authorization: Bearer {}'
    bool inBody = false;               // --in-body: the placeholder is replaced in request bodies too
};

struct SecretsDeleteCommand {
    std::string name;
};

// `warren move TASK --to URL`: a paused, interrupted, waiting or sleeping task of this machine goes on at
// that warrend (app/tasks/TaskMove.h); its record here says where it went. `warren move TASK --remote URL
// --to local [--workspace DIR]`: one of that warrend's comes home, its change applied to the workspace it
// was uploaded from (or DIR).
struct MoveCommand {
    std::string taskId;
    std::string to;                       // the warrend's URL, or "local"
    std::optional<std::string> workspace; // --to local: where its change goes
};

struct SecretsListCommand {}; // the secrets bound to hosts: names, hosts and headers, never a value

using CliCommand = std::variant<WindowCommand, HelpCommand, VersionCommand, RunCommand, TasksCommand,
                                ShowCommand, ResumeCommand, ReplyCommand, CancelCommand, ExportCommand,
                                DoctorCommand, SecretsSetCommand, SecretsDeleteCommand, SecretsListCommand,
                                ApplyCommand, DiffCommand, RewindCommand, MoveCommand>;

struct CliArguments {
    CliCommand command = WindowCommand{};
    std::optional<std::string> dataDir; // --data-dir, accepted by every command (and before the command)
    bool noColor = false;               // --no-color, accepted by every command
    // --remote URL: the command drives that warrend instead of this machine's control plane (run, tasks,
    // show, resume, reply, cancel, export, apply; apply needs it).
    std::optional<std::string> remote;
};

// args excludes argv[0]. An error (ErrorCode::InvalidArgument, exit status 2) names the flag or argument
// and says what was expected; an unknown option or command suggests the closest known one.
Result<CliArguments> parseCliArguments(const std::vector<std::string>& args);

// The help text: every command when command is empty, else that command's options. An unknown command
// gets the full text.
std::string usageText(std::string_view command = {});

} // namespace warren::control
