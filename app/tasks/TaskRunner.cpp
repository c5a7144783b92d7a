#include "TaskRunner.h"

#include "AgentConfig.h"
#include "AgentSandbox.h"
#include "EgressProxy.h"
#include "EventTypes.h"
#include "EventWriter.h"
#include "Methods.h"
#include "ProviderKey.h"
#include "Store.h"
#include "TaskToken.h"
#include "Timestamp.h"
#include "ToolProxy.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileSystemWatcher>
#include <QSocketNotifier>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <sys/file.h>
#include <sys/un.h>
#include <unistd.h>

namespace warren::control {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kStderrTailBytes = 16 * 1024;
constexpr std::size_t kReadChunk = 256 * 1024;
constexpr std::size_t kReadPerWakeup = 8 * 1024 * 1024; // then yield to the event loop
constexpr const char* kCancelRequestFile = "cancel-requested";
constexpr std::size_t kMaxUnixSocketPath = sizeof(sockaddr_un{}.sun_path);

std::string now() { return protocol::formatTimestamp(std::chrono::system_clock::now()); }

std::string tail(const std::string& text, std::size_t bytes) {
    return text.size() <= bytes ? text : "…" + text.substr(text.size() - bytes);
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

Status makeDirectory(const std::string& path) {
    std::error_code error;
    fs::create_directories(path, error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + path + ": " + error.message() +
                                                "; check that the data directory is writable");
    return Ok{};
}

// Both ends close-on-exec; ours non-blocking. The child's end is handed to the sandbox's stdio.
Status makePipe(UniqueFd& ours, UniqueFd& theirs, bool oursReads) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return makeError(ErrorCode::System, std::string("pipe2: ") + std::strerror(errno));
    ours = UniqueFd(oursReads ? fds[0] : fds[1]);
    theirs = UniqueFd(oursReads ? fds[1] : fds[0]);
    fcntl(ours.get(), F_SETFL, fcntl(ours.get(), F_GETFL) | O_NONBLOCK);
    return Ok{};
}

TaskStatus statusForFinishReason(const std::string& reason) {
    if (reason == "finished")
        return TaskStatus::Succeeded;
    if (reason == "cancelled")
        return TaskStatus::Cancelled;
    if (reason == "paused")
        return TaskStatus::Paused;
    return TaskStatus::Failed; // failed, guard
}

} // namespace

TaskRunner::TaskRunner(const RunnerEnvironment& environment, TaskRecord task, TaskSpec spec, QObject* parent)
    : QObject(parent), m_env(environment), m_task(std::move(task)), m_spec(std::move(spec)) {
    m_timeout.setSingleShot(true);
    m_grace.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        stop(StopCause::Timeout, "the task ran longer than its timeout of " + std::to_string(m_spec.timeoutSec) +
                                     " s; raise it with --timeout");
    });
    connect(&m_grace, &QTimer::timeout, this, &TaskRunner::escalate);
}

TaskRunner::~TaskRunner() {
    if (m_process)
        m_process->kill();
}

void TaskRunner::start() {
    m_startedAt = std::chrono::steady_clock::now();
    if (auto launched = launch(); !launched) {
        // finish() may already have run (a sandbox that could not be set up says so itself).
        if (!m_done)
            fail("launch", launched.error().message);
    }
}

Status TaskRunner::launch() {
    const std::string& id = m_task.id;
    // One control plane runs a task at a time: the lock is held for as long as the agent runs, and tells
    // recovery in another process that this task is alive.
    if (auto made = makeDirectory(m_env.data.stateDir(id)); !made)
        return made;
    if (auto made = makeDirectory(m_env.data.outputDir(id)); !made)
        return made;
    m_lock = UniqueFd(::open((m_env.data.taskDir(id) + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!m_lock.valid() || flock(m_lock.get(), LOCK_EX | LOCK_NB) != 0)
        return makeError(ErrorCode::InvalidArgument,
                         "task " + id + " is already running in another warren process; stop it there first");
    fs::remove(m_env.data.taskDir(id) + "/" + kCancelRequestFile);

    // The agent's settings as it will resolve them: which memory to mount, whether safe-mode wants the
    // strict profile. The control plane injects the memory prefix (one local user: "local").
    json overrides = m_spec.overrides;
    if (!overrides.contains("memory_prefix") || overrides["memory_prefix"] == "")
        overrides["memory_prefix"] = "local";
    auto config = agent::resolveConfig(m_spec.presets, overrides);
    if (!config)
        return config.error();
    const bool strict = std::find(m_spec.presets.begin(), m_spec.presets.end(), "safe-mode") != m_spec.presets.end();

    AgentSandboxInput input;
    input.workspace = m_task.workspace;
    input.stateDir = m_env.data.stateDir(id);
    input.outputDir = m_env.data.outputDir(id);
    input.agentBinary = m_env.agentBinary;
    auto network = parseTaskNetwork(m_spec.network);
    if (!network)
        return network.error();
    input.network = network->kind == TaskNetwork::Kind::None ? "none" : "loopback";
    input.strict = strict;
    input.extraLayers = m_env.extraProfileLayers;
    input.memoryPrefix = config->memoryPrefix;
    if (config->memoryBackend == agent::MemoryBackendKind::Filesystem) {
        input.memoriesDir = m_env.data.memoriesDir(config->memoryPrefix);
        if (auto made = makeDirectory(input.memoriesDir); !made)
            return made;
    }
    // The model: the provider with its key, which stays in this process. Before the sandbox is prepared,
    // which already touches the workspace (protected-path placeholders) and the cgroups.
    auto providerConfig = parseProviderSpec(m_spec.provider, m_spec.model);
    if (!providerConfig)
        return providerConfig.error();
    auto key = lookUpKey(*providerConfig, providerConfig->keyName.empty() ? nullptr : m_env.secrets());
    if (!key)
        return key.error();
    providerConfig->apiKey = *key;
    auto provider = createProvider(*providerConfig, m_env.network);
    if (!provider)
        return provider.error();

    m_token = m_env.tokens->issue(id, {scope::kLlm, scope::kMemory, scope::kApproval},
                                  std::chrono::seconds(m_spec.timeoutSec ? m_spec.timeoutSec + 300 : 7 * 24 * 3600));
    ToolProxy::Settings proxySettings{id, m_task.runs + 1, config->memoryPrefix, m_spec.tokenBudget,
                                      m_spec.approval, m_env.approvalRules};
    m_proxy = std::make_unique<ToolProxy>(proxySettings, *m_env.tokens, *m_env.store, std::move(*provider));
    connect(m_proxy.get(), &ToolProxy::modelDelta, this,
            [this](const QString& text) { recordOwn(std::string(protocol::event_type::kModelDelta), {{"text", text.toStdString()}}); });
    connect(m_proxy.get(), &ToolProxy::modelRetry, this, [this](int attempt, qint64 delayMs, const QString& why) {
        recordOwn(std::string(protocol::event_type::kLog),
                  {{"level", "warn"},
                   {"message", "model call failed (" + why.toStdString() + "); retry " + std::to_string(attempt) +
                                   " in " + std::to_string(delayMs) + " ms"}});
    });
    connect(m_proxy.get(), &ToolProxy::problem, this, [this](const QString& message) {
        recordOwn(std::string(protocol::event_type::kError), {{"message", message.toStdString()}, {"fatal", false}});
    });
    connect(m_proxy.get(), &ToolProxy::approvalNeeded, this, [this](const ApprovalRecord& approval) {
        settleEvents(); // whoever asks the user has shown what led to the question
        emit approvalNeeded(approval);
    });
    connect(m_proxy.get(), &ToolProxy::budgetExhausted, this, [this](quint64 used, quint64 budget) {
        stop(StopCause::Budget, "the task used " + std::to_string(used) + " tokens of its budget of " +
                                    std::to_string(budget) + "; raise it with --token-budget");
    });

    // Events continue the task's sequence.
    m_env.events->flush();
    auto lastSeq = m_env.store->lastSeq(id);
    if (!lastSeq)
        return lastSeq.error();
    m_nextSeq = *lastSeq + 1;

    if (network->kind == TaskNetwork::Kind::Allow) {
        const std::string socket = m_env.data.taskDir(id) + "/egress.sock";
        if (socket.size() >= kMaxUnixSocketPath)
            return makeError(ErrorCode::InvalidArgument,
                             "the egress proxy's socket path " + socket + " is too long for a Unix socket; " +
                                 "pass a shorter --data-dir");
        auto egress = EgressProxy::listen(socket, network->hosts);
        if (!egress)
            return egress.error();
        m_egress = std::move(*egress);
        connect(m_egress.get(), &EgressProxy::decided, this, [this](const EgressDecision& decision) {
            json data = {{"method", decision.method}, {"host", decision.host}, {"port", decision.port},
                         {"allowed", decision.allowed}};
            if (decision.allowed)
                data["address"] = decision.address;
            else
                data["reason"] = decision.reason;
            recordOwn(std::string(protocol::event_type::kNetworkRequest), std::move(data));
        });
        input.egressSocket = socket;
    }

    UniqueFd childIn, childOut, childErr;
    if (auto made = makePipe(m_stdin, childIn, false); !made)
        return made;
    if (auto made = makePipe(m_stdout, childOut, true); !made)
        return made;
    if (auto made = makePipe(m_stderr, childErr, true); !made)
        return made;
    AgentLaunch launch;
    launch.backend = m_spec.backend;
    launch.image = m_spec.image;
    launch.taskId = id;
    launch.layers = agentProfileLayers(input);
    // Not the workspace, not even the demo's copy in the data directory: a root-owned one is written through
    // an idmapped view (docs/SECURITY.md), which the owner that the launch chose would no longer match.
    launch.ownedDirs = {input.stateDir, input.outputDir, input.memoriesDir};
    launch.stdio = {childIn.get(), childOut.get(), childErr.get()};
    auto process = launchAgent(launch);
    if (!process) {
        fail("sandbox", process.error().message);
        return Ok{};
    }
    m_process = std::move(*process);

    m_stdoutNotifier = new QSocketNotifier(m_stdout.get(), QSocketNotifier::Read, this);
    connect(m_stdoutNotifier, &QSocketNotifier::activated, this, &TaskRunner::onStdoutReadable);
    m_stderrNotifier = new QSocketNotifier(m_stderr.get(), QSocketNotifier::Read, this);
    connect(m_stderrNotifier, &QSocketNotifier::activated, this, &TaskRunner::onStderrReadable);
    m_stdinNotifier = new QSocketNotifier(m_stdin.get(), QSocketNotifier::Write, this);
    m_stdinNotifier->setEnabled(false);
    connect(m_stdinNotifier, &QSocketNotifier::activated, this, &TaskRunner::onStdinWritable);
    m_exitNotifier = new QSocketNotifier(m_process->pidfd(), QSocketNotifier::Read, this);
    connect(m_exitNotifier, &QSocketNotifier::activated, this, &TaskRunner::onSandboxExited);
    if (m_process->statusFd() >= 0) {
        m_statusNotifier = new QSocketNotifier(m_process->statusFd(), QSocketNotifier::Read, this);
        connect(m_statusNotifier, &QSocketNotifier::activated, this, [this] {
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
        });
    }
    // `warren cancel` from another process drops a file in the task's directory.
    m_cancelWatcher = new QFileSystemWatcher({QString::fromStdString(m_env.data.taskDir(id))}, this);
    connect(m_cancelWatcher, &QFileSystemWatcher::directoryChanged, this, [this] {
        if (fs::exists(m_env.data.taskDir(m_task.id) + "/" + kCancelRequestFile))
            cancel("cancelled with `warren cancel`");
    });

    m_task.status = TaskStatus::Running;
    m_task.runs += 1;
    if (m_task.startedAt.empty())
        m_task.startedAt = now();
    m_task.error.clear();
    m_task.finishReason.clear();
    if (auto updated = m_env.store->updateTask(m_task); !updated)
        recordOwn(std::string(protocol::event_type::kError), {{"message", updated.error().message}, {"fatal", false}});
    if (m_spec.timeoutSec)
        m_timeout.start(std::chrono::seconds(m_spec.timeoutSec));

    protocol::TaskStartParams params;
    params.taskId = id;
    params.prompt = m_task.prompt;
    params.presets = m_spec.presets;
    params.overrides = overrides;
    params.token = m_token;
    send(protocol::Request{std::int64_t{0}, protocol::method::kTaskStart, protocol::toJson(params)});
    return Ok{};
}

void TaskRunner::send(const protocol::Message& message) {
    if (!m_stdin.valid())
        return;
    m_stdinBuffer += protocol::serialize(message);
    m_stdinBuffer += '\n';
    flushStdin();
}

void TaskRunner::flushStdin() {
    while (!m_stdinBuffer.empty() && m_stdin.valid()) {
        const ssize_t n = ::write(m_stdin.get(), m_stdinBuffer.data(), m_stdinBuffer.size());
        if (n > 0) {
            m_stdinBuffer.erase(0, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            if (m_stdinNotifier)
                m_stdinNotifier->setEnabled(true);
            return;
        }
        // EPIPE: the agent is gone; its exit is handled when the sandbox ends.
        m_stdinBuffer.clear();
        if (m_stdinNotifier)
            m_stdinNotifier->setEnabled(false);
        m_stdin.reset();
        return;
    }
    if (m_stdinNotifier)
        m_stdinNotifier->setEnabled(false);
}

void TaskRunner::onStdinWritable() { flushStdin(); }

void TaskRunner::onStdoutReadable() {
    char buffer[kReadChunk];
    std::size_t total = 0;
    while (m_stdout.valid() && total < kReadPerWakeup) {
        const ssize_t n = ::read(m_stdout.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return; // wait for more
        if (n <= 0) {
            for (auto& line : m_lines.finish())
                line ? onAgentLine(*line)
                     : recordOwn(std::string(protocol::event_type::kError),
                                 {{"message", "agent stdout: " + line.error().message}, {"fatal", false}});
            m_stdoutNotifier->setEnabled(false);
            m_stdout.reset();
            return;
        }
        total += static_cast<std::size_t>(n);
        for (auto& line : m_lines.feed({buffer, static_cast<std::size_t>(n)})) {
            if (line)
                onAgentLine(*line);
            else
                recordOwn(std::string(protocol::event_type::kError),
                          {{"message", "agent stdout: " + line.error().message}, {"fatal", false}});
        }
    }
}

void TaskRunner::onStderrReadable() {
    char buffer[16 * 1024];
    for (;;) {
        const ssize_t n = ::read(m_stderr.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            m_stderrNotifier->setEnabled(false);
            m_stderr.reset();
            return;
        }
        m_stderrTail.append(buffer, static_cast<std::size_t>(n));
        if (m_stderrTail.size() > 2 * kStderrTailBytes)
            m_stderrTail.erase(0, m_stderrTail.size() - kStderrTailBytes);
    }
}

void TaskRunner::onAgentLine(const std::string& line) {
    auto decoded = protocol::decodeMessage(line);
    if (auto* invalid = std::get_if<protocol::InvalidMessage>(&decoded)) {
        recordOwn(std::string(protocol::event_type::kError),
                  {{"message", "agent stdout: " + invalid->error.message}, {"fatal", false}});
        return;
    }
    auto& message = std::get<protocol::Message>(decoded);
    if (auto* notification = std::get_if<protocol::Notification>(&message)) {
        if (notification->method != protocol::method::kEvent) {
            recordOwn(std::string(protocol::event_type::kError),
                      {{"message", "agent sent an unknown notification \"" + notification->method + "\""},
                       {"fatal", false}});
            return;
        }
        auto event = protocol::eventFromJson(notification->params);
        if (!event) {
            recordOwn(std::string(protocol::event_type::kError),
                      {{"message", "agent event refused: " + event.error().message}, {"fatal", false}});
            return;
        }
        onAgentEvent(std::move(*event), std::move(notification->params));
    } else if (auto* request = std::get_if<protocol::Request>(&message)) {
        m_proxy->handle(*request, [this](protocol::Message reply) { send(reply); });
    } else if (auto* error = std::get_if<protocol::ErrorResponse>(&message)) {
        // Only task.start is ever sent as a request: its refusal ends the run.
        m_startRefused = error->error.message;
        recordOwn(std::string(protocol::event_type::kError), {{"message", "the agent refused the task: " + m_startRefused},
                                                              {"fatal", true}});
    }
}

void TaskRunner::onAgentEvent(const protocol::Event& event, json body) {
    if (auto follows = protocol::checkSeqFollows(m_lastAgentSeq, event.seq); !follows)
        recordOwn(std::string(protocol::event_type::kError),
                  {{"message", "agent events out of order: " + follows.error().message}, {"fatal", false}});
    m_lastAgentSeq = event.seq;
    m_step = event.step;
    m_task.steps = std::max(m_task.steps, event.step);
    if (event.type == protocol::event_type::kTaskFinished) {
        m_finishedReason = event.data.value("reason", "failed");
        m_summary = event.data.value("summary", "");
    }
    // The agent's object as it came (validated above), under the store's seq: no re-serialising.
    store(event, std::move(body));
}

void TaskRunner::recordOwn(const std::string& type, json data) {
    protocol::Event event;
    event.ts = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    event.type = type;
    event.step = m_step;
    event.data = std::move(data);
    store(event, protocol::toJson(event));
}

void TaskRunner::store(const protocol::Event& event, json body) {
    const std::uint64_t seq = m_nextSeq++;
    body["seq"] = seq;
    EventRow row{m_task.id, seq, protocol::formatTimestamp(event.ts), event.type, event.step,
                 event.tool.value_or(""), body.dump(-1, ' ', false, json::error_handler_t::replace)};
    m_env.events->append(std::move(row));
    m_uncommitted.emplace_back(seq, std::move(body));
}

void TaskRunner::onEventCommitted(std::uint64_t seq) {
    while (!m_uncommitted.empty() && m_uncommitted.front().first <= seq) {
        auto [stored, event] = std::move(m_uncommitted.front());
        m_uncommitted.pop_front(); // before the emit: a handler may get here again
        if (stored == seq)
            emit eventStored(m_task.id, event);
    }
}

void TaskRunner::settleEvents() {
    m_env.events->flush();
    m_env.deliverStored();
}

void TaskRunner::cancel(const std::string& why) { stop(StopCause::User, why); }

void TaskRunner::pause() { stop(StopCause::Pause, "paused by the user"); }

void TaskRunner::answerApproval(const std::string& callId, bool approved, const std::string& note, bool always) {
    if (m_proxy)
        m_proxy->answerApproval(callId, approved, note, always);
}

void TaskRunner::addApprovalRule(const ApprovalRule& rule) {
    if (m_proxy)
        m_proxy->addRule(rule);
}

void TaskRunner::stop(StopCause cause, const std::string& why) {
    if (m_done || !m_process || m_stopCause != StopCause::None)
        return;
    m_stopCause = cause;
    m_stopWhy = why;
    const char* method = cause == StopCause::Pause ? protocol::method::kControlPause : protocol::method::kControlCancel;
    send(protocol::Notification{method, protocol::toJson(protocol::ControlParams{why})});
    m_escalation = 0;
    m_grace.start(m_env.stopGrace);
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
    m_exitNotifier->setEnabled(false);
    if (m_statusNotifier)
        m_statusNotifier->setEnabled(false); // wait() reads bwrap's status to its end and closes it
    auto exit = m_process->exitStatus();
    // Every process of the sandbox is gone, so its ends of the pipes are closed: read what is left.
    for (int fd : {m_stdout.get(), m_stderr.get()}) {
        if (fd < 0)
            continue;
        int flags = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    }
    while (m_stdout.valid())
        onStdoutReadable();
    while (m_stderr.valid())
        onStderrReadable();
    const std::string stderrText = trimmed(tail(m_stderrTail, 2000));
    const std::string diagnostics = stderrText.empty() ? "" : "\nThe agent said:\n" + stderrText;
    if (!exit || exit->reason == sandbox::SandboxExit::Reason::SetupFailed) {
        fail("sandbox", "the sandbox could not start the agent" + diagnostics + "\n" + m_process->setupFailureReport());
        return;
    }
    if (exit->oomKilled)
        recordOwn(std::string(protocol::event_type::kError),
                  {{"message", "the sandbox reached its memory limit and the kernel killed a process in it"},
                   {"fatal", false}});
    if (m_finishedReason) {
        TaskStatus status = statusForFinishReason(*m_finishedReason);
        std::string error;
        if (m_stopCause == StopCause::Timeout || m_stopCause == StopCause::Budget) {
            status = TaskStatus::Failed;
            error = m_stopWhy;
        } else if (status == TaskStatus::Failed) {
            error = m_summary;
        }
        const std::string reason = m_stopCause == StopCause::Timeout  ? "timeout"
                                   : m_stopCause == StopCause::Budget ? "budget"
                                                                      : *m_finishedReason;
        finish(status, reason, error);
        return;
    }
    switch (m_stopCause) {
    case StopCause::User:
        finish(TaskStatus::Cancelled, "cancelled", "");
        return;
    case StopCause::Pause:
        finish(TaskStatus::Paused, "paused", "");
        return;
    case StopCause::Timeout:
        fail("timeout", m_stopWhy);
        return;
    case StopCause::Budget:
        fail("budget", m_stopWhy);
        return;
    default:
        break;
    }
    if (!m_startRefused.empty()) {
        fail("refused", "the agent refused the task: " + m_startRefused + diagnostics);
        return;
    }
    const std::string how = exit->reason == sandbox::SandboxExit::Reason::Signaled
                                ? "was killed by signal " + std::to_string(exit->exitCode - 128)
                                : "exited with status " + std::to_string(exit->exitCode);
    finish(TaskStatus::Interrupted, "interrupted",
           "the agent " + how + " without finishing the task" + diagnostics + "\n`warren resume " + m_task.id +
               "` continues from its last checkpoint.");
}

void TaskRunner::recordArtifacts() {
    const std::string root = m_env.data.outputDir(m_task.id);
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(root, error); !error && it != fs::recursive_directory_iterator();
         it.increment(error)) {
        if (!it->is_regular_file(error) || it->is_symlink(error))
            continue;
        QFile file(QString::fromStdString(it->path().string()));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        QCryptographicHash hash(QCryptographicHash::Sha256);
        hash.addData(&file);
        ArtifactRecord artifact{m_task.id, fs::relative(it->path(), root).string(),
                                static_cast<std::uint64_t>(file.size()), hash.result().toHex().toStdString()};
        if (auto stored = m_env.store->putArtifact(artifact); !stored)
            recordOwn(std::string(protocol::event_type::kError), {{"message", stored.error().message}, {"fatal", false}});
    }
}

void TaskRunner::finish(TaskStatus status, const std::string& reason, const std::string& error) {
    if (m_done)
        return;
    m_done = true;
    m_timeout.stop();
    m_grace.stop();
    if (m_proxy) {
        m_proxy->abortAll();
        const auto used = m_proxy->used();
        m_task.tokensIn += used.input;
        m_task.tokensOut += used.output;
    }
    m_egress.reset(); // its connections close with it, so nothing of the task reaches out after its end
    if (!m_token.empty())
        m_env.tokens->revokeTask(m_task.id);
    if (!error.empty())
        recordOwn(std::string(protocol::event_type::kError), {{"message", error}, {"fatal", true}});
    recordArtifacts();
    settleEvents();
    m_task.status = status;
    m_task.finishReason = reason;
    m_task.error = error;
    if (!m_summary.empty())
        m_task.summary = m_summary;
    m_task.finishedAt = isFinal(status) ? now() : "";
    if (auto updated = m_env.store->updateTask(m_task); !updated)
        m_task.error += "\n(the task's record could not be updated: " + updated.error().message + ")";
    // The notifiers watch descriptors that close with the process: none may fire after this.
    for (QSocketNotifier* notifier : {m_stdoutNotifier, m_stderrNotifier, m_stdinNotifier, m_exitNotifier, m_statusNotifier})
        if (notifier) {
            notifier->setEnabled(false);
            notifier->deleteLater(); // one of them may be the sender of the call we are in
        }
    m_stdoutNotifier = m_stderrNotifier = m_stdinNotifier = m_exitNotifier = m_statusNotifier = nullptr;
    m_process.reset();
    m_stdin.reset();
    m_lock.reset();
    emit finished(m_task.id);
}

} // namespace warren::control
