#include "agent_core/clis/CliSupervisor.h"

#include "agent_core/clis/ClaudePermissions.h"
#include "agent_core/clis/ClaudeStream.h"
#include "agent_core/clis/CliCommand.h"
#include "agent_core/clis/CliSession.h"
#include "agent_core/clis/CodexAppServer.h"
#include "agent_core/clis/CodexPermissions.h"
#include "agent_core/clis/CodexStream.h"
#include "agent_core/net/ControlConnection.h"
#include "agent_core/net/EgressForwarder.h"
#include "agent_core/process/ProcessRunner.h"
#include "agent_core/process/ProcessTreeUsage.h"
#include "agent_core/protocol/LineReader.h"
#include "agent_core/state/AtomicFile.h"
#include "agent_core/state/SeqMark.h"
#include "common/ExecutableSearch.h"
#include "common/UniqueFd.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sys/socket.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <variant>

namespace warren::agent {

using namespace protocol;

namespace {

// A line of the CLI's stream longer than this is skipped (and said so): a tool result the CLI echoes whole
// can be large, but never this large in a line the supervisor must hold.
constexpr std::size_t kMaxStreamLineBytes = 4u << 20;
// The CLI's stderr, as log events: lines of at most this many bytes, and at most this many lines a run.
constexpr std::size_t kMaxStderrLineBytes = 2048;
constexpr std::size_t kMaxStderrLines = 200;

// bytes to a socket, whole; false when its peer is gone. MSG_NOSIGNAL: a CLI that went away is an EPIPE,
// never a SIGPIPE for the supervisor.
bool sendAll(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

std::string displayName(AgentKind kind) {
    return kind == AgentKind::ClaudeCode ? "Claude Code" : "Codex";
}

// One translator per CLI (and Codex's two modes), behind one call; and how its permission asks are read
// and answered.
class Translator {
public:
    Translator(const CliAgentParams& cli, std::string prompt) : m_approvalTools(cli.approvalTools) {
        if (cli.kind == AgentKind::ClaudeCode)
            m_stream.emplace<ClaudeStream>();
        else if (codexAsks(cli))
            m_stream.emplace<CodexAppServer>(std::move(prompt));
        else
            m_stream.emplace<CodexStream>();
    }
    CliLine translate(std::string_view line) {
        return std::visit([&](auto& stream) { return stream.translate(line); }, m_stream);
    }
    bool needsApproval(const CliPermissionAsk& ask) const {
        return claude() ? claudeCallNeedsApproval(ask.tool, m_approvalTools)
                        : codexCallNeedsApproval(ask.tool, m_approvalTools);
    }
    WarrenCall warrenCall(const CliPermissionAsk& ask) const {
        return claude() ? warrenCallOf(ask.tool, ask.input) : codexWarrenCall(ask);
    }
    // Codex's decline carries no message: the model is told the user refused.
    std::string answer(const CliPermissionAsk& ask, bool allowed, const std::string& message) const {
        return claude() ? claudePermissionAnswer(ask, allowed, message) : codexPermissionAnswer(ask, allowed);
    }

private:
    bool claude() const { return std::holds_alternative<ClaudeStream>(m_stream); }

    std::vector<std::string> m_approvalTools;
    std::variant<ClaudeStream, CodexStream, CodexAppServer> m_stream;
};

class Supervisor {
public:
    Supervisor(const CliAgentParams& cli, const CliTask& task, const AgentPaths& paths, EventLog& events,
               Cancellation& cancellation)
        : m_cli(cli), m_task(task), m_paths(paths), m_events(events), m_cancellation(cancellation),
          m_name(displayName(cli.kind)), m_stdout(kMaxStreamLineBytes), m_stderr(kMaxStderrLineBytes) {}

    TaskOutcome run();

private:
    TaskOutcome refuse(const std::string& message);
    TaskOutcome finish(FinishReason reason, std::string summary,
                       std::optional<TokenUsage> usage = std::nullopt);
    void onStdout(std::string_view bytes);
    void onStderr(std::string_view bytes);
    void onLine(const std::string& line);
    void emit(const CliEvent& event);
    void remember(const std::string& sessionId);
    void sample();
    void answer(const CliPermissionAsk& ask);
    void tell(const std::string& line);
    void closeInput();

    CliAgentParams m_cli; // its program found on PATH, when it came as a command name (imageProgram)
    const CliTask& m_task;
    const AgentPaths& m_paths;
    EventLog& m_events;
    Cancellation& m_cancellation;
    const std::string m_name;
    std::optional<Translator> m_translator; // made once the prompt is known
    LineReader m_stdout;
    LineReader m_stderr;
    std::size_t m_stderrLines = 0;
    std::optional<SeqMark> m_mark;
    std::optional<CliSession> m_session;
    std::uint64_t m_step = 0;
    std::optional<CliEnd> m_end;
    UniqueFd m_input; // the CLI's stdin (Claude Code's), open until its result
    bool m_promptWritten = false;
    std::jthread m_promptWriter; // joined before m_input closes
};

namespace {

// A cluster's pod runs its image's CLI, named by its command: found on the agent's PATH (the image's).
Result<std::string> imageProgram(const CliAgentParams& cli) {
    if (cli.program.find('/') != std::string::npos)
        return cli.program;
    const char* path = std::getenv("PATH");
    const std::string dirs = path ? path : "";
    if (auto found = findExecutableOnPath(cli.program, dirs))
        return found->string();
    return makeError(ErrorCode::NotFound, "the sandbox's image has no `" + cli.program + "` on its PATH (" +
                                              dirs + "); its operator installs " +
                                              protocol::cliPackageName(cli.kind) +
                                              " in the image (docs/DEPLOY.md)");
}

// The model proxy's socket, mounted; or, with none (a cluster's pod), the control plane's listener the agent
// connected to, each model call opened with its own hello.
Result<ForwardTarget> modelTarget(const CliAgentParams& cli, const CliTask& task) {
    if (!cli.modelSocket.empty())
        return unixTarget(cli.modelSocket);
    if (!task.controlPlane)
        return makeError(ErrorCode::InvalidArgument,
                         "task.start names no model socket, and the agent did not "
                         "connect to its control plane over TCP (--connect tcp:...)");
    return modelStreamTarget(*task.controlPlane, task.token);
}

} // namespace

TaskOutcome Supervisor::refuse(const std::string& message) {
    m_events.error(message, true);
    m_events.emit(TaskFinishedData{FinishReason::Failed, message});
    return {FinishReason::Failed, message};
}

TaskOutcome Supervisor::finish(FinishReason reason, std::string summary, std::optional<TokenUsage> usage) {
    if (m_session) {
        m_session->step = m_step;
        if (auto written = writeCliSession(*m_paths.state, *m_session); !written)
            m_events.error("saving the " + m_name + " session failed: " + written.error().message, false);
    }
    m_events.emit(TaskFinishedData{reason, summary}, {std::nullopt, usage, std::nullopt});
    return {reason, std::move(summary)};
}

void Supervisor::remember(const std::string& sessionId) {
    if (m_session && m_session->id == sessionId)
        return;
    // The id goes back to the CLI as an argument on resume: only one that cannot be anything else is kept.
    if (!isValidSessionId(sessionId)) {
        m_events.error(m_name + " named a session id that is not letters, digits, '-' and '_'; the task "
                                "cannot be resumed",
                       false);
        return;
    }
    if (m_session)
        m_events.log(LogLevel::Warn,
                     m_name + " started a new session instead of continuing " + m_session->id);
    m_session = CliSession{m_cli.kind, sessionId, m_step};
    if (auto written = writeCliSession(*m_paths.state, *m_session); !written)
        m_events.error("saving the " + m_name +
                           " session failed (the task cannot be resumed): " + written.error().message,
                       false);
}

// What the CLI and its commands use now (the supervisor's whole process tree, with what it already reaped),
// as Warren's own agent reports itself at each step's end: the window's resource graphs.
void Supervisor::sample() {
    const auto usage = processTreeUsage(::getpid());
    m_events.emit(ResourceSampleData{usage.rssBytes, usage.cpuMs});
}

void Supervisor::emit(const CliEvent& event) {
    if (std::holds_alternative<StepStartedData>(event.payload)) {
        if (m_step > 0)
            sample(); // the previous step's end
        m_events.setStep(++m_step);
        // A resume after a kill numbers its steps after this one (the control plane's snapshots are per
        // step).
        if (m_session) {
            m_session->step = m_step;
            if (auto written = writeCliSession(*m_paths.state, *m_session, false); !written)
                m_events.error("saving the " + m_name + " session failed: " + written.error().message, false);
        }
    }
    std::visit(
        [&](const auto& payload) {
            m_events.emit(payload, {event.tool, std::nullopt, std::nullopt});
        },
        event.payload);
}

// One line to the CLI's stdin, after the prompt. When the CLI is gone (its stdin closed) it ends without it.
void Supervisor::tell(const std::string& line) {
    if (m_promptWriter.joinable())
        m_promptWriter.join();
    if (m_input.valid() && (!m_promptWritten || !sendAll(m_input.get(), line)))
        closeInput();
}

void Supervisor::closeInput() {
    if (m_promptWriter.joinable())
        m_promptWriter.join();
    m_input.reset();
}

// The CLI waits for the answer: a call approval_tools names waits for the approver (the user decides, and
// nothing hurries them), every other call runs. Warren's own agent's events say so (CallRunner::askApproval).
void Supervisor::answer(const CliPermissionAsk& ask) {
    if (!m_translator->needsApproval(ask)) {
        tell(m_translator->answer(ask, true, {}));
        return;
    }
    // Asked, and shown, as Warren's call (linked to the CLI's tool_call by its id): the approval rules, the
    // user's "always" and the window's card (a shell command's text, "commands starting with ...") read it as
    // they do Warren's own agent's.
    auto call = m_translator->warrenCall(ask);
    const std::string reason =
        call.tool != ask.tool ? ask.tool + " is " + call.tool + ", which approval_tools asks approval for"
                              : ask.tool + " is none of Warren's tools, and approval_tools is set";
    const ApprovalRequestParams request{call.tool, std::move(call.arguments), reason, ask.callId};
    m_events.emit(ApprovalRequestedData{ask.callId, request.arguments, request.reason},
                  {request.tool, std::nullopt, std::nullopt});
    ApprovalResult decision{false, "no approver: the call was denied"};
    if (m_task.approver) {
        auto answered = m_task.approver(request, nullptr);
        decision =
            answered ? *answered : ApprovalResult{false, "approval failed: " + answered.error().message};
    }
    m_events.emit(ApprovalResolvedData{ask.callId, decision.approved, decision.note, std::nullopt},
                  {request.tool, std::nullopt, std::nullopt});
    tell(m_translator->answer(ask, decision.approved,
                              "Denied: the user did not approve this call." +
                                  (decision.note ? " Their note: " + *decision.note : std::string())));
}

void Supervisor::onLine(const std::string& line) {
    auto translated = m_translator->translate(line);
    if (translated.sessionId)
        remember(*translated.sessionId);
    for (const auto& event : translated.events)
        emit(event);
    if (!translated.reply.empty())
        tell(translated.reply);
    if (translated.permission)
        answer(*translated.permission);
    if (translated.end) {
        m_end = std::move(translated.end);
        sample(); // the last step's end (the CLI may have exited already: its last line is read after it)
        closeInput(); // nothing more to say: the CLI exits once its stdin ends
    }
}

void Supervisor::onStdout(std::string_view bytes) {
    for (auto& line : bytes.empty() ? m_stdout.finish() : m_stdout.feed(bytes)) {
        if (line)
            onLine(*line);
        else
            m_events.error(m_name + "'s output: " + line.error().message, false);
    }
}

void Supervisor::onStderr(std::string_view bytes) {
    for (auto& line : bytes.empty() ? m_stderr.finish() : m_stderr.feed(bytes)) {
        if (++m_stderrLines > kMaxStderrLines) {
            if (m_stderrLines == kMaxStderrLines + 1)
                m_events.log(LogLevel::Warn,
                             m_name + " wrote more on stderr than is kept; the rest is not shown");
            continue;
        }
        m_events.log(LogLevel::Warn, m_name + ": " + (line ? *line : line.error().message));
    }
}

TaskOutcome Supervisor::run() {
    // The CLI's stderr and the supervisor's notes go out as log events, for the user to see beside the
    // CLI's work (Warren's own agent does so with its production-log preset).
    m_events.configureLogging(LogLevel::Info, LogFormat::Json);
    if (!m_paths.state) {
        m_events.begin(1, nullptr);
        return refuse("a CLI agent needs a state directory (--state): its session lives there");
    }
    auto mark = SeqMark::open(*m_paths.state);
    if (!mark) {
        m_events.begin(1, nullptr);
        return refuse(mark.error().message);
    }
    m_mark.emplace(std::move(mark).value());
    SeqMark* record = &*m_mark;
    m_events.begin(m_mark->last() + 1, [record](std::uint64_t seq) { record->record(seq); });

    auto stored = readCliSession(*m_paths.state);
    if (!stored)
        return refuse("the CLI's session cannot be read: " + stored.error().message);
    m_session = *stored;
    if (m_session && m_session->kind != m_cli.kind)
        return refuse("this task's state holds a " + displayName(m_session->kind) +
                      " session; it cannot go on as " + m_name);

    const auto home = *m_paths.state / "cli-home";
    if (m_session) {
        m_step = m_session->step;
        m_events.setStep(m_step);
        m_events.emit(TaskResumedData{m_step, std::nullopt});
        if (!cliSessionSaved(m_cli.kind, home, m_session->id)) {
            // An event, not a diagnostic: the user sees why the CLI starts over.
            m_events.emit(LogData{LogLevel::Warn, m_name + " stopped before it saved its session " +
                                                      m_session->id +
                                                      "; a new session starts from the task's prompt"});
            m_session.reset();
        }
    } else {
        m_events.emit(TaskStartedData{m_task.taskId,
                                      m_task.prompt,
                                      m_task.presets,
                                      {{"agent", agentKindName(m_cli.kind)}, {"model", m_cli.model}}});
    }
    // A session goes on with the user's reply, or is told to continue; a new one reads the task and the
    // reply.
    std::string prompt = m_task.prompt;
    if (m_session)
        prompt = m_task.reply.value_or(kContinuePrompt);
    else if (m_task.reply)
        prompt += "\n\n" + *m_task.reply;
    if (m_task.reply)
        m_events.emit(UserMessageData{*m_task.reply});

    m_translator.emplace(m_cli, prompt);

    std::error_code error;
    std::filesystem::create_directories(home, error);
    if (!error)
        std::filesystem::permissions(home, std::filesystem::perms::owner_all, error);
    if (error)
        return refuse("the CLI's home " + home.string() + " cannot be made: " + error.message());

    auto program = imageProgram(m_cli);
    if (!program)
        return refuse(program.error().message);
    m_cli.program = std::move(*program);
    auto target = modelTarget(m_cli, m_task);
    if (!target)
        return refuse("the model proxy cannot be reached: " + target.error().message);
    auto forwarder = EgressForwarder::start(*target, 0);
    if (!forwarder)
        return refuse("the forwarder to the model proxy could not start: " + forwarder.error().message);

    const CliCommand command = buildCliCommand(
        m_cli, {m_paths.workspace, home, (*forwarder)->port(), m_task.token, m_task.egressPort,
                m_session ? std::optional(m_session->id) : std::nullopt, prompt,
                ::access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh",
                sandboxSecretEnvironment([](const char* name) { return std::getenv(name); })});
    for (const auto& file : command.files) {
        std::filesystem::create_directories(file.path.parent_path(), error);
        if (error)
            return refuse("cannot make " + file.path.parent_path().string() + ": " + error.message());
        if (auto written = writeFileAtomically(file.path, file.content, false); !written)
            return refuse(written.error().message);
    }

    ProcessSpec spec;
    spec.argv = command.argv;
    spec.workdir = m_paths.workspace;
    spec.environment = command.environment;
    spec.stopFd = m_cancellation.fd();
    spec.stopRequested = [this] {
        return m_cancellation.stopRequested();
    };
    spec.capBytes = 4096; // the stream is read live; the capped copy is only the last words on a failure
    spec.streamLimitBytes = std::numeric_limits<std::uint64_t>::max();
    spec.onOutput = [this](std::string_view stream, std::string_view text) {
        if (stream == "stdout")
            onStdout(text);
        else
            onStderr(text);
    };
    if (!command.input.empty()) {
        int ends[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
            return refuse(std::string("the CLI's stdin cannot be made: ") + std::strerror(errno));
        spec.stdinFd = ends[0]; // runProcess closes it
        m_input.reset(ends[1]);
        // The prompt may be larger than the socket holds: it is written while the CLI starts and reads it.
        m_promptWriter = std::jthread(
            [this, fd = ends[1], input = command.input] { m_promptWritten = sendAll(fd, input); });
    }
    m_events.log(LogLevel::Info, "starting " + m_name + " (" + m_cli.program + ")" +
                                     (m_session ? ", continuing session " + m_session->id : std::string()));
    const auto result = runProcess(spec);
    if (!result)
        return refuse("could not start " + m_name + ": " + result.error().message);
    onStdout({});
    onStderr({});

    switch (m_cancellation.requested()) {
    case StopRequest::Cancel:
        return finish(FinishReason::Cancelled, "cancelled");
    case StopRequest::Pause:
        return finish(FinishReason::Paused, "paused; resume to continue");
    case StopRequest::HostGone:
        return finish(FinishReason::Paused, "the control plane went away; resume to continue");
    case StopRequest::None:
        break;
    }
    if (m_end)
        return finish(m_end->reason, m_end->summary, m_end->usage);
    const std::string why = m_name + " exited with status " + std::to_string(result->exitCode) +
                            " before it reported a result" +
                            (m_session ? "; a resume continues its session" : std::string());
    m_events.error(why, true);
    return finish(FinishReason::Failed, why);
}

} // namespace

TaskOutcome runCliAgent(const CliAgentParams& cli, const CliTask& task, const AgentPaths& paths,
                        EventLog& events, Cancellation& cancellation) {
    return Supervisor(cli, task, paths, events, cancellation).run();
}

} // namespace warren::agent
