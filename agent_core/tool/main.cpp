// warren-agent: the agent, inside the sandbox.
//   warren-agent serve [--workspace DIR] [--state DIR] [--output DIR]
//       speaks the protocol (docs/PROTOCOL.md) on stdin/stdout with the control plane; a task.start with
//       cli runs that coding-agent CLI under the supervisor (agent_core/clis) instead of Warren's own loop
//   warren-agent serve ... --connect unix:PATH|tcp:HOST:PORT --token-file FILE [--carry-trees]
//                          [--reconnect tcp:HOST:PORT]
//       the same on a connection it opens, whose first line is the hello with the task token; with
//       --carry-trees the workspace and /state come from the control plane and go back to it (a pod). Over
//       TCP (a cluster's pod), a connection lost during a run pauses it at its checkpoint and the agent
//       connects again (to --connect's address and --reconnect's in turn) until a control plane sends
//       task.start, which continues the task in the same pod
//   warren-agent run --script FILE --workspace DIR [--state DIR] [--output DIR] [--preset P[,P...]]
//       [--set KEY=VALUE]... [--approve auto|deny] [--task-id ID] PROMPT
//       runs standalone with a scripted model and prints the events as JSON lines
//   warren-agent await-claim SOCKET
//       a warm container's pid 1 before it is a task's: takes the control plane's claim on SOCKET and execs
//       it (agent_core/process/AwaitClaim.h)
// Exit status: 0 finished, 1 failed/stopped by a guard/cancelled, 2 usage error, 75 paused (resumable).
// Environment: WARREN_EGRESS_SOCKET (the control plane's egress proxy socket, when the network is an
// allow-list) and WARREN_EGRESS_PORT (where the tools' HTTP_PROXY points, default 3128).

#include "agent_core/clis/CliSupervisor.h"
#include "agent_core/host/HostChannel.h"
#include "agent_core/host/TreeTransfer.h"
#include "agent_core/llm/HostLlm.h"
#include "agent_core/llm/ScriptedLlm.h"
#include "agent_core/loop/Agent.h"
#include "agent_core/net/ControlConnection.h"
#include "agent_core/net/EgressForwarder.h"
#include "agent_core/process/AwaitClaim.h"
#include "agent_core/process/ProcessSeal.h"
#include "agent_core/protocol/EventTypes.h"
#include "common/FileText.h"

#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <mutex>
#include <poll.h>
#include <sstream>
#include <sys/prctl.h>
#include <unistd.h>

using namespace warren;
using namespace warren::agent;

namespace {

constexpr int kExitFinished = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitPaused = 75; // EX_TEMPFAIL: run again with the same --state to resume

// Where the tools' HTTP_PROXY and HTTPS_PROXY point when the control plane sets no WARREN_EGRESS_PORT.
constexpr std::uint16_t kDefaultEgressPort = 3128;
// serve --connect: how long the agent tries to reach a control plane that is not listening yet.
constexpr std::chrono::seconds kConnectPatience{30};
// serve --connect tcp: (a cluster's pod): how long after its connection was lost the agent keeps
// reconnecting, for the replica that takes its task over (a lease's time, warrend serve --lease-sec) to
// expect it.
constexpr std::chrono::seconds kRejoinPatience{300};
constexpr std::chrono::milliseconds kFirstRejoinPause{500};
constexpr std::chrono::seconds kLongestRejoinPause{5};

constexpr const char* kUsage =
    "usage: warren-agent serve [--workspace DIR] [--state DIR] [--output DIR]\n"
    "                          [--connect unix:PATH|tcp:HOST:PORT --token-file FILE [--carry-trees]\n"
    "                           [--reconnect tcp:HOST:PORT]]\n"
    "       warren-agent run --script FILE --workspace DIR [--state DIR] [--output DIR]\n"
    "                        [--preset P[,P...]] [--set KEY=VALUE]... [--approve auto|deny]\n"
    "                        [--task-id ID] PROMPT\n"
    "       warren-agent await-claim SOCKET\n";

Cancellation* g_cancellation = nullptr;
// serve: only the control plane may stop the task (isControlPlaneStop); a tool's signal is ignored, so a tool
// cannot end its task as if the user had cancelled it. run: the user at the terminal, any sender.
bool g_onlyControlPlaneStops = false;
pid_t g_launcherPid = 0;

void onSignal(int signal, siginfo_t* info, void*) {
    if (g_onlyControlPlaneStops && !isControlPlaneStop(info->si_code, info->si_pid, g_launcherPid)) {
        static constexpr char kIgnored[] = "warren-agent: ignored a stop signal from a process of the sandbox\n";
        [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, kIgnored, sizeof kIgnored - 1);
        return;
    }
    // SIGTERM is how the control plane cancels a task; an interactive interrupt pauses it (resumable).
    if (g_cancellation)
        g_cancellation->request(signal == SIGTERM ? StopRequest::Cancel : StopRequest::Pause);
}

enum class StopSenders { Anyone, ControlPlane };

void installProcessSettings(Cancellation& cancellation, StopSenders senders) {
    g_cancellation = &cancellation;
    g_onlyControlPlaneStops = senders == StopSenders::ControlPlane;
    g_launcherPid = ::getppid(); // 0 in a sandbox: the launcher is outside the agent's pid namespace
    struct sigaction action {};
    action.sa_sigaction = onSignal;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    for (int signal : {SIGTERM, SIGINT, SIGHUP})
        sigaction(signal, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN); // a closed stdout is an error to report, not a death
    // Orphans of the tools re-parent to the agent, which kills them when the tool returns.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

// With a host allow-list the sandbox has only loopback; the tools reach the network through the control
// plane's egress proxy, whose socket is mounted in. Without it the task still runs, offline: the user sees
// why on stderr rather than a task that refuses to start over one failed download.
std::unique_ptr<EgressForwarder> startEgressForwarder() {
    const char* socketPath = std::getenv("WARREN_EGRESS_SOCKET");
    if (!socketPath || !*socketPath)
        return nullptr;
    std::uint16_t port = kDefaultEgressPort;
    if (const char* text = std::getenv("WARREN_EGRESS_PORT"); text && *text) {
        const std::string_view value(text);
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), port);
        if (error != std::errc() || end != value.data() + value.size() || port == 0) {
            std::cerr << "warren-agent: the egress forwarder could not start: WARREN_EGRESS_PORT=\"" << value
                      << "\" is not a port (1-65535); tools will have no network\n";
            return nullptr;
        }
    }
    auto forwarder = EgressForwarder::start(socketPath, port);
    if (!forwarder) {
        std::cerr << "warren-agent: the egress forwarder could not start: " << forwarder.error().message
                  << "; tools will have no network\n";
        return nullptr;
    }
    return std::move(forwarder).value();
}

int exitCodeFor(ExitReason reason) {
    switch (reason) {
    case ExitReason::Finished:
    case ExitReason::Waiting: // the run ended as it should: the user's reply continues it
        return kExitFinished;
    case ExitReason::Paused:
        return kExitPaused;
    default:
        return kExitFailed;
    }
}

int usageError(const std::string& message) {
    std::cerr << "warren-agent: " << message << "\n" << kUsage;
    return kExitUsage;
}

struct Options {
    std::string mode;
    std::optional<std::string> script, workspace, state, output, taskId, approve, connect, tokenFile,
        reconnect;
    std::vector<std::string> presets;
    nlohmann::json overrides = nlohmann::json::object();
    std::vector<std::string> positional;
    bool carryTrees = false;
};

Result<Options> parseOptions(int argc, char** argv) {
    Options options;
    if (argc < 2)
        return makeError(ErrorCode::InvalidArgument, "a mode is required: serve or run");
    options.mode = argv[1];
    if (options.mode != "serve" && options.mode != "run")
        return makeError(ErrorCode::InvalidArgument, "unknown mode \"" + options.mode + "\": serve or run");
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> Result<std::string> {
            if (i + 1 >= argc)
                return makeError(ErrorCode::InvalidArgument, arg + " needs a value");
            return std::string(argv[++i]);
        };
        std::optional<std::string>* target = arg == "--script"       ? &options.script
                                             : arg == "--workspace"  ? &options.workspace
                                             : arg == "--state"      ? &options.state
                                             : arg == "--output"     ? &options.output
                                             : arg == "--task-id"    ? &options.taskId
                                             : arg == "--approve"    ? &options.approve
                                             : arg == "--connect"    ? &options.connect
                                             : arg == "--token-file" ? &options.tokenFile
                                             : arg == "--reconnect"  ? &options.reconnect
                                                                     : nullptr;
        if (arg == "--carry-trees") {
            options.carryTrees = true;
        } else if (target) {
            auto v = value();
            if (!v)
                return v.error();
            *target = *v;
        } else if (arg == "--preset") {
            auto v = value();
            if (!v)
                return v.error();
            std::stringstream list(*v);
            for (std::string name; std::getline(list, name, ',');)
                if (!name.empty())
                    options.presets.push_back(name);
        } else if (arg == "--set") {
            auto v = value();
            if (!v)
                return v.error();
            if (auto added = addOverride(options.overrides, *v); !added)
                return added.error();
        } else if (arg == "--") {
            for (++i; i < argc; ++i)
                options.positional.emplace_back(argv[i]);
        } else if (arg.starts_with("--")) {
            return makeError(ErrorCode::InvalidArgument, "unknown option " + arg);
        } else {
            options.positional.push_back(arg);
        }
    }
    if (options.approve && *options.approve != "auto" && *options.approve != "deny")
        return makeError(ErrorCode::InvalidArgument, "--approve must be auto or deny");
    return options;
}

// A directory the caller named must exist; a sandbox default that is absent is simply not used.
Result<std::optional<std::filesystem::path>> directory(const std::optional<std::string>& given,
                                                       const char* sandboxDefault, const char* flag) {
    std::error_code error;
    if (given) {
        auto path = std::filesystem::absolute(*given, error);
        if (error || !std::filesystem::is_directory(path, error))
            return makeError(ErrorCode::NotFound, std::string(flag) + " " + *given + ": not a directory");
        return std::optional<std::filesystem::path>(path.lexically_normal());
    }
    if (sandboxDefault && std::filesystem::is_directory(sandboxDefault, error))
        return std::optional<std::filesystem::path>(sandboxDefault);
    return std::optional<std::filesystem::path>();
}

Result<AgentPaths> resolvePaths(const Options& options, bool sandboxDefaults) {
    AgentPaths paths;
    auto workspace = directory(options.workspace, sandboxDefaults ? "/workspace" : nullptr, "--workspace");
    if (!workspace)
        return workspace.error();
    if (!*workspace)
        return makeError(ErrorCode::InvalidArgument, "--workspace DIR is required");
    paths.workspace = **workspace;
    auto state = directory(options.state, sandboxDefaults ? "/state" : nullptr, "--state");
    if (!state)
        return state.error();
    paths.state = *state;
    auto output = directory(options.output, sandboxDefaults ? "/output" : nullptr, "--output");
    if (!output)
        return output.error();
    paths.output = *output;
    return paths;
}

int runStandalone(const Options& options) {
    if (!options.script)
        return usageError("run needs --script FILE (the model's turns; docs/PROTOCOL.md)");
    if (options.positional.size() != 1)
        return usageError("run needs exactly one PROMPT");
    auto paths = resolvePaths(options, false);
    if (!paths)
        return usageError(paths.error().message);
    const auto text = readFileText(*options.script);
    if (!text)
        return usageError("cannot read the script: " + text.error().message);
    auto script = protocol::parseScript(*text, *options.script);
    if (!script)
        return usageError(script.error().message);
    auto agent = createAgent(options.presets, options.overrides);
    if (!agent)
        return usageError(agent.error().message);

    Cancellation cancellation;
    installProcessSettings(cancellation, StopSenders::Anyone);
    const auto egress = startEgressForwarder(); // serves the tools until the agent exits
    (*agent)->setModel(std::make_unique<ScriptedLlm>(std::move(script).value()));
    (*agent)->setRunFacts({std::nullopt, std::nullopt, std::string("scripted"), std::nullopt});
    const bool approveAll = options.approve.value_or("deny") == "auto";
    (*agent)->setApprover([approveAll](const protocol::ApprovalRequestParams&,
                                       const Cancellation*) -> Result<protocol::ApprovalResult> {
        if (approveAll)
            return protocol::ApprovalResult{true, std::nullopt};
        return protocol::ApprovalResult{false, "denied by --approve deny (standalone run)"};
    });
    LineEventSink sink(STDOUT_FILENO);
    EventLog events(sink);
    const auto outcome = (*agent)->run(*paths, options.taskId.value_or("local"), options.positional[0], events,
                                       cancellation);
    if (outcome.reason == ExitReason::Failed)
        std::cerr << "warren-agent: the task failed: " << outcome.summary << "\n";
    return exitCodeFor(outcome.reason);
}

// Events as JSON-RPC notifications on the channel. afterSavePoint, when set, runs once an event of the type
// savePoint is sent (--carry-trees: /state goes to the control plane, so a resume elsewhere finds it).
class HostEventSink : public EventSink {
public:
    explicit HostEventSink(HostChannel& channel) : m_channel(channel) {}
    bool write(const protocol::Event& event) override {
        const bool sent = m_channel.send(protocol::toNotification(event));
        if (sent && afterSavePoint && event.type == savePoint)
            afterSavePoint();
        return sent;
    }
    // Warren's agent saves at its checkpoints; a CLI saves its own session as it goes, so by a step's start
    // the turns before it are on disk.
    std::string_view savePoint = protocol::event_type::kCheckpoint;
    std::function<void()> afterSavePoint;

private:
    HostChannel& m_channel;
};

// --carry-trees: the pod's empty workspace and /state filled from the control plane's (workspace.pull).
Status pullTrees(const HostCall& call, const AgentPaths& paths) {
    if (auto pulled = pullTree(call, "workspace", paths.workspace); !pulled)
        return pulled.error();
    if (paths.state)
        if (auto pulled = pullTree(call, "state", *paths.state); !pulled)
            return pulled.error();
    return Ok{};
}

// --carry-trees: the workspace, /state and /output sent back (workspace.push), each replacing the control
// plane's copy. What an archive cannot hold (a socket, a link out of the tree) stays behind, said on stderr.
Status pushTrees(const HostCall& call, const AgentPaths& paths) {
    const std::vector<std::pair<std::string, std::optional<std::filesystem::path>>> trees{
        {"workspace", paths.workspace}, {"state", paths.state}, {"output", paths.output}};
    for (const auto& [tree, directory] : trees) {
        if (!directory)
            continue;
        auto pushed = pushTree(call, tree, *directory);
        if (!pushed)
            return pushed.error();
        for (const auto& left : *pushed)
            std::cerr << "warren-agent: " << tree << "/" << left.path << " was not sent back: it " << left.reason
                      << "\n";
    }
    return Ok{};
}

// --connect: the protocol's connection, opened by the agent, the hello sent. Without: stdin and stdout.
// at: another address than --connect's (--reconnect); patience: how long a refused connection is tried again.
Result<UniqueFd> controlConnection(const Options& options,
                                   const std::optional<std::string>& at = std::nullopt,
                                   std::chrono::milliseconds patience = kConnectPatience) {
    if (!options.connect)
        return UniqueFd();
    auto address = parseControlAddress(at.value_or(*options.connect));
    if (!address)
        return address.error();
    auto token = readTokenFile(*options.tokenFile);
    if (!token)
        return token.error();
    return connectToControlPlane(*address, *token, patience);
}

// How one connection's run ended: Lost when the control plane went away, before task.start or during the run
// (which then paused at its checkpoint).
struct Session {
    int exitCode = kExitFailed;
    bool lost = false;
    bool ran = false; // task.start was taken and the trees are in place: the agent holds the task now
};

// One connection to the control plane (stdin and stdout without --connect): its task.start, the run, the
// trees carried home. pullTreesFirst (--carry-trees): until a run took place; a reconnected agent's pod holds
// the task's latest trees.
Session serveConnection(const Options& options, const AgentPaths& paths, int inFd, int outFd,
                        Cancellation& cancellation, const EgressForwarder* egress, bool pullTreesFirst) {
    EventLog* events = nullptr;
    std::mutex eventsMutex;
    HostChannel channel(inFd, outFd, cancellation, [&](std::string problem) {
        std::lock_guard lock(eventsMutex);
        if (events)
            events->error(problem, false);
        else
            std::cerr << "warren-agent: " << problem << "\n";
    });
    HostEventSink sink(channel);
    const auto lost = [&cancellation] {
        return cancellation.requested() == StopRequest::HostGone;
    };

    auto request = channel.waitForTaskStart();
    if (!request) {
        std::cerr << "warren-agent: " << request.error().message << "; exiting\n";
        return {kExitFailed, lost(), false};
    }
    auto params = protocol::taskStartParamsFromJson(request->params);
    // A CLI agent (task.start's cli) takes no settings of Warren's agent: none to check.
    auto agent = !params       ? Result<std::unique_ptr<Agent>>(params.error())
                 : params->cli ? Result<std::unique_ptr<Agent>>(nullptr)
                               : createAgent(params->presets, params->overrides);
    if (!agent) {
        channel.send(protocol::ErrorResponse{
            request->id, {protocol::rpc_error::kInvalidParams, "task.start: " + agent.error().message, std::nullopt}});
        std::cerr << "warren-agent: task.start refused: " << agent.error().message << "\n";
        return {kExitUsage, false, false};
    }
    channel.send(protocol::Response{request->id, nlohmann::json::object()});

    // Every request carries the task's token; the control plane refuses a request without a valid one.
    const std::optional<std::string> token = params->token;
    auto call = [&channel, token](const std::string& method, nlohmann::json callParams,
                                  std::chrono::steady_clock::time_point deadline, const Cancellation* stop) {
        if (token)
            callParams[protocol::kTokenParam] = *token;
        return channel.call(method, std::move(callParams), deadline, stop);
    };
    // Approvals, for Warren's agent and a CLI's: the user decides; the step's deadline does not hurry them.
    // A stop of the task or of the asking agent ends the wait.
    const Approver approver = [&call](const protocol::ApprovalRequestParams& approval,
                                      const Cancellation* stop) -> Result<protocol::ApprovalResult> {
        auto answer = call(protocol::method::kApprovalRequest, protocol::toJson(approval),
                           std::chrono::steady_clock::time_point::max(), stop);
        if (!answer)
            return answer.error();
        return protocol::approvalResultFromJson(*answer);
    };
    if (*agent) { // Warren's own agent: its model, host calls and approvals go through the channel
        (*agent)->setModel(std::make_unique<HostLlm>(call));
        (*agent)->setHostCall(call);
        (*agent)->setRunFacts({params->sandbox, params->network, params->provider, params->model, params->attended});
        (*agent)->setApprover(approver);
    }
    EventLog log(sink);
    {
        std::lock_guard lock(eventsMutex);
        events = &log;
    }
    const auto ended = [&](int exitCode, bool ran = true) {
        std::lock_guard lock(eventsMutex);
        events = nullptr;
        return Session{exitCode, lost(), ran};
    };
    const HostCall hostCall = call;
    if (options.carryTrees) {
        if (pullTreesFirst)
            if (auto pulled = pullTrees(hostCall, paths); !pulled) {
                log.error("the task's trees did not reach the sandbox: " + pulled.error().message, true);
                return ended(kExitFailed, false);
            }
        // Not reported as an event: this runs inside the event log's write. The push at the end retries.
        if (params->cli)
            sink.savePoint = protocol::event_type::kStepStarted;
        if (paths.state)
            sink.afterSavePoint = [&hostCall, state = *paths.state, point = sink.savePoint] {
                if (auto pushed = pushTree(hostCall, "state", state); !pushed)
                    std::cerr << "warren-agent: /state after " << point << ": " << pushed.error().message
                              << "\n";
            };
    }
    std::optional<ControlAddress> controlPlane; // a cluster's pod: where its CLI's model calls go too
    if (options.connect)
        if (auto address = parseControlAddress(*options.connect);
            address && address->kind == ControlAddress::Kind::Tcp)
            controlPlane = std::move(*address);
    const auto outcome =
        params->cli ? runCliAgent(*params->cli,
                                  {params->taskId, params->prompt, params->presets, params->reply,
                                   params->token.value_or(""),
                                   egress ? std::optional<std::uint16_t>(egress->port()) : std::nullopt,
                                   std::move(controlPlane), approver},
                                  paths, log, cancellation)
                    : (*agent)->run(paths, params->taskId, params->prompt, log, cancellation, params->reply);
    sink.afterSavePoint = nullptr;
    if (options.carryTrees && !lost()) {
        if (auto pushed = pushTrees(hostCall, paths); !pushed) {
            log.error("the task's trees did not come back from the sandbox: " + pushed.error().message, true);
            return ended(kExitFailed);
        }
    }
    return ended(exitCodeFor(outcome.reason));
}

// After the connection was lost: connects again until a control plane takes the hello (the replica that took
// the task over may not expect the agent yet, and refuses it until then), at --connect's address and
// --reconnect's in turn, pausing between attempts, for up to kRejoinPatience since lostAt. An error when a
// stop is asked meanwhile or the patience runs out.
Result<UniqueFd> reconnect(const Options& options, const Cancellation& cancellation,
                           std::chrono::steady_clock::time_point lostAt, std::chrono::milliseconds& pause) {
    for (bool atService = false;; atService = options.reconnect && !atService) {
        pollfd stop{cancellation.fd(), POLLIN, 0};
        if (cancellation.stopRequested() || ::poll(&stop, 1, static_cast<int>(pause.count())) > 0)
            return makeError(ErrorCode::Unavailable, "stopped while reconnecting to the control plane");
        pause = std::min(pause * 2, std::chrono::milliseconds(kLongestRejoinPause));
        if (std::chrono::steady_clock::now() - lostAt > kRejoinPatience)
            return makeError(ErrorCode::Unavailable,
                             "no control plane took the task back within " +
                                 std::to_string(kRejoinPatience.count()) +
                                 " s; exiting (the task resumes from its checkpoint)");
        // The replica it spoke to (a network that dropped) and, in turn, every replica's Service (it died).
        // One try each: an address where nobody listens (the replica gone) must not hold up the other.
        auto connection = controlConnection(options, atService ? options.reconnect : std::nullopt,
                                            std::chrono::milliseconds(0));
        if (connection)
            return connection;
        std::cerr << "warren-agent: " << connection.error().message << "\n";
    }
}

int serve(const Options& options) {
    if (!options.positional.empty() || options.script || !options.presets.empty() ||
        !options.overrides.empty())
        return usageError(
            "serve takes only --workspace, --state, --output, --connect, --token-file, --carry-trees and "
            "--reconnect: the task comes in task.start");
    if (options.connect.has_value() != options.tokenFile.has_value())
        return usageError("--connect and --token-file go together: the token is the connection's credential");
    if (options.carryTrees && !options.connect)
        return usageError(
            "--carry-trees needs --connect: on stdin the agent runs beside the control plane's trees");
    if (options.reconnect) {
        auto connect =
            options.connect ? parseControlAddress(*options.connect) : Result<ControlAddress>(Error{});
        auto reconnect = parseControlAddress(*options.reconnect);
        if (!connect || connect->kind != ControlAddress::Kind::Tcp || !reconnect ||
            reconnect->kind != ControlAddress::Kind::Tcp)
            return usageError(
                "--reconnect tcp:HOST:PORT goes with --connect tcp:HOST:PORT: a cluster's pod connects "
                "again there once its connection is lost");
    }
    auto paths = resolvePaths(options, true);
    if (!paths)
        return usageError(paths.error().message);

    Cancellation cancellation;
    installProcessSettings(cancellation, StopSenders::ControlPlane);
    auto connection = controlConnection(options);
    if (!connection) {
        std::cerr << "warren-agent: " << connection.error().message << "\n";
        return connection.error().code == ErrorCode::InvalidArgument ? kExitUsage : kExitFailed;
    }
    const auto egress = startEgressForwarder(); // serves the tools until the agent exits
    // A cluster's pod outlives the connection: a replica of the control plane that died, a network that
    // dropped. Its agent reconnects (through the Service, to whichever replica answers) and the replica that
    // runs the task now continues it here from the checkpoint, with the pod's workspace as it is.
    const bool rejoins = options.connect && connection->valid() &&
                         parseControlAddress(*options.connect)->kind == ControlAddress::Kind::Tcp;
    auto lostAt = std::chrono::steady_clock::now();
    std::chrono::milliseconds pause = kFirstRejoinPause;
    bool ran = false; // a task came: before, the agent has nothing to take back and exits as it always did
    for (;;) {
        const int fd = connection->valid() ? connection->get() : -1;
        const Session session =
            serveConnection(options, *paths, fd >= 0 ? fd : STDIN_FILENO, fd >= 0 ? fd : STDOUT_FILENO,
                            cancellation, egress.get(), !ran);
        if (session.ran) { // the patience counts from the last run's end
            ran = true;
            lostAt = std::chrono::steady_clock::now();
            pause = kFirstRejoinPause;
        }
        if (!session.lost || !rejoins || !ran)
            return session.exitCode;
        if (!cancellation.clearHostGone())
            return kExitPaused; // a stronger stop came meanwhile
        std::cerr << "warren-agent: the connection to the control plane was lost; connecting again\n";
        connection = reconnect(options, cancellation, lostAt, pause);
        if (!connection) {
            std::cerr << "warren-agent: " << connection.error().message << "\n";
            return kExitPaused;
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    // Before anything is read or any tool runs: a tool must never reach this process's descriptors or memory.
    if (auto sealed = sealProcess(); !sealed) {
        std::cerr << "warren-agent: " << sealed.error().message << "\n";
        return kExitFailed;
    }
    if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        std::cout << kUsage;
        return kExitFinished;
    }
    if (argc == 3 && std::strcmp(argv[1], "await-claim") == 0)
        return awaitClaim(argv[2]);
    auto options = parseOptions(argc, argv);
    if (!options)
        return usageError(options.error().message);
    return options->mode == "run" ? runStandalone(*options) : serve(*options);
}
