#include "app/tasks/TaskRunner.h"

#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"
#include "agent_core/protocol/Methods.h"
#include "agent_core/protocol/Timestamp.h"
#include "app/egress/EgressProxy.h"
#include "app/egress/NetworkQuestion.h"
#include "app/metrics/EngineMetrics.h"
#include "app/modelproxy/ModelProxy.h"
#include "app/proxy/TaskToken.h"
#include "app/proxy/ToolProxy.h"
#include "app/snapshots/TaskSnapshots.h"
#include "app/store/Store.h"
#include "app/tasks/AgentChannel.h"
#include "app/tasks/AgentCli.h"
#include "app/tasks/AgentListener.h"
#include "app/tasks/AgentSandbox.h"
#include "app/tasks/CancelRequests.h"
#include "app/tasks/EventSequencer.h"
#include "app/tasks/LaunchPlan.h"
#include "app/tasks/NetworkQuestions.h"
#include "app/tasks/PodTokens.h"
#include "app/tasks/TaskLock.h"
#include "app/tasks/TaskReply.h"
#include "app/tasks/TaskSecrets.h"
#include "app/tasks/TaskSleep.h"
#include "common/Utf8.h"
#include "sandbox/policy/SandboxProfile.h"

#include <QDateTime>
#include <QPointer>
#include <QSocketNotifier>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>

namespace warren::control {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kSleepingSummary = "asleep until its question is answered; the answer wakes it";
constexpr std::size_t kDiagnosticsBytes = 2000; // of the agent's stderr, in the message when it fails
constexpr std::size_t kRefusedEventBytes = 1000; // of the message that says why an agent's event was refused
// From a cluster agent's lost connection until its pod is left running for the next launch: an agent that
// exited has ended its pod by then, which the cluster reports within seconds.
constexpr std::chrono::seconds kLostConnectionGrace{10};

std::string now() {
    return protocol::formatTimestamp(std::chrono::system_clock::now());
}

Status makeDirectory(const std::string& path) {
    std::error_code error;
    fs::create_directories(path, error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + path + ": " + error.message() +
                                                "; check that the data directory is writable");
    return Ok{};
}

// What the agent sent wrong, as the error event that stands in its place: bounded, since the reason quotes
// what the agent sent.
std::string refusedEventMessage(const protocol::Event& event, const std::string& why) {
    std::string message = "the agent's " + event.type + " event (its seq " + std::to_string(event.seq) +
                          ") was not stored: its data does not read as a " + event.type + ": " + why;
    if (message.size() > kRefusedEventBytes)
        message = std::string(utf8Prefix(message, kRefusedEventBytes)) + "...";
    return message;
}

} // namespace

TaskRunner::TaskRunner(const RunnerEnvironment& environment, TaskRecord task, TaskSpec spec, QObject* parent)
    : QObject(parent), m_env(environment), m_task(std::move(task)), m_spec(std::move(spec)),
      m_events(new EventSequencer(*m_env.events, m_task.id, this)) {
    connect(m_events, &EventSequencer::readingChanged, this, [this](bool reading, std::size_t uncommitted) {
        if (m_channel)
            m_channel->setReading(reading);
        emit outputPaused(m_task.id, !reading, uncommitted);
    });
    m_timeout.setSingleShot(true);
    m_grace.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        stop(StopCause::Timeout, "the task ran longer than its timeout of " +
                                     std::to_string(m_spec.timeoutSec) + " s; raise it with --timeout");
    });
    connect(&m_grace, &QTimer::timeout, this, &TaskRunner::escalate);
    m_idle.setSingleShot(true);
    connect(&m_idle, &QTimer::timeout, this, &TaskRunner::sleep);
    m_lostConnection.setSingleShot(true);
    connect(&m_lostConnection, &QTimer::timeout, this, &TaskRunner::leavePodRunning);
}

TaskRunner::~TaskRunner() {
    if (m_env.cancelRequests)
        m_env.cancelRequests->forget(m_task.id, this);
    // A run cut short by its control plane's stop (or its lease lost): a cluster's pod runs on, its agent
    // reconnecting, for the replica that takes the task over to rejoin (its pod tokens are kept).
    if (m_process && !(m_clusterPod && !m_done && m_process->detach()))
        m_process->kill();
}

void TaskRunner::start() {
    if (auto launched = launch(); !launched) {
        // finish() may already have run (a sandbox that could not be set up says so itself).
        if (!m_done)
            fail("launch", launched.error().message);
    }
}

Status TaskRunner::launch() {
    // The CLI's install, at each launch: the one the task started with may have been updated or removed since.
    auto cli = taskCli(m_spec.agent, m_spec.agentPath, m_env.face.agentClis, m_spec.backend);
    if (!cli)
        return cli.error();
    auto secrets = lookUpTaskSecrets(m_task, m_spec, m_env.face, m_env.data.taskDir(m_task.id));
    if (!secrets)
        return secrets.error();
    PlanEnvironment site{m_env.data, m_env.agentBinary, m_env.extraProfileLayers, m_env.face.cluster,
                         m_env.face.userSkills};
    site.warmSandboxes = m_env.warmSandboxes;
    if (auto owners = ownersAdditions(site); !owners)
        return owners;
    auto plan = planLaunch(m_task, m_spec, site, *cli, *secrets);
    if (!plan)
        return plan.error();
    if (auto idle = idleSleep(plan->config); !idle)
        return idle;
    if (plan->network.ask && m_env.face.workspaceHosts) {
        auto hosts = m_env.face.workspaceHosts(m_task);
        if (!hosts)
            return hosts.error();
        for (const HostRule& rule : *hosts)
            if (std::find(plan->network.hosts.begin(), plan->network.hosts.end(), rule) == plan->network.hosts.end())
                plan->network.hosts.push_back(rule);
    }
    if (m_env.face.sandboxLabels) {
        auto labels = m_env.face.sandboxLabels(m_task);
        if (!labels)
            return labels.error();
        plan->launch.labels = std::move(*labels);
    }
    for (const auto& directory : plan->directories)
        if (auto made = makeDirectory(directory); !made)
            return made;
    if (auto locked = takeLock(); !locked)
        return locked;
    if (auto continued = continueSequence(); !continued)
        return continued;
    if (auto proxy = startProxy(*plan); !proxy)
        return proxy;
    if (auto egress = startEgress(*plan, std::move(*secrets)); !egress)
        return egress;
    if (auto listening = startListener(*plan); !listening)
        return listening;
    const bool connects = !plan->channelDir.empty() || !plan->clusterAddress.empty();
    auto channel = AgentChannel::open(connects ? AgentChannel::Transport::Socket : AgentChannel::Transport::Stdio);
    if (!channel)
        return channel.error();
    m_channel = std::move(*channel);
    connect(m_channel.get(), &AgentChannel::lineRead, this, &TaskRunner::onAgentLine);
    plan->launch.stdio = m_channel->childStdio();
    if (m_clusterPod) {
        plan->launch.taskToken = m_token;
        plan->launch.rejoin = m_rejoinPod;
        connect(m_channel.get(), &AgentChannel::connectionLost, this, &TaskRunner::onConnectionLost);
    }
    const std::string backend = sandbox::backendName(m_spec.backend);
    auto process = launchAgent(plan->launch);
    if (!process) {
        if (m_env.metrics)
            m_env.metrics->sandboxFailed(backend);
        fail("sandbox", process.error().message);
        return Ok{};
    }
    m_launchedAt = std::chrono::steady_clock::now();
    m_process = std::move(*process);
    startSnapshots(*plan);
    m_channel->watch();
    watchSandbox();
    markRunning();
    protocol::TaskStartParams params = plan->start;
    params.token = m_token;
    params.reply = keptReply(m_env.data, m_task.id); // until the agent has taken it (its user_message)
    send(protocol::Request{std::int64_t{0}, protocol::method::kTaskStart, protocol::toJson(params)});
    return Ok{};
}

// What the face gives the task's owner (warrend: their tenant's MCP servers and skills), at each launch: what
// the operator changed since the last one is in this one.
Status TaskRunner::ownersAdditions(PlanEnvironment& site) const {
    if (m_env.face.ownerMcpServers) {
        auto servers = m_env.face.ownerMcpServers(m_task);
        if (!servers)
            return servers.error();
        site.ownerMcpServers = std::move(*servers);
    }
    if (m_env.face.ownerSkills) {
        auto folders = m_env.face.ownerSkills(m_task);
        if (!folders)
            return folders.error();
        site.userSkills.insert(site.userSkills.end(), folders->begin(), folders->end());
    }
    return Ok{};
}

// How long this run may only wait before it sleeps: the face's time, the owner's quota's and the task's own
// setting, the shortest that is set (idleSleepFor).
Status TaskRunner::idleSleep(const agent::AgentConfig& config) {
    std::chrono::milliseconds owners{0};
    if (m_env.face.ownerIdleSleep) {
        auto bound = m_env.face.ownerIdleSleep(m_task);
        if (!bound)
            return bound.error();
        owners = std::chrono::seconds(bound->value_or(0));
    }
    m_idleSleep = idleSleepFor({m_env.idleSleep, owners, std::chrono::seconds(config.idleSleepSec)});
    return Ok{};
}

// One control plane runs a task at a time: the lock is held for as long as the agent runs, and tells
// recovery in another process that this task is alive.
Status TaskRunner::takeLock() {
    const std::string& id = m_task.id;
    if (!m_lock.valid())
        m_lock = takeTaskLock(m_env.data, id);
    if (!m_lock.valid())
        return makeError(ErrorCode::InvalidArgument,
                         "task " + id + " is already running in another warren process; stop it there first");
    CancelRequests::clear(m_env.data, id);
    return Ok{};
}

// The model: the provider with its key, which stays in this process. Before the sandbox is prepared,
// which already touches the workspace (protected-path placeholders) and the cgroups.
Status TaskRunner::startProxy(const LaunchPlan& plan) {
    ProviderConfig providerConfig = plan.provider;
    auto key = providerConfig.keyName.empty() ? Result<std::string>(std::string())
                                              : m_env.face.providerKey(m_task, providerConfig);
    if (!key)
        return key.error();
    providerConfig.apiKey = *key;
    if (m_env.face.providerAccess)
        providerConfig.access = m_env.face.providerAccess(providerConfig);
    m_providerKind = providerKindName(providerConfig.kind);
    auto provider = createProvider(providerConfig, m_env.network);
    if (!provider)
        return provider.error();
    m_token = m_env.tokens->issue(m_task.id, plan.tokenScopes, plan.tokenLifetime);
    ToolProxy::Settings proxySettings{m_task.id,          plan.run,        plan.config.memoryPrefix,
                                      m_spec.tokenBudget, m_spec.approval, m_env.approvalRules};
    if (!plan.carriedTrees.empty()) {
        TaskTrees::Settings trees;
        for (const auto& [name, directory] : plan.carriedTrees)
            trees.trees.emplace(name, directory);
        trees.scratch = plan.carriedTreesScratch;
        proxySettings.trees = std::move(trees);
    }
    m_proxy = std::make_unique<ToolProxy>(proxySettings, *m_env.tokens, *m_env.store, std::move(*provider));
    // The user answered while the task slept: the agent's first question is that one, answered at once.
    auto woken = keptWakeAnswer(m_env.data, m_task.id);
    if (!woken)
        return woken.error();
    if (*woken) {
        const WakeAnswer& answer = **woken;
        m_proxy->answerWhenAsked({answer.toolCallId, answer.tool, json::parse(answer.arguments, nullptr, false),
                                  answer.approved, answer.note, answer.always});
        m_wakeCall = answer.toolCallId;
    }
    connectProxy();
    return startModelProxy(plan, providerConfig);
}

// A CLI agent reaches its model only through the task's ModelProxy, holding the task token as its key; the
// provider's key stays here. Each call waits for the snapshot of the workspace before the step it starts (the
// CLI's tools are idle while it waits for its model, so the snapshot is the workspace between two steps), and
// counts against the task's budget.
Status TaskRunner::startModelProxy(const LaunchPlan& plan, const ProviderConfig& provider) {
    if (!plan.cli)
        return Ok{};
    ModelUpstream upstream{provider.kind, provider.baseUrl, provider.apiKey, provider.access};
    auto proxy = ModelProxy::listen(plan.modelSocket, std::move(upstream), [this](const std::string& token) {
        return m_proxy ? m_proxy->checkToken(token, scope::kLlm)
                       : makeError(ErrorCode::Unavailable, "the task has ended");
    });
    if (!proxy)
        return proxy.error();
    m_modelProxy = std::move(*proxy);
    if (plan.modelSocket.empty()) { // a cluster's pod: its model calls come to warrend's agents' listener
        if (!m_env.face.clusterAgents)
            return makeError(ErrorCode::Unsupported, "this control plane has no listener for cluster agents");
        m_env.face.clusterAgents->serveModel(
            m_task.id,
            [runner = QPointer<TaskRunner>(this)](UniqueFd connection, const std::string& received) {
                if (TaskRunner* self = runner.data(); self && self->m_modelProxy)
                    self->m_modelProxy->adopt(std::move(connection), received);
            });
        m_clusterPod = true;
    }
    m_modelProxy->setAdmission([this](const ModelCallInfo&, ModelProxy::Done done) {
        if (auto admitted = m_proxy ? m_proxy->admitModelCall() : Status(Ok{}); !admitted)
            return done(admitted);
        if (!m_snapshots)
            return done(Ok{});
        // Before the step the call's reply acts in: the current one while it has not acted yet (Codex starts
        // its turn's step before the first call), else the next one.
        m_snapshots->take(snapshots::SnapshotMeta::Kind::Step, m_step == 0 || m_stepActed ? m_step + 1 : m_step);
        m_snapshots->whenTaken([done = std::move(done)] { done(Ok{}); });
    });
    connect(m_modelProxy.get(), &ModelProxy::called, this, [this](const ModelCall& call) {
        if (m_env.metrics)
            m_env.metrics->modelCall(m_providerKind, call.status >= 200 && call.status < 300,
                                     call.inputTokens, call.outputTokens);
        if (m_proxy)
            m_proxy->countModelCall({call.inputTokens, call.outputTokens, 0});
        recordOwn(modelCallEvent(call));
    });
    return Ok{};
}

void TaskRunner::connectProxy() {
    connect(m_proxy.get(), &ToolProxy::modelCalled, this,
            [this](bool answered, quint64 input, quint64 output) {
                if (m_env.metrics)
                    m_env.metrics->modelCall(m_providerKind, answered, input, output);
            });
    connect(m_proxy.get(), &ToolProxy::modelDelta, this,
            [this](const QString& text, const QString& agent) {
                recordOwn(protocol::ModelDeltaData{text.toStdString()},
                          agent.isEmpty() ? std::nullopt : std::optional(agent.toStdString()));
            });
    connect(m_proxy.get(), &ToolProxy::modelRetry, this,
            [this](int attempt, qint64 delayMs, const QString& why) {
                recordOwn(protocol::LogData{protocol::LogLevel::Warn, "model call failed (" + why.toStdString() + "); retry " +
                                                        std::to_string(attempt) + " in " +
                                                        std::to_string(delayMs) + " ms"});
            });
    connect(m_proxy.get(), &ToolProxy::modelAdapted, this,
            [this](const QString& what) { recordOwn(protocol::LogData{protocol::LogLevel::Warn, what.toStdString()}); });
    connect(m_proxy.get(), &ToolProxy::problem, this, [this](const QString& message) {
        recordOwn(protocol::ErrorData{message.toStdString(), false});
    });
    connect(m_proxy.get(), &ToolProxy::approvalNeeded, this, [this](const ApprovalRecord& approval) {
        // Whoever asks the user has shown what led to the question.
        m_events->afterStored([this, approval] { emit approvalNeeded(approval); });
        updateIdle();
    });
    connect(m_proxy.get(), &ToolProxy::budgetExhausted, this, [this](quint64 used, quint64 budget) {
        stop(StopCause::Budget, "the task used " + std::to_string(used) + " tokens of its budget of " +
                                    std::to_string(budget) + "; raise it with --token-budget");
    });
}

// Events continue the task's sequence.
Status TaskRunner::continueSequence() {
    auto lastSeq = m_events->continueAfterStored(*m_env.store);
    if (!lastSeq)
        return lastSeq.error();
    if (*lastSeq == 0 && m_spec.limits) // what the server clamped comes first
        recordOwn(*m_spec.limits);
    return Ok{};
}

// --network allow:HOSTS: the task's only way out, each of its decisions an event; with --secret, the requests
// to the secrets' hosts made here with their values, each an event naming the secrets put in.
Status TaskRunner::startEgress(const LaunchPlan& plan, std::vector<TaskSecret> secrets) {
    if (plan.egressSocket.empty())
        return Ok{};
    std::vector<PinnedAddress> pinned = plan.pinned;
    pinned.insert(pinned.end(), m_env.face.egressPinned.begin(), m_env.face.egressPinned.end());
    auto egress = EgressProxy::listen(plan.egressSocket, plan.network.hosts, m_env.face.egressAccess, std::move(pinned));
    if (!egress)
        return egress.error();
    m_egress = std::move(*egress);
    auto secretProxy =
        startSecretProxy(plan, m_spec.egressCa.empty() ? m_env.face.egressCa : m_spec.egressCa, std::move(secrets));
    if (!secretProxy)
        return secretProxy.error();
    m_secrets = std::move(*secretProxy);
    if (m_secrets) {
        m_egress->setInterceptor(m_secrets.get());
        connect(m_secrets.get(), &SecretProxy::requested, this, [this](const SecretRequest& request) {
            protocol::NetworkRequestData data;
            data.method = request.method;
            data.host = request.host;
            data.port = request.port;
            data.allowed = true;
            data.address = request.address;
            data.path = request.path;
            if (request.status > 0)
                data.status = std::uint64_t(request.status);
            if (!request.error.empty())
                data.reason = request.error;
            data.secrets = request.secrets;
            recordOwn(data);
        });
    }
    if (plan.network.ask)
        askAboutNetwork(plan);
    connect(m_egress.get(), &EgressProxy::decided, this, [this](const EgressDecision& decision) {
        protocol::NetworkRequestData data;
        data.method = decision.method;
        data.host = decision.host;
        data.port = decision.port;
        data.allowed = decision.allowed;
        if (decision.allowed)
            data.address = decision.address;
        else
            data.reason = decision.reason;
        recordOwn(data);
    });
    return Ok{};
}

// --network ask: a name no rule lists is a question to the user, recorded and shown as an approval (its
// request and its decision events the control plane's own, which an agent's events can never imitate).
void TaskRunner::askAboutNetwork(const LaunchPlan& plan) {
    m_questions = std::make_unique<NetworkQuestions>(
        NetworkQuestions::Settings{m_task.id, plan.run, m_env.networkQuestionWait});
    m_egress->setAsker(m_questions.get());
    connect(m_questions.get(), &NetworkQuestions::asked, this, [this](const ApprovalRecord& question) {
        if (auto stored = m_env.store->insertApproval(question); !stored)
            recordOwn(protocol::ErrorData{"network question not recorded: " + stored.error().message, false});
        protocol::Event event = ownEvent(std::string(protocol::event_type::kApprovalRequested),
                                         protocol::ApprovalRequestedData{question.callId,
                                                                         nlohmann::json::parse(question.arguments),
                                                                         question.reason}
                                             .toJson());
        event.tool = question.tool;
        m_events->store(event, protocol::toJson(event));
        m_events->afterStored([this, question] { emit approvalNeeded(question); });
        updateIdle();
    });
    connect(m_questions.get(), &NetworkQuestions::decided, this, [this](const ApprovalRecord& question) {
        if (auto stored = m_env.store->updateApproval(question); !stored)
            recordOwn(protocol::ErrorData{"network decision not recorded: " + stored.error().message, false});
        protocol::ApprovalResolvedData data{question.callId, question.approved.value_or(false),
                                            question.note.empty() ? std::nullopt : std::optional(question.note),
                                            question.decidedBy};
        protocol::Event event = ownEvent(std::string(protocol::event_type::kApprovalResolved), data.toJson());
        event.tool = question.tool;
        m_events->store(event, protocol::toJson(event));
        updateIdle();
    });
}

// A sandbox with no stdin for the protocol connects, and only a hello with this task's token (channel scope)
// is taken: on one host (kube) on a socket in a directory made afresh for this launch, the token beside it; a
// cluster's pod on warrend's one listener for all its cluster tasks, the token in the pod's Secret.
Status TaskRunner::startListener(const LaunchPlan& plan) {
    const auto adopt = [runner = QPointer<TaskRunner>(this)](UniqueFd connection, const std::string& afterHello) {
        TaskRunner* self = runner.data();
        if (self && self->m_channel)
            self->m_channel->adopt(std::move(connection), afterHello);
    };
    if (!plan.clusterAddress.empty()) {
        if (!m_env.face.clusterAgents)
            return makeError(ErrorCode::Unsupported, "this control plane has no listener for cluster agents; start "
                                                     "warrend serve with --agent-address HOST:PORT");
        // A pod of the task that a run before left running (its control plane died, or its agent's connection
        // was lost: PodTokens.h) is rejoined if it still runs; its agent says hello with that run's token.
        const auto podTokens = readPodTokens(m_env.data, m_task.id);
        m_rejoinPod = !podTokens.empty();
        const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
        const PodToken mine{
            podTokenDigest(m_token),
            now + std::chrono::duration_cast<std::chrono::milliseconds>(plan.tokenLifetime).count()};
        // Beside those there (none: a launch that makes its pod afresh), as it may make a new pod instead.
        if (auto kept = keepPodTokens(m_env.data, m_task.id, keptPodTokens(podTokens, mine, now)); !kept)
            return kept;
        m_env.face.clusterAgents->expect(m_task.id, adopt, podTokens);
        m_clusterPod = true;
        return Ok{};
    }
    if (plan.channelDir.empty())
        return Ok{};
    std::error_code error;
    fs::remove_all(plan.channelDir, error);
    if (error || !fs::create_directory(plan.channelDir, error))
        return makeError(ErrorCode::System, "cannot make " + plan.channelDir + " afresh: " + error.message() +
                                                "; check that the data directory is writable");
    fs::permissions(plan.channelDir, fs::perms::owner_all, error);
    const std::string tokenPath = plan.channelDir + "/" + kChannelTokenName;
    UniqueFd token(::open(tokenPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400));
    const std::string line = m_token + "\n";
    if (!token.valid() || ::write(token.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size()))
        return makeError(ErrorCode::System, "cannot write the task token to " + tokenPath + ": " +
                                                std::strerror(errno));
    auto listener = AgentListener::listenUnix(plan.channelDir + "/" + kChannelSocketName, *m_env.tokens);
    if (!listener)
        return listener.error();
    m_listener = std::move(*listener);
    connect(m_listener.get(), &AgentListener::refused, this,
            [this](const QString& why) { recordOwn(protocol::ErrorData{why.toStdString(), false}); });
    m_listener->expect(m_task.id, adopt);
    return Ok{};
}

void TaskRunner::watchSandbox() {
    m_exitNotifier = new QSocketNotifier(m_process->pidfd(), QSocketNotifier::Read, this);
    connect(m_exitNotifier, &QSocketNotifier::activated, this, &TaskRunner::onSandboxExited);
    if (m_process->statusFd() >= 0) {
        m_statusNotifier = new QSocketNotifier(m_process->statusFd(), QSocketNotifier::Read, this);
        connect(m_statusNotifier, &QSocketNotifier::activated, this, &TaskRunner::onStatusReadable);
    }
    if (m_env.cancelRequests) // `warren cancel` from another process
        m_env.cancelRequests->watch(m_task.id, this, [this] { cancel("cancelled with `warren cancel`"); });
}

void TaskRunner::onStatusReadable() {
    if (!m_statusNotifier || !m_process)
        return;
    // readStatus() closes the descriptor at EOF; the notifier must not poll that number again (the
    // kernel may hand it to another task's pipe).
    m_statusNotifier->setEnabled(false);
    m_process->readStatus();
    if (m_process->statusFd() >= 0) {
        m_statusNotifier->setEnabled(true);
        return;
    }
    m_statusNotifier->deleteLater();
    m_statusNotifier = nullptr;
}

void TaskRunner::markRunning() {
    m_task.status = TaskStatus::Running;
    m_task.runs += 1;
    if (m_task.startedAt.empty())
        m_task.startedAt = now();
    m_task.error.clear();
    m_task.finishReason.clear();
    if (auto updated = m_env.store->updateTask(m_task); !updated)
        recordOwn(protocol::ErrorData{updated.error().message, false});
    if (m_spec.timeoutSec)
        m_timeout.start(std::chrono::seconds(m_spec.timeoutSec));
}

void TaskRunner::send(const protocol::Message& message) {
    if (m_channel)
        m_channel->send(message);
}

void TaskRunner::onAgentLine(const Result<std::string>& line) {
    if (m_launchedAt && m_env.metrics) // the agent speaks: its sandbox has started
        m_env.metrics->sandboxStarted(
            sandbox::backendName(m_spec.backend),
            std::chrono::duration<double>(std::chrono::steady_clock::now() - *m_launchedAt).count(),
            m_process && m_process->startedWarm());
    m_launchedAt.reset();
    if (!line) {
        recordOwn(protocol::ErrorData{"agent stdout: " + line.error().message, false});
        return;
    }
    auto decoded = protocol::decodeMessage(*line);
    if (auto* invalid = std::get_if<protocol::InvalidMessage>(&decoded)) {
        recordOwn(protocol::ErrorData{"agent stdout: " + invalid->error.message, false});
        return;
    }
    auto& message = std::get<protocol::Message>(decoded);
    if (auto* notification = std::get_if<protocol::Notification>(&message)) {
        onAgentNotification(*notification);
    } else if (auto* request = std::get_if<protocol::Request>(&message)) {
        // A step's model call waits for the snapshot of the workspace before that step (its budget).
        const auto handle = [this, request = *request] {
            if (!m_done)
                m_proxy->handle(request, [this](protocol::Message reply) { send(reply); });
        };
        if (m_snapshots)
            m_snapshots->whenTaken(handle);
        else
            handle();
    } else if (auto* error = std::get_if<protocol::ErrorResponse>(&message)) {
        // Only task.start is ever sent as a request: its refusal ends the run.
        m_ending.agentRefused(error->error.message);
        recordOwn(protocol::ErrorData{"the agent refused the task: " + error->error.message, true});
    }
}

void TaskRunner::onAgentNotification(protocol::Notification& notification) {
    if (notification.method != protocol::method::kEvent) {
        recordOwn(
            protocol::ErrorData{"agent sent an unknown notification \"" + notification.method + "\"", false});
        return;
    }
    auto event = protocol::eventFromJson(notification.params);
    if (!event) {
        recordOwn(protocol::ErrorData{"agent event refused: " + event.error().message, false});
        return;
    }
    // What the control plane alone witnesses (its egress decisions, the limits it applied, the model calls
    // its proxy made) is never taken from the sandbox, where it could be forged.
    if (protocol::isControlPlaneEventType(event->type)) {
        recordOwn(protocol::ErrorData{"agent event refused: " + event->type +
                                          " is written by the control plane only, never by the agent",
                                      false});
        return;
    }
    if (isNetworkQuestionEvent(event->type, event->tool, event->data)) {
        recordOwn(protocol::ErrorData{"agent event refused: " + event->type +
                                          " of a network question is written by the control plane only",
                                      false});
        return;
    }
    if (auto follows = protocol::checkSeqFollows(m_lastAgentSeq, event->seq); !follows)
        recordOwn(protocol::ErrorData{"agent events out of order: " + follows.error().message, false});
    m_lastAgentSeq = event->seq;
    auto payload = protocol::payloadFromJson(event->type, event->data);
    if (!payload) {
        const std::string refused = refusedEventMessage(*event, payload.error().message);
        recordOwn(protocol::ErrorData{refused, false});
        // The run goes on; an end whose reason cannot be read is a failure, and says why.
        if (event->type == protocol::event_type::kTaskFinished)
            m_ending.agentFinished("failed", refused);
        return;
    }
    onAgentEvent(*event, *payload, std::move(notification.params));
}

void TaskRunner::onAgentEvent(const protocol::Event& event, const protocol::EventPayload& payload, json body) {
    // A sub-agent's steps are its own: the task's step, its snapshots and its count are the task's agent's.
    if (!event.agent) {
        if (event.step != m_step)
            m_stepActed = false;
        m_step = event.step;
        m_stepActed = m_stepActed || event.type == protocol::event_type::kToolCall;
        // A CLI's steps are snapshotted as its model calls arrive (startModelProxy), before their tools run.
        if (event.type == protocol::event_type::kStepStarted && m_snapshots && !m_modelProxy)
            m_snapshots->take(snapshots::SnapshotMeta::Kind::Step, event.step);
        m_task.steps = std::max(m_task.steps, event.step);
    }
    if (event.type == protocol::event_type::kUserMessage && !event.agent)
        forgetReply(m_env.data, m_task.id); // the agent's checkpoint holds it now
    if (const auto* asking = std::get_if<protocol::ApprovalRequestedData>(&payload); asking && m_proxy)
        m_proxy->announced(asking->id, event.tool.value_or(""), asking->arguments);
    if (const auto* finished = std::get_if<protocol::TaskFinishedData>(&payload))
        m_ending.agentFinished(std::string(toString(finished->reason)), finished->summary.value_or(""));
    // The call a kept answer was for has its result: the answer is spent (a run killed before this point
    // is answered again, never asked twice).
    if (const auto* result = std::get_if<protocol::ToolResultData>(&payload);
        result && !event.agent && result->id == m_wakeCall) {
        forgetWakeAnswer(m_env.data, m_task.id);
        m_wakeCall.reset();
    }
    // The agent's object as it came (validated above), under the store's seq: no re-serialising.
    m_events->store(event, std::move(body));
    m_idleWait.observe(event, payload);
    updateIdle();
}

protocol::Event TaskRunner::ownEvent(const std::string& type, json data) const {
    protocol::Event event;
    event.ts = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    event.type = type;
    event.step = m_step;
    event.data = std::move(data);
    return event;
}

void TaskRunner::recordOwn(const std::string& type, json data, std::optional<std::string> agent) {
    protocol::Event event = ownEvent(type, std::move(data));
    event.agent = std::move(agent);
    m_events->store(event, protocol::toJson(event));
}

void TaskRunner::cancel(const std::string& why) {
    stop(StopCause::User, why);
}

void TaskRunner::pause() {
    stop(StopCause::Pause, "paused by the user");
}

bool TaskRunner::answerApproval(const std::string& callId, bool approved, const std::string& note,
                                bool always) {
    const bool answered = isNetworkQuestionId(callId) ? m_questions && m_questions->answer(callId, approved, note, always)
                                                      : m_proxy && m_proxy->answerApproval(callId, approved, note, always);
    updateIdle();
    return answered;
}

bool TaskRunner::isWaiting(const std::string& callId) const {
    if (isNetworkQuestionId(callId))
        return m_questions && m_questions->isWaiting(callId);
    return m_proxy && m_proxy->isWaiting(callId);
}

void TaskRunner::addApprovalRule(const ApprovalRule& rule) {
    if (m_proxy)
        m_proxy->addRule(rule);
}

void TaskRunner::stop(StopCause cause, const std::string& why) {
    if (m_done || !m_process || m_ending.stopCause() != StopCause::None)
        return;
    m_ending.stopped(cause, why);
    const char* method = cause == StopCause::Pause || cause == StopCause::Sleep ? protocol::method::kControlPause
                                                                                : protocol::method::kControlCancel;
    send(protocol::Notification{method, protocol::toJson(protocol::ControlParams{why})});
    m_escalation = 0;
    m_grace.start(m_env.stopGrace);
}

void TaskRunner::updateIdle() {
    if (m_done || !m_proxy)
        return;
    std::set<std::string> waiting;
    for (const auto& [record, toolCallId] : m_proxy->waitingApprovals())
        waiting.insert(toolCallId);
    const bool otherWork = m_proxy->modelCallsInFlight() || (m_questions && m_questions->anyWaiting());
    const bool idle = m_idleWait.onlyWaitsForUser(waiting, otherWork);
    if (idle == m_waitingForUser)
        return;
    m_waitingForUser = idle;
    if (idle) {
        // Waiting is not working: the task's timeout stands still while only the user can move it on.
        if (m_timeout.isActive()) {
            m_timeoutLeft = std::chrono::milliseconds(std::max(0, m_timeout.remainingTime()));
            m_timeout.stop();
        }
        // Warren's own agent keeps an unanswered question in its checkpoint and asks it again when resumed;
        // a CLI's question would be lost with its process.
        if (m_idleSleep.count() > 0 && m_spec.agent == protocol::AgentKind::Warren)
            m_idle.start(m_idleSleep);
        return;
    }
    m_idle.stop();
    if (m_timeoutLeft)
        m_timeout.start(*std::exchange(m_timeoutLeft, std::nullopt));
}

void TaskRunner::sleep() {
    updateIdle();
    if (!m_waitingForUser)
        return;
    stop(StopCause::Sleep, "its agent waited " + std::to_string(m_idleSleep.count() / 1000) +
                               " s for the user's answer: it sleeps until then");
}

// A run that ended paused or asleep while questions of its agent waited: they are kept beside the task, so
// the user can still answer them (TaskManager::answerApproval wakes the task). Asleep with nothing kept, the
// task is only paused.
void TaskRunner::keepOpenQuestions(TaskStatus& status) {
    if (status != TaskStatus::Sleeping && status != TaskStatus::Paused) {
        forgetSleep(m_env.data, m_task.id);
        return;
    }
    SleepRecord record{now(), {}};
    for (const auto& [approval, toolCallId] : m_proxy ? m_proxy->waitingApprovals()
                                                      : std::vector<std::pair<ApprovalRecord, std::string>>{})
        if (!toolCallId.empty())
            record.questions.push_back({approval.callId, toolCallId, approval.tool, approval.arguments});
    Status kept = record.questions.empty() ? Status(Ok{}) : keepSleep(m_env.data, m_task.id, record);
    if (!kept)
        recordOwn(protocol::ErrorData{"the task's open questions were not kept (answer them after `warren resume " +
                                          m_task.id + "`): " + kept.error().message,
                                      false});
    if (status == TaskStatus::Sleeping && (!kept || record.questions.empty())) {
        status = TaskStatus::Paused;
        return;
    }
    if (status == TaskStatus::Sleeping) {
        protocol::TaskSleptData slept{static_cast<std::uint64_t>(m_idleSleep.count()), {}};
        for (const auto& question : record.questions)
            slept.questions.push_back(question.toolCallId);
        recordOwn(slept);
    }
}

void TaskRunner::escalate() {
    if (m_done || !m_process)
        return;
    if (m_escalation == 0) {
        m_escalation = 1;
        m_process->terminate();
        m_grace.start(m_env.stopGrace);
    } else {
        m_escalation = 2;
        m_process->kill();
    }
}

void TaskRunner::onSandboxExited() {
    m_lostConnection.stop();
    m_exitNotifier->setEnabled(false);
    if (m_statusNotifier)
        m_statusNotifier->setEnabled(false); // wait() reads bwrap's status to its end and closes it
    auto exit = m_process->exitStatus();
    // Every process of the sandbox is gone, so its ends of the pipes are closed: read what is left.
    m_channel->drain();
    if (m_launchedAt && m_env.metrics) // it ended before its agent said anything
        m_env.metrics->sandboxFailed(sandbox::backendName(m_spec.backend));
    m_launchedAt.reset();
    const std::string stderrText = m_channel->stderrTail(kDiagnosticsBytes);
    const std::string diagnostics = stderrText.empty() ? "" : "\nThe agent said:\n" + stderrText;
    if (!exit || exit->reason == sandbox::SandboxExit::Reason::SetupFailed) {
        fail("sandbox",
             "the sandbox could not start the agent" + diagnostics + "\n" + m_process->setupFailureReport());
        return;
    }
    if (exit->oomKilled)
        recordOwn(protocol::ErrorData{
            "the sandbox reached its memory limit and the kernel killed a process in it", false});
    const RunEnding::Ending ending = m_ending.after(*exit, diagnostics, m_task.id);
    finish(ending.status, ending.reason, ending.error);
}

// A cluster's pod whose agent lost its connection (a network that dropped, a listener that restarted) while
// it ran: the agent pauses at its checkpoint and reconnects, so the pod is left running, after a grace in
// which an agent that exited would have ended it. Not when the agent said how it ended or the control plane
// stopped it: its sandbox's exit follows.
void TaskRunner::onConnectionLost() {
    if (agentMayReconnect())
        m_lostConnection.start(kLostConnectionGrace);
}

bool TaskRunner::agentMayReconnect() const {
    return !m_done && !m_ending.agentEnded() && m_ending.stopCause() == StopCause::None;
}

// The task is queued again (TaskManager) for a launch that rejoins the pod; what the agent could not send
// comes with its next run (EventLog's unsent events, in its checkpoint).
void TaskRunner::leavePodRunning() {
    if (!agentMayReconnect() || !m_process || !m_process->detach())
        return;
    m_podLeftRunning = true;
    recordOwn(
        protocol::LogData{protocol::LogLevel::Warn,
                          "the agent's connection to the control plane was lost; its pod runs on, and the "
                          "task continues there from its checkpoint when the agent connects again"});
    finish(TaskStatus::Queued, "", "");
}

void TaskRunner::finish(TaskStatus endStatus, const std::string& endReason, const std::string& error) {
    if (m_done)
        return;
    m_done = true;
    m_timeout.stop();
    m_grace.stop();
    m_idle.stop();
    m_lostConnection.stop();
    if (m_clusterPod &&
        !m_podLeftRunning) // its pod goes with m_process: none of the task's is left to rejoin
        forgetPodTokens(m_env.data, m_task.id);
    TaskStatus status = endStatus;
    keepOpenQuestions(status);
    const std::string reason = status == endStatus ? endReason : "paused";
    if (m_proxy) {
        m_proxy->abortAll();
        const auto used = m_proxy->used();
        m_task.tokensIn += used.input;
        m_task.tokensOut += used.output;
    }
    if (m_questions)
        m_questions->abortAll(); // the connections waiting on a question are refused, saying the task ended
    m_egress.reset(); // its connections close with it, so nothing of the task reaches out after its end
    m_secrets.reset();
    m_modelProxy.reset();
    if (m_listener) // later: this may be a call from inside its accept
        m_listener.release()->deleteLater();
    if (m_clusterPod) // an agent that never connected, a CLI's model calls: none later is taken
        m_env.face.clusterAgents->forget(m_task.id);
    if (!m_token.empty())
        m_env.tokens->revokeTask(m_task.id);
    if (!error.empty())
        recordOwn(protocol::ErrorData{error, true});
    for (const auto& problem : storeArtifacts(*m_env.store, m_task.id, m_env.data.outputDir(m_task.id)))
        recordOwn(protocol::ErrorData{problem, false});
    // The notifiers watch descriptors that close with the process: none may fire after this.
    for (QSocketNotifier* notifier : {m_exitNotifier, m_statusNotifier})
        if (notifier) {
            notifier->setEnabled(false);
            notifier->deleteLater(); // one of them may be the sender of the call we are in
        }
    m_exitNotifier = m_statusNotifier = nullptr;
    m_process.reset();
    if (m_channel)
        m_channel->close();
    // The task's record says it ended once its events are stored: a slow or restarting database holds
    // this task's end back, not the event loop everything else runs on.
    const auto end = [this, status, reason, error] {
        m_events->afterStored([this, status, reason, error] { recordEnd(status, reason, error); });
    };
    if (m_snapshots && m_step > 0 && !m_podLeftRunning) {
        m_snapshots->take(snapshots::SnapshotMeta::Kind::End, m_step + 1);
        m_snapshots->afterAll(end);
    } else {
        end();
    }
}

// The workspace is recorded before each step in the task's shadow repository (app/snapshots), beside the
// task, for `warren diff` and `warren rewind`. A snapshot that fails is reported and the task goes on.
void TaskRunner::startSnapshots(const LaunchPlan& plan) {
    if (m_task.workspace.empty())
        return;
    // What the sandbox holds read-only (placeholders where absent) is not the task's to change or record.
    std::vector<std::string> held;
    if (auto profile = sandbox::resolveProfile(plan.launch.layers))
        for (const auto& path : profile->protectedPaths)
            if (!path.onlyIfExists) {
                std::string relative = path.path;
                while (!relative.empty() && relative.back() == '/')
                    relative.pop_back();
                held.push_back(relative);
            }
    const std::string& id = m_task.id;
    m_snapshots = std::make_unique<snapshots::TaskSnapshots>(
        m_env.data.snapshotsDir(id), m_task.workspace, m_env.data.stateDir(id) + "/checkpoint.json",
        std::move(held), m_env.snapshotBudget);
    connect(m_snapshots.get(), &snapshots::TaskSnapshots::taken, this,
            [this](quint64 step, const QString& problem, qint64 elapsedMs) {
                if (!problem.isEmpty())
                    recordOwn(protocol::LogData{protocol::LogLevel::Warn, "the workspace snapshot before step " +
                                                            std::to_string(step) + " failed (warren rewind "
                                                            "cannot go back to it): " + problem.toStdString()});
                else if (elapsedMs > m_env.snapshotBudget.count())
                    recordOwn(protocol::LogData{
                        protocol::LogLevel::Warn, "the workspace snapshot before step " + std::to_string(step) + " took " +
                                    std::to_string(elapsedMs) + " ms, past its budget: the agent went on "
                                    "meanwhile, so it may hold some of that step's changes"});
            });
}

void TaskRunner::recordEnd(TaskStatus status, const std::string& reason, const std::string& error) {
    m_task.status = status;
    m_task.finishReason = reason;
    m_task.error = error;
    // Asleep, the agent's own words ("paused; resume to continue") are not what happened: it only stopped.
    if (status == TaskStatus::Sleeping)
        m_task.summary = kSleepingSummary;
    else if (!m_ending.summary().empty())
        m_task.summary = m_ending.summary();
    m_task.finishedAt = isFinal(status) ? now() : "";
    if (auto updated = m_env.store->updateTask(m_task); !updated)
        m_task.error += "\n(the task's record could not be updated: " + updated.error().message + ")";
    m_lock.reset();
    emit finished(m_task.id);
}

} // namespace warren::control
