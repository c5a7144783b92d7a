#include "app/cli/CliArguments.h"

#include "app/egress/EgressPolicy.h"
#include "app/providers/ProviderChoice.h"
#include "app/secretproxy/HostSecret.h"
#include "app/store/StoreTypes.h"
#include "app/tasks/TaskSpec.h"
#include "common/EditDistance.h"

#include <algorithm>
#include <charconv>
#include <span>

namespace warren::control {
namespace {

Error usageError(std::string message) { return makeError(ErrorCode::InvalidArgument, std::move(message)); }

struct OptionSpec {
    std::string_view name;
    std::string_view valueName; // empty: a switch that takes no value
    std::string_view help;
};

// Accepted by every command, before or after it.
constexpr OptionSpec kDataDir{"--data-dir", "DIR", "where warren.db and tasks/ live (default $XDG_DATA_HOME/warren)"};
constexpr OptionSpec kNoColor{"--no-color", "", "no ANSI colours (also when NO_COLOR is set or stdout is no tty)"};
constexpr OptionSpec kHelp{"--help", "", "show this help"};
constexpr OptionSpec kJson{"--json", "", "machine-readable output: one JSON object per line"};
constexpr OptionSpec kApprove{"--approve", "MODE",
                              "risky tool calls: ask (on the terminal), auto (approve), deny (refuse)"};

constexpr OptionSpec kBackend{"--backend", "NAME",
                              "the sandbox: bwrap, docker, podman or kube (default: Settings', else bwrap)"};
constexpr OptionSpec kImage{"--image", "IMAGE",
                            "docker/podman: the agent's image, present locally (default: Settings', else "
                            "debian:bookworm-slim)"};
constexpr OptionSpec kRemote{"--remote", "URL",
                             "drive the warrend at URL (key: `warren secrets set remote` or WARREN_REMOTE_KEY)"};
constexpr OptionSpec kResumeBackend{"--backend", "NAME", "move the task to this sandbox: bwrap, docker, podman or kube"};
constexpr OptionSpec kResumeImage{"--image", "IMAGE", "docker/podman: the agent's image from here on"};

constexpr OptionSpec kRunOptions[] = {
    {"--workspace", "DIR", "the directory the agent works in, at /workspace (default: current directory)"},
    {"--provider", "NAME", "the model provider, or scripted:FILE for turns served from a JSON file"},
    {"--model", "NAME", "the model to ask"},
    {"--preset", "P[,P...]", "presets applied in order, later wins (repeatable)"},
    {"--set", "KEY=VALUE", "one setting over the presets (repeatable, later wins)"},
    {"--agent", "NAME", "the agent: warren (Warren's own), claude-code or codex (your install, run in the sandbox; "
                        "default: Settings', else warren)"},
    {"--agent-path", "PATH", "claude-code/codex: the CLI's executable (default: `claude` or `codex` on PATH)"},
    kBackend,
    kImage,
    {"--network", "POLICY", "none, loopback, allow:HOST[,HOST...], or ask[:HOST,...] (others asked about)"},
    {"--secret", "NAME[,NAME...]", "secrets stored with `warren secrets set NAME --host HOST`: the sandbox holds a "
                                   "placeholder, the egress proxy puts the value in for those hosts (repeatable)"},
    {"--resolve", "HOST:PORT:ADDR[,ADDR...]", "connect to HOST:PORT at ADDR (the next when one refuses) for this task, as curl's (repeatable)"},
    {"--mcp-config", "FILE", "MCP servers for this task, as .mcp.json declares them (repeatable; the workspace's "
                             ".mcp.json is read too)"},
    {"--egress-ca", "FILE", "PEM certificates the egress proxy trusts besides the system's for a secret's host"},
    kApprove,
    kJson,
    {"--timeout", "SECONDS", "stop the task after SECONDS of wall-clock time"},
    {"--token-budget", "N", "stop the task after N model tokens, input and output together"},
    kRemote,
    kDataDir,
    kNoColor,
    kHelp,
};
constexpr OptionSpec kJsonOptions[] = {kJson, kDataDir, kNoColor, kHelp};
constexpr OptionSpec kRemoteJsonOptions[] = {kJson, kRemote, kDataDir, kNoColor, kHelp};
constexpr OptionSpec kResumeOptions[] = {kJson,    kApprove, kResumeBackend, kResumeImage,
                                         kRemote, kDataDir, kNoColor,       kHelp};
constexpr OptionSpec kReplyOptions[] = {kJson, kApprove, kRemote, kDataDir, kNoColor, kHelp};
constexpr OptionSpec kPlainOptions[] = {kDataDir, kNoColor, kHelp};
constexpr OptionSpec kSecretsOptions[] = {
    {"--host", "HOST[,HOST...]", "set: bind the secret to these hosts (an allow-list's syntax): the egress proxy "
                                 "puts it into their requests, the sandbox sees a placeholder"},
    {"--header", "TEMPLATE", "set, with --host: the header to send it in, as 'Authorization: Bearer {}'"},
    {"--in-body", "", "set, with --host: replace the placeholder in request bodies to those hosts too (JSON and "
                      "form bodies get it escaped as they write values)"},
    kRemote,
    kDataDir,
    kNoColor,
    kHelp,
};
constexpr OptionSpec kRemotePlainOptions[] = {kRemote, kDataDir, kNoColor, kHelp};
constexpr OptionSpec kApplyOptions[] = {
    kRemote,
    {"--workspace", "DIR", "apply to DIR (default: the directory the task was uploaded from)"},
    {"--check", "", "only list what would be applied and what conflicts"},
    kDataDir,
    kNoColor,
    kHelp,
};
constexpr OptionSpec kMoveOptions[] = {
    {"--to", "URL|local",
     "the warrend the task goes on at (http(s)://HOST:PORT); local, with --remote: home"},
    kRemote,
    {"--workspace", "DIR",
     "--to local: the workspace its change goes to (default: the one it was uploaded from)"},
    kDataDir,
    kNoColor,
    kHelp};
constexpr OptionSpec kDiffOptions[] = {
    {"--step", "N", "only what step N changed (default: the whole task)"}, kDataDir, kNoColor, kHelp};
constexpr OptionSpec kRewindOptions[] = {
    {"--to-step", "N", "the workspace as it was before step N ran (step 1: as the task found it)"},
    {"--undo", "", "take the last rewind back: its files, its conversation or both, as they were before it"},
    {"--path", "PATH", "only this file or directory (repeatable)"},
    {"--files", "", "the workspace's files (the default; with --conversation, both)"},
    {"--conversation", "", "the agent's conversation: `warren resume` continues the task from that step"},
    {"--fork", "", "keep both: a new task continues from before step N in a workspace of its own (printed); "
                   "the task and its workspace stay as they are"},
    {"--workspace", "DIR", "with --fork: the new task's workspace, a new or empty directory (default: in the "
                           "data directory)"},
    {"--check", "", "only list what would change"},
    {"--yes", "", "do not ask on the terminal before changing the workspace"},
    kDataDir,
    kNoColor,
    kHelp,
};
constexpr OptionSpec kTopLevelOptions[] = {kDataDir, kNoColor, kHelp, {"--version", "", "print the version"}};

struct Scanned;
struct Invocation;
using CommandBuilder = Result<CliCommand> (*)(Invocation& call);
Result<CliCommand> buildRunCommand(Invocation& call);
Result<CliCommand> buildTasks(Invocation& call);
Result<CliCommand> buildShow(Invocation& call);
Result<CliCommand> buildResume(Invocation& call);
Result<CliCommand> buildReply(Invocation& call);
Result<CliCommand> buildCancel(Invocation& call);
Result<CliCommand> buildExport(Invocation& call);
Result<CliCommand> buildApply(Invocation& call);
Result<CliCommand> buildMove(Invocation& call);
Result<CliCommand> buildDiff(Invocation& call);
Result<CliCommand> buildRewind(Invocation& call);
Result<CliCommand> buildDoctor(Invocation& call);
Result<CliCommand> buildSecrets(Invocation& call);
Result<CliCommand> buildHelp(Invocation& call);
Result<CliCommand> buildVersion(Invocation& call);

struct CommandInfo {
    std::string_view name;
    std::string_view synopsis;
    std::string_view summary;
    std::span<const OptionSpec> options;
    CommandBuilder build; // the command from its scanned words and options
};

constexpr CommandInfo kCommands[] = {
    {"run", "run [OPTION]... PROMPT", "run one task headless and show what it does, live", kRunOptions,
     buildRunCommand},
    {"tasks", "tasks [--json]", "list the tasks", kRemoteJsonOptions, buildTasks},
    {"show", "show TASK [--json]", "print a task's events", kRemoteJsonOptions, buildShow},
    {"resume", "resume TASK [--json] [--approve MODE] [--backend NAME] [--image IMAGE]",
     "continue a paused or interrupted task from its checkpoint, in the same sandbox or another backend's",
     kResumeOptions, buildResume},
    {"reply", "reply TASK MESSAGE [--json] [--approve MODE]",
     "continue a task whose run ended (finished, failed, stopped or paused) with your message, in the same "
     "workspace and conversation",
     kReplyOptions, buildReply},
    {"cancel", "cancel TASK", "stop a running task", kRemotePlainOptions, buildCancel},
    {"export", "export TASK DIR", "copy a task's events, report and artifacts into DIR", kRemotePlainOptions,
     buildExport},
    {"apply", "apply TASK --remote URL [--workspace DIR] [--check]",
     "bring a remote task's change home: apply it to the local workspace, leaving files changed here since "
     "the "
     "upload as they are",
     kApplyOptions, buildApply},
    {"move", "move TASK --to URL | move TASK --remote URL --to local [--workspace DIR]",
     "send a paused, interrupted, waiting or sleeping task to a warrend, where it goes on from its "
     "checkpoint "
     "with its workspace, events and conversation (`warren apply` brings its change back); or bring one of a "
     "warrend's home the same way, its change applied here",
     kMoveOptions, buildMove},
    {"diff", "diff TASK [--step N]",
     "what a task changed in its workspace, shell commands' changes included: a unified diff of its "
     "snapshots",
     kDiffOptions, buildDiff},
    {"rewind",
     "rewind TASK --to-step N [--files] [--conversation] | --to-step N --fork [--workspace DIR] | --undo "
     "[--path PATH]... [--check] [--yes]",
     "put the workspace back as it was before a step (first recording it as it is, for --undo); what "
     "snapshots skip is left alone. --fork keeps both: a new task continues from that step",
     kRewindOptions, buildRewind},
    {"doctor", "doctor [--json]", "check that sandboxing works here, and say how to fix what does not",
     kJsonOptions, buildDoctor},
    {"secrets",
     "secrets set|delete NAME [--host HOST[,HOST...] [--header TEMPLATE] [--in-body]] | secrets list",
     "store (value read from stdin) or delete a provider's API key, or with --host a secret for those hosts "
     "only "
     "(with --remote: yours on that warrend); list the secrets for hosts",
     kSecretsOptions, buildSecrets},
    {"help", "help [COMMAND]", "show this help, or one command's", kPlainOptions, buildHelp},
    {"version", "version", "print the version", kPlainOptions, buildVersion},
};

const CommandInfo* findCommand(std::string_view name) {
    for (const auto& command : kCommands) {
        if (command.name == name)
            return &command;
    }
    return nullptr;
}

const OptionSpec* findOption(std::span<const OptionSpec> options, std::string_view name) {
    for (const auto& option : options) {
        if (option.name == name)
            return &option;
    }
    return nullptr;
}

// The candidate a typo most likely meant: the only one it is a prefix of, else the nearest within a few
// edits; empty when nothing is close enough to be a helpful guess.
std::string closest(std::string_view typed, const std::vector<std::string_view>& candidates) {
    std::vector<std::string_view> prefixed;
    for (auto candidate : candidates) {
        if (typed.size() >= 3 && candidate.substr(0, typed.size()) == typed)
            prefixed.push_back(candidate);
    }
    if (prefixed.size() == 1)
        return std::string(prefixed.front());
    std::string best;
    std::size_t bestDistance = std::max<std::size_t>(2, typed.size() / 3) + 1;
    for (auto candidate : candidates) {
        const std::size_t distance = editDistance(typed, candidate);
        if (distance < bestDistance) {
            bestDistance = distance;
            best = std::string(candidate);
        }
    }
    return best;
}

std::string singleQuoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string unknownOption(std::string_view flag, std::string_view command, std::span<const OptionSpec> options) {
    const std::string where = command.empty() ? "warren" : "warren " + std::string(command);
    std::string message = where + ": unknown option " + std::string(flag);
    // An option of another command is a different mistake from a typo: say where it belongs.
    std::vector<std::string_view> owners;
    for (const auto& info : kCommands) {
        if (info.name != command && findOption(info.options, flag))
            owners.push_back(info.name);
    }
    if (!owners.empty()) {
        message += " (it is an option of ";
        for (std::size_t i = 0; i < owners.size(); ++i)
            message += (i == 0 ? "" : i + 1 == owners.size() ? " and " : ", ") + std::string(owners[i]);
        return message + ")";
    }
    std::vector<std::string_view> names;
    for (const auto& option : options)
        names.push_back(option.name);
    if (const std::string guess = closest(flag, names); !guess.empty())
        return message + "; did you mean " + guess + "?";
    return message + "; see '" + where + " --help'";
}

// The words after the command, split into options (in order, with their values) and other words.
// With stopAtWord, scanning ends before the first word (the command) or after "--".
struct Scanned {
    std::vector<std::pair<std::string, std::string>> options;
    std::vector<std::string> words;
    bool help = false;
    std::size_t consumed = 0; // with stopAtWord: how many arguments were options
};

Result<Scanned> scan(std::string_view command, std::span<const std::string> args,
                     std::span<const OptionSpec> options, bool stopAtWord = false) {
    Scanned scanned;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (stopAtWord && (arg == "--" || arg.size() < 2 || arg[0] != '-')) {
            scanned.consumed = arg == "--" ? i + 1 : i;
            return scanned;
        }
        if (arg == "--") {
            scanned.words.insert(scanned.words.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
            break;
        }
        if (arg == "-h" || arg == "--help") {
            scanned.help = true;
            continue;
        }
        if (arg.size() < 2 || arg[0] != '-') { // "-" alone is a word, as for most tools
            scanned.words.push_back(arg);
            continue;
        }
        const auto eq = arg.find('=');
        const std::string flag = arg.substr(0, eq);
        const OptionSpec* spec = findOption(options, flag);
        if (!spec)
            return usageError(unknownOption(flag, command, options));
        if (spec->valueName.empty()) {
            if (eq != std::string::npos)
                return usageError(flag + ": takes no value, got " + singleQuoted(arg.substr(eq + 1)));
            scanned.options.emplace_back(flag, std::string());
            continue;
        }
        std::string value;
        if (eq != std::string::npos) {
            value = arg.substr(eq + 1);
        } else {
            if (i + 1 >= args.size())
                return usageError(flag + ": needs a value (" + flag + " " + std::string(spec->valueName) + ")");
            value = args[++i];
            // "--model --json" is a forgotten value, not a model named --json; --opt=--x says it is meant.
            if (value.size() > 2 && value.rfind("--", 0) == 0)
                return usageError(flag + ": needs a value (" + flag + " " + std::string(spec->valueName) +
                                  "), got the option " + value);
        }
        if (value.empty())
            return usageError(flag + ": needs a value (" + flag + " " + std::string(spec->valueName) +
                              "), got an empty one");
        scanned.options.emplace_back(flag, std::move(value));
    }
    scanned.consumed = args.size();
    return scanned;
}

Result<std::uint64_t> positiveNumber(const std::string& flag, const std::string& value, std::string_view what) {
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (error != std::errc() || end != value.data() + value.size() || number == 0)
        return usageError(flag + ": expected a whole number of " + std::string(what) + " above 0, got " +
                          singleQuoted(value));
    return number;
}

Status oneOf(const std::string& flag, const std::string& value, std::initializer_list<std::string_view> allowed) {
    if (std::find(allowed.begin(), allowed.end(), value) != allowed.end())
        return Ok{};
    std::string list;
    std::size_t i = 0;
    for (auto item : allowed) {
        list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + std::string(item);
        ++i;
    }
    return usageError(flag + ": expected " + list + ", got " + singleQuoted(value));
}

Result<sandbox::Backend> backendOption(const std::string& flag, const std::string& value) {
    auto backend = sandbox::parseBackend(value);
    if (!backend)
        return usageError(flag + ": expected " + sandbox::backendNames() + ", got " + singleQuoted(value));
    return *backend;
}

// A comma-separated list whose items may not be empty ("a,,b" is a typo).
Result<std::vector<std::string>> commaList(const std::string& flag, const std::string& value, std::string_view what) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        const auto comma = value.find(',', start);
        std::string item = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty())
            return usageError(flag + ": empty " + std::string(what) + " in " + singleQuoted(value));
        items.push_back(std::move(item));
        if (comma == std::string::npos)
            return items;
        start = comma + 1;
    }
}

Status checkNetwork(const std::string& flag, const std::string& value) {
    const std::size_t colon = value.find(':');
    const std::string kind = value.substr(0, colon);
    if (colon == std::string::npos || (kind != "allow" && kind != "ask"))
        return oneOf(flag, value, {"none", "loopback", "allow:HOST[,HOST...]", "ask", "ask:HOST[,HOST...]"});
    auto hosts = commaList(flag, value.substr(colon + 1), "host");
    if (!hosts)
        return usageError(flag + ": " + kind + ": needs hosts, as in " + kind + ":api.example.com,pypi.org; got " +
                          singleQuoted(value));
    for (const auto& host : *hosts) {
        if (host.find_first_of(" \t") != std::string::npos)
            return usageError(flag + ": a host cannot contain spaces, got " + singleQuoted(host));
    }
    return Ok{};
}

// Only what would make the engine's command line read the name as something else; the engine checks the rest.
Status checkImage(const std::string& flag, const std::string& value) {
    if (value.empty() || value.front() == '-' || value.find_first_of(" \t\n") != std::string::npos)
        return usageError(flag + ": expected an image name such as debian:bookworm-slim, got " + singleQuoted(value));
    return Ok{};
}

// Applies the options every command shares; false when flag is not one of them.
bool applyCommon(const std::string& flag, const std::string& value, CliArguments& arguments) {
    if (flag == "--data-dir") {
        arguments.dataDir = value;
        return true;
    }
    if (flag == "--no-color") {
        arguments.noColor = true;
        return true;
    }
    if (flag == "--remote") {
        arguments.remote = value;
        return true;
    }
    return false;
}

Result<RunCommand> buildRun(const Scanned& scanned, CliArguments& arguments) {
    RunCommand run;
    for (const auto& [flag, value] : scanned.options) {
        if (applyCommon(flag, value, arguments))
            continue;
        if (flag == "--workspace") {
            run.workspace = value;
        } else if (flag == "--provider") {
            if (const auto choice = control::ProviderChoice::parse(value); choice.isScripted() && choice.scriptFile().empty())
                return usageError(flag + ": scripted: needs a file, as in scripted:demo.json");
            run.provider = value;
        } else if (flag == "--model") {
            run.model = value;
        } else if (flag == "--preset") {
            auto presets = commaList(flag, value, "preset name");
            if (!presets)
                return presets.error();
            run.presets.insert(run.presets.end(), presets->begin(), presets->end());
        } else if (flag == "--set") {
            const auto eq = value.find('=');
            if (eq == std::string::npos)
                return usageError(flag + ": expected KEY=VALUE, got " + singleQuoted(value));
            if (eq == 0)
                return usageError(flag + ": the key before '=' is empty in " + singleQuoted(value));
            run.settings.emplace_back(value.substr(0, eq), value.substr(eq + 1));
        } else if (flag == "--backend") {
            auto parsed = backendOption(flag, value);
            if (!parsed)
                return parsed.error();
            run.backend = *parsed;
        } else if (flag == "--image") {
            if (auto status = checkImage(flag, value); !status)
                return status.error();
            run.image = value;
        } else if (flag == "--agent") {
            auto agent = protocol::parseAgentKind(value);
            if (!agent)
                return usageError(flag + ": expected " + protocol::agentKindNames() + ", got " + singleQuoted(value));
            run.agent = *agent;
        } else if (flag == "--agent-path") {
            run.agentPath = value;
        } else if (flag == "--network") {
            if (auto status = checkNetwork(flag, value); !status)
                return status.error();
            run.network = value;
        } else if (flag == "--secret") {
            auto names = commaList(flag, value, "secret name");
            if (!names)
                return names.error();
            for (const std::string& name : *names)
                if (auto valid = control::validateSecretName(name); !valid)
                    return usageError(flag + " " + name + ": " + valid.error().message);
            run.secrets.insert(run.secrets.end(), names->begin(), names->end());
        } else if (flag == "--resolve") {
            if (auto pinned = control::parsePinnedAddress(value); !pinned)
                return usageError(pinned.error().message);
            run.resolve.push_back(value);
        } else if (flag == "--egress-ca") {
            run.egressCa = value;
        } else if (flag == "--mcp-config") {
            run.mcpConfigs.push_back(value);
        } else if (flag == "--approve") {
            if (auto status = oneOf(flag, value, {"ask", "auto", "deny"}); !status)
                return status.error();
            run.approve = value;
        } else if (flag == "--json") {
            run.json = true;
        } else if (flag == "--timeout") {
            auto seconds = positiveNumber(flag, value, "seconds");
            if (!seconds)
                return seconds.error();
            run.timeoutSec = *seconds;
        } else if (flag == "--token-budget") {
            auto tokens = positiveNumber(flag, value, "tokens");
            if (!tokens)
                return tokens.error();
            run.tokenBudget = *tokens;
        }
    }
    for (const auto& word : scanned.words)
        run.prompt += (run.prompt.empty() ? "" : " ") + word;
    if (run.prompt.find_first_not_of(" \t\n") == std::string::npos)
        return usageError("warren run: PROMPT is missing: warren run [OPTION]... \"what the agent should do\"");
    if (run.agentPath && run.agent && !protocol::isCliAgent(*run.agent))
        return usageError("--agent-path names a CLI's executable; Warren's own agent is built in: drop --agent-path "
                          "or choose --agent claude-code or codex");
    return run;
}

// Exactly the positional words named in names ("TASK", "DIR"), each non-empty.
Result<std::vector<std::string>> takeWords(std::string_view command, const Scanned& scanned,
                                           std::initializer_list<std::string_view> names) {
    const std::vector<std::string>& words = scanned.words;
    std::size_t i = 0;
    for (auto name : names) {
        if (i >= words.size() || words[i].empty()) {
            std::string message = "warren " + std::string(command) + ": " + std::string(name) + " is missing";
            if (name == "TASK")
                message += " ('warren tasks' lists the task ids)";
            return usageError(message);
        }
        ++i;
    }
    if (words.size() > names.size())
        return usageError("warren " + std::string(command) + ": unexpected argument " + singleQuoted(words[names.size()]) +
                          " (usage: warren " + std::string(findCommand(command)->synopsis) + ")");
    return std::vector<std::string>(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(names.size()));
}

// What every command but run shares: its words and options as scanned, and the options several commands
// take, read once.
struct Invocation {
    std::string_view name;
    const Scanned& scanned;
    CliArguments& arguments;
    bool json = false;
    std::optional<std::string> approve, image;
    std::optional<sandbox::Backend> backend;
};

Result<CliCommand> buildRunCommand(Invocation& call) {
    auto run = buildRun(call.scanned, call.arguments);
    if (!run)
        return run.error();
    return CliCommand(std::move(run).value());
}

Result<CliCommand> buildTasks(Invocation& call) {
    if (auto words = takeWords(call.name, call.scanned, {}); !words)
        return words.error();
    return CliCommand(TasksCommand{call.json});
}

Result<CliCommand> buildDoctor(Invocation& call) {
    if (auto words = takeWords(call.name, call.scanned, {}); !words)
        return words.error();
    return CliCommand(DoctorCommand{call.json});
}

Result<CliCommand> buildVersion(Invocation& call) {
    if (auto words = takeWords(call.name, call.scanned, {}); !words)
        return words.error();
    return CliCommand(VersionCommand{});
}

Result<CliCommand> buildShow(Invocation& call) {
    auto words = takeWords(call.name, call.scanned, {"TASK"});
    if (!words)
        return words.error();
    return CliCommand(ShowCommand{std::move(words->front()), call.json});
}

Result<CliCommand> buildResume(Invocation& call) {
    auto words = takeWords(call.name, call.scanned, {"TASK"});
    if (!words)
        return words.error();
    return CliCommand(ResumeCommand{std::move(words->front()), call.json, call.approve, call.backend, call.image});
}

Result<CliCommand> buildCancel(Invocation& call) {
    auto words = takeWords(call.name, call.scanned, {"TASK"});
    if (!words)
        return words.error();
    return CliCommand(CancelCommand{std::move(words->front())});
}

Result<CliCommand> buildReply(Invocation& call) {
    const Scanned& scanned = call.scanned;
    if (scanned.words.empty() || scanned.words.front().empty())
        return usageError("warren reply: TASK is missing ('warren tasks' lists the task ids)");
    ReplyCommand reply{scanned.words.front(), {}, call.json, call.approve};
    for (std::size_t i = 1; i < scanned.words.size(); ++i)
        reply.message += (reply.message.empty() ? "" : " ") + scanned.words[i];
    if (reply.message.find_first_not_of(" \t\n") == std::string::npos)
        return usageError("warren reply: MESSAGE is missing: warren reply TASK \"what the agent should do next\"");
    return CliCommand(std::move(reply));
}

Result<CliCommand> buildExport(Invocation& call) {
    auto words = takeWords(call.name, call.scanned, {"TASK", "DIR"});
    if (!words)
        return words.error();
    return CliCommand(ExportCommand{(*words)[0], (*words)[1]});
}

Result<CliCommand> buildDiff(Invocation& call) {
    auto words = takeWords(call.name, call.scanned, {"TASK"});
    if (!words)
        return words.error();
    DiffCommand diff{words->front(), std::nullopt};
    for (const auto& [flag, value] : call.scanned.options)
        if (flag == "--step") {
            auto step = positiveNumber(flag, value, "steps");
            if (!step)
                return step.error();
            diff.step = *step;
        }
    return CliCommand(std::move(diff));
}

Result<CliCommand> buildRewind(Invocation& call) {
    auto words = takeWords(call.name, call.scanned, {"TASK"});
    if (!words)
        return words.error();
    RewindCommand rewind{words->front(), std::nullopt, {}, false, false, true, false, false, {}};
    bool undo = false, files = false, workspace = false;
    for (const auto& [flag, value] : call.scanned.options) {
        if (flag == "--to-step") {
            auto step = positiveNumber(flag, value, "steps");
            if (!step)
                return step.error();
            rewind.toStep = *step;
        } else if (flag == "--undo") {
            undo = true;
        } else if (flag == "--path") {
            rewind.paths.push_back(value);
        } else if (flag == "--check") {
            rewind.check = true;
        } else if (flag == "--yes") {
            rewind.yes = true;
        } else if (flag == "--files") {
            files = true;
        } else if (flag == "--conversation") {
            rewind.conversation = true;
        } else if (flag == "--fork") {
            rewind.fork = true;
        } else if (flag == "--workspace") {
            workspace = true;
            rewind.workspace = value;
        }
    }
    if (workspace && !rewind.fork)
        return usageError("warren rewind: --workspace names a fork's workspace; add --fork");
    if (rewind.fork && (undo || files || rewind.conversation || !rewind.paths.empty() || rewind.check))
        return usageError("warren rewind: --fork takes the files and the conversation of one step into a new "
                          "task, touching nothing else: --to-step N --fork [--workspace DIR], nothing more");
    rewind.files = files || !rewind.conversation;
    if ((rewind.conversation || files) && undo)
        return usageError("warren rewind: --undo takes back what the last rewind did (its files, its "
                          "conversation or both); it takes no --files or --conversation");
    if (rewind.conversation && !rewind.paths.empty() && !files)
        return usageError("warren rewind: --path narrows the files; add --files to rewind them with the "
                          "conversation");
    if (undo == rewind.toStep.has_value())
        return usageError("warren rewind: say where to: --to-step N (before step N ran) or --undo (before "
                          "the last rewind)");
    return CliCommand(std::move(rewind));
}

Result<CliCommand> buildApply(Invocation& call) {
    auto words = takeWords(call.name, call.scanned, {"TASK"});
    if (!words)
        return words.error();
    ApplyCommand apply{words->front(), std::nullopt, false};
    for (const auto& [flag, value] : call.scanned.options) {
        if (flag == "--workspace")
            apply.workspace = value;
        else if (flag == "--check")
            apply.check = true;
    }
    if (!call.arguments.remote)
        return usageError("warren apply: --remote URL is missing: apply brings home the change of a task that "
                          "ran on that server");
    return CliCommand(std::move(apply));
}

Result<CliCommand> buildMove(Invocation& call) {
    auto words = takeWords(call.name, call.scanned, {"TASK"});
    if (!words)
        return words.error();
    MoveCommand move{words->front(), {}, std::nullopt};
    for (const auto& [flag, value] : call.scanned.options) {
        if (flag == "--to")
            move.to = value;
        else if (flag == "--workspace")
            move.workspace = value;
    }
    if (move.to.empty())
        return usageError("warren move: --to URL is missing: the warrend the task goes on at (or local, with "
                          "--remote URL: home)");
    const bool home = move.to == kMovedHome;
    if (home != call.arguments.remote.has_value())
        return usageError(
            home ? "warren move: --to local needs --remote URL, the warrend the task comes from"
                 : "warren move: --remote URL goes with --to local; a task of this machine goes to "
                   "a warrend with --to URL");
    if (move.workspace && !home)
        return usageError("warren move: --workspace goes with --to local");
    return CliCommand(std::move(move));
}

Result<CliCommand> buildHelp(Invocation& call) {
    const Scanned& scanned = call.scanned;
    if (scanned.words.size() > 1)
        return usageError("warren help: takes at most one COMMAND, got " + singleQuoted(scanned.words[1]));
    if (scanned.words.empty())
        return CliCommand(HelpCommand{});
    if (!findCommand(scanned.words[0]))
        return usageError("warren help: unknown command " + singleQuoted(scanned.words[0]));
    return CliCommand(HelpCommand{scanned.words[0]});
}

Result<CliCommand> buildSecrets(Invocation& call) {
    const std::vector<std::string>& words = call.scanned.words;
    if (!words.empty() && words[0] == "list") {
        if (words.size() > 1)
            return usageError("warren secrets list: unexpected argument " + singleQuoted(words[1]));
        for (const auto& [flag, value] : call.scanned.options)
            if (flag == "--host" || flag == "--header" || flag == "--in-body")
                return usageError("warren secrets list: takes no " + flag);
        return CliCommand(SecretsListCommand{});
    }
    if (words.empty() || (words[0] != "set" && words[0] != "delete"))
        return usageError("warren secrets: expected set, delete or list" +
                          (words.empty() ? std::string() : ", got " + singleQuoted(words[0])) +
                          " (warren secrets set NAME reads the key from stdin)");
    if (words.size() < 2 || words[1].empty())
        return usageError("warren secrets " + words[0] + ": NAME is missing (the provider whose key it is)");
    if (words.size() > 2) {
        if (words[0] == "set")
            return usageError("warren secrets set: takes only NAME; the key is read from stdin, never from the "
                              "command line, where other users and the shell history would see it");
        return usageError("warren secrets delete: unexpected argument " + singleQuoted(words[2]));
    }
    SecretsSetCommand set{words[1], std::nullopt, std::nullopt};
    for (const auto& [flag, value] : call.scanned.options) {
        if (flag == "--host")
            set.hosts = value;
        else if (flag == "--header")
            set.header = value;
        else if (flag == "--in-body")
            set.inBody = true;
    }
    if (words[0] == "delete") {
        if (set.hosts || set.header || set.inBody)
            return usageError("warren secrets delete NAME: takes no --host, --header or --in-body");
        return CliCommand(SecretsDeleteCommand{words[1]});
    }
    if ((set.header || set.inBody) && !set.hosts)
        return usageError("warren secrets set: --header and --in-body need --host, the hosts the secret is sent to");
    if (!set.hosts && call.arguments.remote)
        return usageError("warren secrets set --remote: only a secret for hosts (--host) is kept on a server; its "
                          "key for you is `warren secrets set remote`, without --remote");
    if (set.hosts)
        if (auto binding = control::parseSecretBinding(set.name, *set.hosts, set.header.value_or("")); !binding)
            return usageError("warren secrets set " + set.name + ": " + binding.error().message);
    return CliCommand(std::move(set));
}

Result<CliCommand> buildCommand(const CommandInfo& info, const Scanned& scanned, CliArguments& arguments) {
    Invocation call{info.name, scanned, arguments, false, std::nullopt, std::nullopt, std::nullopt};
    if (info.name == "run") // run reads all of its own options
        return info.build(call);
    for (const auto& [flag, value] : scanned.options) {
        if (applyCommon(flag, value, arguments))
            continue;
        if (flag == "--json") {
            call.json = true;
        } else if (flag == "--approve") {
            if (auto status = oneOf(flag, value, {"ask", "auto", "deny"}); !status)
                return status.error();
            call.approve = value;
        } else if (flag == "--backend") {
            auto parsed = backendOption(flag, value);
            if (!parsed)
                return parsed.error();
            call.backend = *parsed;
        } else if (flag == "--image") {
            if (auto status = checkImage(flag, value); !status)
                return status.error();
            call.image = value;
        }
    }
    return info.build(call);
}

std::string unknownCommand(const std::string& word) {
    std::string message = "unknown command " + singleQuoted(word);
    if (word.find(' ') != std::string::npos)
        return message + "; to run a task: warren run \"" + word + "\"";
    std::vector<std::string_view> names;
    for (const auto& command : kCommands)
        names.push_back(command.name);
    if (const std::string guess = closest(word, names); !guess.empty())
        return message + "; did you mean " + singleQuoted(guess) + "?";
    return message + "; see 'warren --help'";
}

std::string optionLines(std::span<const OptionSpec> options) {
    std::string text;
    for (const auto& option : options) {
        std::string left = "  " + std::string(option.name);
        if (!option.valueName.empty())
            left += " " + std::string(option.valueName);
        left.resize(std::max<std::size_t>(left.size() + 2, 26), ' ');
        text += left + std::string(option.help) + "\n";
    }
    return text;
}

} // namespace

Result<CliArguments> parseCliArguments(const std::vector<std::string>& args) {
    CliArguments arguments;
    // Options before the command: the ones every command takes, --help and --version.
    auto leading = scan("", args, kTopLevelOptions, true);
    if (!leading)
        return leading.error();
    bool version = false;
    for (const auto& [flag, value] : leading->options) {
        if (!applyCommon(flag, value, arguments))
            version = version || flag == "--version";
    }
    const bool help = leading->help;
    const std::size_t i = leading->consumed;
    if (help) {
        arguments.command = HelpCommand{};
        return arguments;
    }
    if (version) {
        arguments.command = VersionCommand{};
        return arguments;
    }
    if (i >= args.size())
        return arguments; // the window
    const CommandInfo* info = findCommand(args[i]);
    if (!info)
        return usageError(unknownCommand(args[i]));
    auto scanned = scan(info->name, std::span<const std::string>(args).subspan(i + 1), info->options);
    if (!scanned)
        return scanned.error();
    if (scanned->help) {
        arguments.command = HelpCommand{std::string(info->name == "help" ? "" : info->name)};
        return arguments;
    }
    auto command = buildCommand(*info, *scanned, arguments);
    if (!command)
        return command.error();
    arguments.command = std::move(command).value();
    return arguments;
}

std::string usageText(std::string_view command) {
    if (const CommandInfo* info = findCommand(command); info && info->name != "help") {
        return "Usage: warren " + std::string(info->synopsis) + "\n" + std::string(info->summary) + ".\n\n" +
               "Options:\n" + optionLines(info->options);
    }
    std::string text = "Usage: warren [COMMAND] [OPTION]...\n"
                       "Run AI agents on this machine, each in its own sandbox, and watch what they do.\n"
                       "Without a command, warren opens its window.\n\nCommands:\n";
    for (const auto& info : kCommands) {
        std::string left = "  warren " + std::string(info.synopsis);
        left.resize(std::max<std::size_t>(left.size() + 2, 48), ' ');
        text += left + std::string(info.summary) + "\n";
    }
    text += "\nOptions of warren run:\n" + optionLines(kRunOptions);
    text += "\nEvery command also takes --data-dir DIR, --no-color and --help; run, tasks, show, resume, reply,\n"
            "cancel, export and apply take --remote URL to drive a warrend instead of this machine.\n"
            "'warren help COMMAND' shows one command's options.\n\n"
            "Exit status: 0 success, 1 the task failed, 2 usage error, 3 the sandbox is unavailable\n"
            "(run 'warren doctor' to see why).\n";
    return text;
}

} // namespace warren::control
