#include "app/cli/Commands.h"

#include "agent_core/config/AgentConfig.h"
#include "agent_core/protocol/Timestamp.h"
#include "app/cli/ApprovalQuestion.h"
#include "app/cli/LiveView.h"
#include "app/cli/McpConfigFile.h"
#include "app/cli/ReviewCommands.h"
#include "app/cli/TerminalQuestions.h"
#include "app/control/LocalControlPlane.h"
#include "app/control/McpServerSettings.h"
#include "app/control/WaitFor.h"
#include "app/egress/NetworkQuestion.h"
#include "app/engine/AgentBinary.h"
#include "app/providers/ProviderConfig.h"
#include "app/remote/RemoteControlPlane.h"
#include "app/remote/TaskMoves.h"
#include "app/secretproxy/HostSecret.h"
#include "app/secrets/SecretStore.h"
#include "app/tasks/ProviderKey.h"
#include "common/FileText.h"
#include "sandbox/Preflight.h"
#include "sandbox/container/WarmPool.h"
#include "sandbox/policy/SandboxProfile.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

namespace warren::control {

using nlohmann::json;

namespace {

int usageError(const std::string& message) {
    std::cerr << "warren: " << message << "\n";
    return kExitUsage;
}

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// The model a command uses: the flags, else WARREN_PROVIDER / WARREN_MODEL, else the stored setting. An empty
// provider means none: `warren run` plays the demo.
struct ModelChoice {
    std::string provider;
    std::string model;
};

ModelChoice chooseModel(const std::optional<std::string>& providerFlag, const std::optional<std::string>& modelFlag,
                        const Settings& settings) {
    ModelChoice choice{providerFlag.value_or(environment("WARREN_PROVIDER")),
                       modelFlag.value_or(environment("WARREN_MODEL"))};
    if (choice.provider.empty()) {
        choice.provider = settings.provider;
        if (choice.model.empty())
            choice.model = settings.model;
    }
    return choice;
}

Result<std::unique_ptr<LocalControlPlane>> openLocalPlane(const CliArguments& arguments) {
    LocalOptions options;
    options.dataDir = arguments.dataDir.value_or("");
    return LocalControlPlane::open(std::move(options));
}

Result<std::unique_ptr<remote::RemoteControlPlane>> openRemotePlane(const CliArguments& arguments,
                                                                    const std::string& url) {
    remote::RemoteOptions options;
    options.url = QString::fromStdString(url);
    options.dataDir = arguments.dataDir.value_or("");
    return waitFor<std::unique_ptr<remote::RemoteControlPlane>>(
        [&](auto done) { remote::RemoteControlPlane::open(std::move(options), done); });
}

// The warrend named by --remote, else this machine's control plane.
Result<std::unique_ptr<ControlPlane>> openPlane(const CliArguments& arguments) {
    if (arguments.remote) {
        auto plane = openRemotePlane(arguments, *arguments.remote);
        if (!plane)
            return plane.error();
        return std::unique_ptr<ControlPlane>(std::move(*plane));
    }
    auto plane = openLocalPlane(arguments);
    if (!plane)
        return plane.error();
    return std::unique_ptr<ControlPlane>(std::move(*plane));
}

bool colorWanted(const CliArguments& arguments) {
    return !arguments.noColor && isatty(STDOUT_FILENO) && environment("NO_COLOR").empty();
}

int exitStatusFor(const TaskRecord& task) {
    if (task.status == TaskStatus::Succeeded || task.status == TaskStatus::Waiting)
        return kExitOk; // waiting: the run handed the turn to the user, as an attended run does
    if (task.finishReason == "sandbox")
        return kExitSandboxUnavailable;
    return kExitTaskFailed;
}

std::uint64_t elapsedMs(const TaskRecord& task) {
    auto started = protocol::parseTimestamp(task.startedAt);
    auto finished = protocol::parseTimestamp(task.finishedAt);
    if (!started || !finished || *finished < *started)
        return 0;
    return static_cast<std::uint64_t>(*finished - *started);
}

// The first letter of the user's answer, lowercase ('n' for an empty line).
char answerLetter(const std::string& line) {
    return line.empty() ? 'n' : static_cast<char>(std::tolower(static_cast<unsigned char>(line[0])));
}

// Asks on the terminal: y (once), n (deny, with an optional note), a (always for this task), and for a plain
// shell command c (every command starting with its program and subcommand, from now on: kept in Settings).
void askOnTerminal(TerminalQuestions& terminal, ControlPlane& plane, const ApprovalRecord& approval) {
    const auto prefix = callCommandPrefix(approval.tool, json::parse(approval.arguments, nullptr, false));
    const std::string prompt = approvalQuestion(approval.tool, approval.arguments, approval.reason, prefix);
    terminal.ask(prompt, [&terminal, &plane, approval, prefix](std::optional<std::string> line) {
        if (!line)
            return plane.answerApproval(approval.taskId, approval.callId, false, "no answer (stdin closed)", false);
        const char first = answerLetter(*line);
        if (first == 'c' && prefix)
            return plane.allowCommands(approval.taskId, *prefix, [&plane, approval](Status allowed) {
                if (!allowed)
                    std::cerr << "warren: " << allowed.error().message << "; approved this once\n";
                plane.answerApproval(approval.taskId, approval.callId, true, "", false);
            });
        if (first == 'y' || first == 'a')
            return plane.answerApproval(approval.taskId, approval.callId, true, "", first == 'a');
        terminal.askNext("  note for the agent (optional): ", [&plane, approval](std::optional<std::string> note) {
            plane.answerApproval(approval.taskId, approval.callId, false, note.value_or(""), false);
        });
    });
}

// A network question (`--network ask`): y (once), t (for the rest of this task), w (always for this
// workspace: kept in Settings), n (refused, for the rest of this task).
void askNetworkOnTerminal(TerminalQuestions& terminal, ControlPlane& plane, const ApprovalRecord& approval,
                          const NetworkQuestion& question) {
    const std::string prompt = "\n? the agent wants to reach " + question.target() + " (" + question.method +
                               "), which the task's --network does not list"
                               "\n  allow? [y]es, once / [t]his task / [w]orkspace, always / [n]o: ";
    terminal.ask(prompt, [&plane, approval](std::optional<std::string> line) {
        if (!line)
            return plane.answerApproval(approval.taskId, approval.callId, false, "no answer (stdin closed)", false);
        const char first = answerLetter(*line);
        if (first == 'w')
            return plane.allowHostInWorkspace(approval.taskId, approval.callId, [&plane, approval](Status allowed) {
                if (allowed)
                    return;
                std::cerr << "warren: " << allowed.error().message << "; allowed for this task\n";
                plane.answerApproval(approval.taskId, approval.callId, true, "", true);
            });
        const bool approved = first == 'y' || first == 't';
        plane.answerApproval(approval.taskId, approval.callId, approved, "", first == 't');
    });
}

// Follows one task until it ends: prints each event (live view or JSON lines), answers approvals, and
// turns Ctrl-C into a cancel (a second Ctrl-C kills at once). Returns the exit status.
int follow(ControlPlane& plane, const std::string& taskId, bool jsonLines, bool color, ApprovalMode mode) {
    LiveViewOptions options;
    options.color = color;
    options.taskId = taskId;
    LiveView view(options);
    TerminalQuestions terminal(STDIN_FILENO);
    QObject::connect(&plane, &ControlPlane::eventStored, &plane, [&](const std::string& id, const json& event) {
        if (id != taskId)
            return;
        if (jsonLines)
            std::cout << event.dump(-1, ' ', false, json::error_handler_t::replace) << "\n" << std::flush;
        else
            std::cout << view.render(event) << std::flush;
    });
    QObject::connect(&plane, &ControlPlane::approvalNeeded, &plane, [&](const ApprovalRecord& approval) {
        if (approval.taskId != taskId)
            return;
        // Not a tool call: --approve auto does not open the network; deny refuses it as it refuses calls.
        if (const auto question = NetworkQuestion::fromApproval(approval.tool, json::parse(approval.arguments, nullptr, false))) {
            if (mode == ApprovalMode::Deny)
                plane.answerApproval(approval.taskId, approval.callId, false, "--approve deny", false);
            else
                askNetworkOnTerminal(terminal, plane, approval, *question);
            return;
        }
        if (mode == ApprovalMode::Ask)
            askOnTerminal(terminal, plane, approval);
        else
            plane.answerApproval(approval.taskId, approval.callId, mode == ApprovalMode::Auto, "", false);
    });
    for (auto problem : {&ControlPlane::storeProblem, &ControlPlane::connectionProblem, &ControlPlane::keyRejected})
        QObject::connect(&plane, problem, &plane, [](const QString& message) {
            std::cerr << "warren: " << message.toStdString() << "\n";
        });
    QObject::connect(&plane, &ControlPlane::connectionRestored, &plane,
                     [] { std::cerr << "warren: connected again; the task's events go on\n"; });
    int status = kExitTaskFailed;
    QObject::connect(&plane, &ControlPlane::taskFinished, &plane, [&](const std::string& id) {
        if (id != taskId)
            return;
        plane.task(taskId, [&](Result<std::optional<TaskRecord>> record) {
            if (record && *record) {
                const TaskRecord& task = **record;
                // Asleep, or already woken by an answer: the task goes on, and so does this wait.
                if (task.status == TaskStatus::Sleeping) {
                    std::cerr << "warren: the task sleeps until its question is answered (its sandbox was "
                                 "released); answering wakes it\n";
                    return;
                }
                if (task.status == TaskStatus::Queued || task.status == TaskStatus::Running)
                    return;
                status = exitStatusFor(task);
                if (!jsonLines)
                    std::cout << view.summary(taskStatusName(task.status), task.steps, task.tokensIn, task.tokensOut,
                                              elapsedMs(task));
                if (!task.error.empty())
                    std::cerr << "warren: " << task.error << "\n";
                if (task.status == TaskStatus::Interrupted || task.status == TaskStatus::Paused)
                    std::cerr << "warren: resume with `warren resume " << task.id << "`\n";
                if (task.status == TaskStatus::Waiting)
                    std::cerr << "warren: answer with `warren reply " << task.id << " \"...\"`\n";
            }
            QCoreApplication::exit(0);
        });
    });

    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    sigprocmask(SIG_BLOCK, &stopSignals, nullptr);
    const int signalFd = signalfd(-1, &stopSignals, SFD_CLOEXEC);
    QSocketNotifier notifier(signalFd, QSocketNotifier::Read);
    int interrupts = 0;
    QObject::connect(&notifier, &QSocketNotifier::activated, &plane, [&] {
        signalfd_siginfo info{};
        if (read(signalFd, &info, sizeof info) != sizeof info)
            return;
        if (++interrupts == 1) {
            std::cerr << "\nwarren: cancelling the task (Ctrl-C again to kill it now)\n";
            plane.cancel(taskId, [taskId](Status cancelled) {
                if (!cancelled)
                    std::cerr << "warren: " << cancelled.error().message << "\n";
            });
        } else {
            std::cerr << "\nwarren: killed; `warren resume " << taskId << "` continues from the last checkpoint\n";
            QCoreApplication::exit(0);
            status = 130;
        }
    });
    QCoreApplication::exec();
    close(signalFd);
    return status;
}

Result<ApprovalMode> approvalMode(const std::optional<std::string>& flag, bool jsonLines) {
    if (flag)
        return parseApprovalMode(*flag);
    // Asking needs a person at a terminal; otherwise fail closed.
    return isatty(STDIN_FILENO) && !jsonLines ? ApprovalMode::Ask : ApprovalMode::Deny;
}

int run(const CliArguments& arguments, const RunCommand& command) {
    TaskSpec spec;
    spec.presets = command.presets;
    for (const auto& [key, value] : command.settings)
        if (auto added = agent::addOverride(spec.overrides, key + "=" + value); !added)
            return usageError(added.error().message);
    if (!command.mcpConfigs.empty()) { // read here: the file is this machine's, the servers run in the sandbox
        nlohmann::json servers = spec.overrides.value("mcp_servers", nlohmann::json::object());
        for (const std::string& file : command.mcpConfigs) {
            auto text = readFileText(file);
            if (!text)
                return usageError("--mcp-config " + file + ": " + text.error().message);
            if (auto added = cli::addMcpConfig(servers, *text, file); !added)
                return usageError(added.error().message);
        }
        spec.overrides["mcp_servers"] = std::move(servers);
    }
    auto mode = approvalMode(command.approve, command.json);
    if (!mode)
        return usageError(mode.error().message);
    spec.approval = *mode;
    spec.timeoutSec = command.timeoutSec.value_or(0);
    spec.tokenBudget = command.tokenBudget.value_or(0);
    // Someone at a terminal reads the agent's replies and can answer them (warren reply); a script cannot.
    spec.attended = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && !command.json;

    if (arguments.remote && (command.backend || command.image))
        return usageError("run: the server decides which sandbox its tasks run in; drop --backend and --image with "
                          "--remote");
    if (arguments.remote && command.agentPath)
        return usageError("run: a server runs its operator's install of the CLI; drop --agent-path with --remote");
    if (arguments.remote && (!command.resolve.empty() || command.egressCa))
        return usageError("run: --resolve and --egress-ca are this machine's; a server's are its operator's "
                          "(warrend serve --resolve, --egress-ca): drop them with --remote");
    auto plane = openPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    ControlPlane& local = **plane;

    auto settings = local.settings();
    if (!settings)
        return usageError(settings.error().message);
    const auto [provider, model] = chooseModel(command.provider, command.model, *settings);
    if (command.presets.empty())
        spec.presets = settings->presets;
    // The user's MCP servers from Settings, as the window's tasks get them; this task's own win by name.
    // (Anything but an object of its own is left for the spec's check to refuse.)
    if (const auto own = spec.overrides.find("mcp_servers");
        !settings->mcpServers.empty() && (own == spec.overrides.end() || own->is_object()))
        spec.overrides["mcp_servers"] = withUsersMcpServers(
            settings->mcpServers, own == spec.overrides.end() ? json::object() : *own);
    // The sandbox: --backend/--image/--network, else the stored setting (bwrap and no network unless the
    // user chose otherwise).
    spec.backend = command.backend.value_or(settings->backend);
    spec.image = command.image.value_or(settings->image);
    spec.network = command.network.value_or(settings->network);
    spec.agent = command.agent.value_or(settings->agent);
    spec.agentPath = command.agentPath.value_or("");
    spec.secrets = command.secrets;
    spec.resolve = command.resolve;
    if (command.egressCa)
        spec.egressCa = std::filesystem::absolute(*command.egressCa).string();
    if (!spec.agentPath.empty() && !protocol::isCliAgent(spec.agent))
        return usageError("run: --agent-path names a CLI's executable, and the agent is Warren's own; add --agent "
                          "claude-code or --agent codex");
    spec.model = model;
    Result<TaskRecord> task = makeError(ErrorCode::InvalidArgument, "");
    if (command.demo || provider.empty()) { // the demo is a recording of Warren's own agent
        if (command.agent && protocol::isCliAgent(*command.agent))
            return usageError("run: " + std::string(protocol::agentKindName(*command.agent)) +
                              " talks to a model; choose one with --provider and --model");
        spec.agent = protocol::AgentKind::Warren;
        spec.agentPath.clear();
    }
    if (command.demo) {
        std::cerr << "warren: no display for the window, so this is the scripted demo, headless: a recorded agent "
                     "fixes a failing test in a copy of the demo workspace.\n       `warren help` lists the "
                     "commands; `warren run PROMPT` runs a task.\n";
        task = waitFor<TaskRecord>([&](auto done) { local.submitDemo(spec, done); });
    } else if (provider.empty()) {
        std::cerr << "warren: no model is configured, so this is the scripted demo: a recorded agent fixes a "
                     "failing test in a copy of the demo workspace.\n       Use a real model with --provider "
                     "openai|anthropic|ollama|... --model NAME (keys: `warren secrets set NAME`).\n";
        task = waitFor<TaskRecord>([&](auto done) { local.submitDemo(spec, done); });
    } else {
        if (command.prompt.empty())
            return usageError("run: what should the agent do? Give the task as the last argument");
        spec.provider = provider;
        if (auto config = parseProviderSpec(provider, model); !config)
            return usageError(config.error().message);
        task = waitFor<TaskRecord>(
            [&](auto done) { local.submit(command.prompt, command.workspace.value_or("."), spec, done); });
    }
    if (!task)
        return usageError(task.error().message);
    if (!command.json)
        std::cerr << "warren: task " << task->id << " in " << task->workspace
                  << (arguments.remote ? " on " + local.describe() : std::string()) << "\n";
    return follow(local, task->id, command.json, colorWanted(arguments), spec.approval);
}

// How a task that goes on answers approvals: --approve, else as it was started.
Result<ApprovalMode> continuingMode(ControlPlane& plane, const std::string& taskId,
                                    const std::optional<std::string>& approve) {
    auto record = waitFor<std::optional<TaskRecord>>([&](auto done) { plane.task(taskId, done); });
    if (!record)
        return record.error();
    if (!*record)
        return makeError(ErrorCode::NotFound, "no task " + taskId + "; `warren tasks` lists them");
    if (approve)
        return parseApprovalMode(*approve);
    auto spec = TaskSpec::fromText((*record)->spec);
    if (!spec)
        return spec.error();
    return spec->approval;
}

// resume and reply: the task goes on, followed live as run follows a new one.
int continueTask(const CliArguments& arguments, const std::string& taskId,
                 const std::optional<std::string>& approve, bool jsonOutput,
                 const std::function<void(ControlPlane&, Done<Ok>)>& action) {
    auto plane = openPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    auto mode = continuingMode(**plane, taskId, approve);
    if (!mode)
        return usageError(mode.error().message);
    if (auto continued = waitFor<Ok>([&](auto done) { action(**plane, done); }); !continued)
        return usageError(continued.error().message);
    return follow(**plane, taskId, jsonOutput, colorWanted(arguments), *mode);
}

int resume(const CliArguments& arguments, const ResumeCommand& command) {
    return continueTask(arguments, command.taskId, command.approve, command.json,
                        [&](ControlPlane& plane, Done<Ok> done) {
                            plane.resume(command.taskId, {command.backend, command.image}, done);
                        });
}

int reply(const CliArguments& arguments, const ReplyCommand& command) {
    return continueTask(arguments, command.taskId, command.approve, command.json,
                        [&](ControlPlane& plane, Done<Ok> done) { plane.reply(command.taskId, command.message, done); });
}

int tasks(const CliArguments& arguments, const TasksCommand& command) {
    auto plane = openPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    auto all = waitFor<std::vector<TaskRecord>>([&](auto done) { (*plane)->tasks(done); });
    if (!all)
        return usageError(all.error().message);
    for (const auto& task : *all) {
        if (command.json) {
            std::cout << toJson(task).dump() << "\n";
            continue;
        }
        const auto spec = TaskSpec::fromText(task.spec);
        std::string title = (spec && spec->demo ? "[demo] " : "") +
                            task.prompt.substr(0, task.prompt.find('\n'));
        if (title.size() > 60)
            title = title.substr(0, 59) + "…";
        std::printf("%-15s %-11s %5llu steps %8llu tok  %s\n", task.id.c_str(), taskStatusName(task.status),
                    static_cast<unsigned long long>(task.steps),
                    static_cast<unsigned long long>(task.tokensIn + task.tokensOut), title.c_str());
    }
    return kExitOk;
}

int show(const CliArguments& arguments, const ShowCommand& command) {
    auto plane = openPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    auto record = waitFor<std::optional<TaskRecord>>([&](auto done) { (*plane)->task(command.taskId, done); });
    if (!record || !*record)
        return usageError(record ? "no task " + command.taskId + "; `warren tasks` lists them" : record.error().message);
    auto events = waitFor<std::vector<json>>([&](auto done) { (*plane)->events(command.taskId, 0, done); });
    if (!events)
        return usageError(events.error().message);
    if (command.json) {
        for (const auto& event : *events)
            std::cout << event.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    const TaskRecord& task = **record;
    std::cout << "task " << task.id << " · " << taskStatusName(task.status) << " · " << task.workspace;
    if (!task.removedAt.empty()) // the retention period's doing: the events below are all that is left
        std::cout << " · files removed " << task.removedAt.substr(0, 10);
    std::cout << "\n";
    LiveViewOptions options;
    options.color = colorWanted(arguments);
    options.maxOutputLines = 0;
    options.taskId = task.id;
    LiveView view(options);
    for (const auto& event : *events)
        std::cout << view.render(event);
    std::cout << view.summary(taskStatusName(task.status), task.steps, task.tokensIn, task.tokensOut, elapsedMs(task));
    if (!task.error.empty())
        std::cout << task.error << "\n";
    return kExitOk;
}

int cancel(const CliArguments& arguments, const CancelCommand& command) {
    auto plane = openPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    if (auto cancelled = waitFor<Ok>([&](auto done) { (*plane)->cancel(command.taskId, done); }); !cancelled)
        return usageError(cancelled.error().message);
    std::cerr << "warren: asked task " << command.taskId << " to stop\n";
    return kExitOk;
}

int exportTask(const CliArguments& arguments, const ExportCommand& command) {
    auto plane = openPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    if (auto exported = waitFor<Ok>([&](auto done) { (*plane)->exportTask(command.taskId, command.directory, done); });
        !exported)
        return usageError(exported.error().message);
    std::cerr << "warren: exported " << command.taskId << " to " << command.directory
              << " (task.json, events.jsonl, output/)\n";
    return kExitOk;
}

int doctor(const CliArguments& arguments, const DoctorCommand& command) {
    const auto report = sandbox::runPreflight();
    json checks = json::array();
    auto add = [&](const std::string& name, const std::string& status, const std::string& detail,
                   const std::string& fix) {
        checks.push_back({{"name", name}, {"status", status}, {"detail", detail}, {"fix", fix}});
    };
    auto addReport = [&](const std::string& prefix, const sandbox::PreflightReport& preflight) {
        using Status = sandbox::PreflightCheck::Status;
        for (const auto& check : preflight.checks)
            add(prefix + check.name,
                check.status == Status::Ok ? "ok" : check.status == Status::Warning ? "warning" : "failed",
                check.detail, check.fix);
    };
    addReport("", report);
    auto agent = findAgentBinary(QCoreApplication::applicationDirPath().toStdString());
    add("warren-agent", agent ? "ok" : "failed", agent ? *agent : agent.error().message,
        agent ? "" : "install Warren completely or set WARREN_AGENT");
    auto plane = openLocalPlane(arguments);
    if (!plane) {
        add("data directory", "failed", plane.error().message, "pass --data-dir DIR with a writable directory");
    } else {
        add("data directory", "ok", (*plane)->dataDir().root, "");
        auto& secrets = (*plane)->secrets();
        const bool keychain = secrets.backend() == SecretStore::Backend::Keychain;
        add("keychain", keychain ? "ok" : "warning", keychain ? "API keys are kept in the OS keychain" : secrets.warning(),
            keychain ? "" : "install and unlock a Secret Service keyring (gnome-keyring, KeePassXC) and run doctor again");
        // What `warren run` would use: the environment, else the settings the window keeps.
        auto settings = (*plane)->settings();
        if (!settings)
            add("settings", "failed", settings.error().message, "set them again in the window's Settings");
        const Settings stored = settings ? *settings : Settings{};
        const auto [provider, model] = chooseModel(std::nullopt, std::nullopt, stored);
        if (provider.empty()) {
            add("model provider", "warning", "none configured: `warren run` runs the scripted demo",
                "choose one in the window's Settings, pass --provider and --model, or set WARREN_PROVIDER and "
                "WARREN_MODEL");
        } else if (auto config = parseProviderSpec(provider, model); !config) {
            add("model provider", "failed", config.error().message,
                "fix WARREN_PROVIDER / WARREN_MODEL or the model in Settings");
        } else if (auto key = lookUpKey(*config, &secrets); !key) {
            add("model provider", "failed", key.error().message, "store the key as the message says");
        } else {
            add("model provider", "ok", std::string(providerKindName(config->kind)) + " " + config->model + " at " +
                                            config->baseUrl + (config->keyName.empty() ? "" : ", key found"),
                "");
        }
        // The container backend, when the settings choose one: its own checks, on the chosen image.
        if (const auto engine = sandbox::containerEngine(stored.backend)) {
            const auto profile = sandbox::resolveProfile({sandbox::defaultProfileJson()});
            const auto engineReport = sandbox::runContainerPreflight(
                *engine, stored.image, profile ? profile->limits : sandbox::SandboxLimits{});
            addReport(sandbox::backendName(stored.backend) + " ", engineReport);
            if (stored.backend == sandbox::Backend::Podman && stored.warmContainers > 0)
                add("warm containers", "ok",
                    sandbox::warmStartsPossible(*engine, engineReport.engine.rootless)
                        ? "the window keeps " + std::to_string(stored.warmContainers) +
                              " per kind of podman task started ahead"
                        : "every podman task starts cold here: warm containers need Warren run as root with "
                          "rootful podman",
                    "");
        }
    }
    bool failed = false;
    for (const auto& check : checks)
        failed = failed || check["status"] == "failed";
    if (command.json) {
        std::cout << json{{"ok", !failed}, {"checks", checks}}.dump(2) << "\n";
    } else {
        for (const auto& check : checks) {
            const std::string status = check["status"];
            std::cout << (status == "ok" ? "ok      " : status == "warning" ? "warning " : "FAILED  ")
                      << check["name"].get<std::string>() << ": " << check["detail"].get<std::string>() << "\n";
            if (status != "ok" && !check["fix"].get<std::string>().empty())
                std::cout << "        fix: " << check["fix"].get<std::string>() << "\n";
        }
    }
    return failed ? kExitSandboxUnavailable : kExitOk;
}

// Read from stdin, not echoed when it is a terminal; trailing CR and spaces dropped.
std::string readSecretValue(const std::string& prompt) {
    termios saved{};
    const bool terminal = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
    if (terminal) {
        termios quiet = saved;
        quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
        std::cerr << prompt << ": " << std::flush;
    }
    std::string value;
    std::getline(std::cin, value);
    if (terminal) {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved);
        std::cerr << "\n";
    }
    while (!value.empty() && (value.back() == '\r' || value.back() == ' '))
        value.pop_back();
    return value;
}

int secretsSet(const CliArguments& arguments, const SecretsSetCommand& command) {
    if (command.hosts) { // a secret for hosts: this machine's, or with --remote the caller's on that warrend
        auto plane = openPlane(arguments);
        if (!plane)
            return usageError(plane.error().message);
        const std::string value = readSecretValue("Value of " + command.name);
        if (value.empty())
            return usageError("secrets set " + command.name + ": no value on stdin");
        const wire::HostSecretEntry binding{command.name, *command.hosts, command.header.value_or(""), {},
                                            command.inBody};
        if (auto stored = waitFor<Ok>([&](auto done) { (*plane)->setHostSecret(binding, value, done); }); !stored)
            return usageError("secrets set " + command.name + ": " + stored.error().message);
        if (const std::string warning = (*plane)->keyStorageWarning(); !warning.empty())
            std::cerr << "warren: " << warning << "\n";
        std::cerr << "warren: stored the secret " << command.name << " for " << *command.hosts
                  << "; a task gets it with --secret " << command.name << "\n";
        return kExitOk;
    }
    auto plane = openLocalPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    const std::string key = readSecretValue("API key for " + command.name);
    if (key.empty())
        return usageError("secrets set " + command.name + ": no key on stdin");
    auto& secrets = (*plane)->secrets();
    if (auto written = secrets.write(command.name, key); !written)
        return usageError(written.error().message);
    if (!secrets.warning().empty())
        std::cerr << "warren: " << secrets.warning() << "\n";
    std::cerr << "warren: stored the key " << command.name << "\n";
    return kExitOk;
}

int secretsDelete(const CliArguments& arguments, const SecretsDeleteCommand& command) {
    auto plane = openPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    // A provider's key (this machine's only) and a secret for hosts may share the name: both go.
    if (auto* local = dynamic_cast<LocalControlPlane*>(plane->get()))
        if (auto removed = local->secrets().remove(command.name); !removed)
            return usageError(removed.error().message);
    if (auto removed = waitFor<Ok>([&](auto done) { (*plane)->deleteHostSecret(command.name, done); }); !removed)
        return usageError(removed.error().message);
    return kExitOk;
}

int secretsList(const CliArguments& arguments) {
    auto plane = openPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    auto listed = waitFor<std::vector<wire::HostSecretEntry>>([&](auto done) { (*plane)->hostSecrets(done); });
    if (!listed)
        return usageError(listed.error().message);
    if (listed->empty())
        std::cerr << "warren: no secrets for hosts; add one with `warren secrets set NAME --host HOST`\n";
    for (const auto& entry : *listed)
        std::cout << entry.name << "\t" << entry.hosts << "\t" << (entry.header.empty() ? "-" : entry.header) << "\t"
                  << (entry.inBody ? "in bodies" : "headers only") << "\t" << entry.updatedAt << "\t"
                  << wire::secretScopeName(entry.scope) << "\n";
    return kExitOk;
}

int apply(const CliArguments& arguments, const ApplyCommand& command) {
    auto plane = openPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    const std::string workspace = command.workspace.value_or("");
    auto plan = waitFor<ChangesPlan>([&](auto done) {
        if (command.check)
            (*plane)->planChanges(command.taskId, workspace, done);
        else
            (*plane)->applyChanges(command.taskId, workspace, done);
    });
    if (!plan)
        return usageError(plan.error().message);
    const char* verb = command.check ? "would apply " : "applied     ";
    for (const auto& path : plan->applied)
        std::cout << verb << path << "\n";
    for (const auto& conflict : plan->conflicts)
        std::cout << "conflict    " << conflict.path << ": " << conflict.reason << "\n";
    if (plan->applied.empty() && plan->conflicts.empty()) {
        std::cerr << "warren: task " << command.taskId << " changed nothing\n";
        return kExitOk;
    }
    if (!plan->conflicts.empty()) {
        std::cerr << "warren: " << plan->conflicts.size()
                  << (plan->conflicts.size() == 1 ? " file was" : " files were")
                  << " changed here since the upload and left as they are"
                  << (command.check ? "" : "; the rest is applied") << "\n";
        return kExitTaskFailed;
    }
    return kExitOk;
}

// `warren move`: a task of this machine's to a warrend, or (--remote URL --to local) one of its home.
int move(const CliArguments& arguments, const MoveCommand& command) {
    const bool home = command.to == kMovedHome;
    auto local = openLocalPlane(arguments);
    if (!local)
        return usageError(local.error().message);
    auto server = openRemotePlane(arguments, home ? *arguments.remote : command.to);
    if (!server)
        return usageError(server.error().message);
    const std::string url = (*server)->server().toStdString();
    const std::string& id = command.taskId;
    auto moved = waitFor<TaskRecord>([&](auto done) {
        if (home)
            remote::moveHome(**local, **server, id, command.workspace.value_or(""), done);
        else
            remote::moveToServer(**local, **server, id, done);
    });
    if (!moved)
        return usageError(moved.error().message);
    if (home)
        std::cout << "moved " << id << " here from " << url << " (" << taskStatusName(moved->status)
                  << "), its change applied to " << moved->workspace << "\n"
                  << (moved->status == TaskStatus::Waiting ? "answer it:  warren reply " + id + " MESSAGE"
                                                           : "continue it:  warren resume " + id)
                  << "\n";
    else
        std::cout << "moved " << id << " to " << url << " as " << moved->id << " ("
                  << taskStatusName(moved->status) << ")\n"
                  << "follow it:  warren show " << moved->id << " --remote " << url << "\n"
                  << "when it ends, bring its change here:  warren apply " << moved->id << " --remote " << url
                  << "\n";
    return kExitOk;
}

// diff and rewind: the task's snapshots, kept by this machine's control plane.
template <typename Command, typename Run>
int onSnapshots(const CliArguments& arguments, const Command& command, Run run) {
    auto plane = openLocalPlane(arguments);
    if (!plane)
        return usageError(plane.error().message);
    return run(**plane, command);
}

} // namespace

int runCommand(const CliArguments& arguments) {
    return std::visit(
        [&](const auto& command) -> int {
            using T = std::decay_t<decltype(command)>;
            if constexpr (std::is_same_v<T, WindowCommand>) {
                RunCommand demo; // main() opens the window where it can; here there is no window
                demo.demo = true;
                return run(arguments, demo);
            } else if constexpr (std::is_same_v<T, HelpCommand>) {
                std::cout << usageText(command.topic);
                return kExitOk;
            } else if constexpr (std::is_same_v<T, VersionCommand>) {
                std::cout << "warren " << WARREN_VERSION << "\n";
                return kExitOk;
            } else if constexpr (std::is_same_v<T, RunCommand>) {
                return run(arguments, command);
            } else if constexpr (std::is_same_v<T, TasksCommand>) {
                return tasks(arguments, command);
            } else if constexpr (std::is_same_v<T, ShowCommand>) {
                return show(arguments, command);
            } else if constexpr (std::is_same_v<T, ResumeCommand>) {
                return resume(arguments, command);
            } else if constexpr (std::is_same_v<T, ReplyCommand>) {
                return reply(arguments, command);
            } else if constexpr (std::is_same_v<T, CancelCommand>) {
                return cancel(arguments, command);
            } else if constexpr (std::is_same_v<T, ExportCommand>) {
                return exportTask(arguments, command);
            } else if constexpr (std::is_same_v<T, DoctorCommand>) {
                return doctor(arguments, command);
            } else if constexpr (std::is_same_v<T, ApplyCommand>) {
                return apply(arguments, command);
            } else if constexpr (std::is_same_v<T, MoveCommand>) {
                return move(arguments, command);
            } else if constexpr (std::is_same_v<T, DiffCommand>) {
                return onSnapshots(arguments, command, diffTask);
            } else if constexpr (std::is_same_v<T, RewindCommand>) {
                return onSnapshots(arguments, command, rewindTask);
            } else if constexpr (std::is_same_v<T, SecretsSetCommand>) {
                return secretsSet(arguments, command);
            } else if constexpr (std::is_same_v<T, SecretsListCommand>) {
                return secretsList(arguments);
            } else {
                return secretsDelete(arguments, command);
            }
        },
        arguments.command);
}

} // namespace warren::control
