#include "agent_core/team/AgentTeam.h"

#include "agent_core/loop/TaskRun.h"
#include "agent_core/state/AtomicFile.h"
#include "agent_core/state/CheckpointStore.h"
#include "agent_core/team/AgentRoles.h"
#include "agent_core/team/AgentTools.h"
#include "common/FileText.h"

#include <algorithm>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace warren::agent {

namespace fs = std::filesystem;

struct AgentTeam::Member {
    std::string id, parent, callId, role, brief;
    std::uint64_t depth = 1;
    AgentConfig config;
    std::optional<fs::path> stateDir;
    std::unique_ptr<EventLog> events;
    std::unique_ptr<Cancellation> stop = std::make_unique<Cancellation>();
    std::thread thread;
    std::mutex joinMutex;
    bool ended = false;
    bool collected = false; // its end was returned to its parent
    ExitReason reason = ExitReason::Failed;
    std::string summary;
    std::vector<std::string> files;
    RunCounters counters;
    std::deque<std::string> inbox;
};

namespace {

constexpr const char* kAgentsDir = "agents";
constexpr const char* kMemberFile = "agent.json";

std::string named(const std::string& id) {
    return id.empty() ? std::string("the task's own agent") : id;
}

std::uint64_t numberOf(const std::string& id) {
    const auto dash = id.rfind('-');
    if (dash == std::string::npos)
        return 0;
    try {
        return std::stoull(id.substr(dash + 1));
    } catch (...) {
        return 0;
    }
}

void addCounters(RunCounters& sum, const RunCounters& more) {
    sum.steps += more.steps;
    sum.modelCalls += more.modelCalls;
    sum.tokensIn += more.tokensIn;
    sum.tokensOut += more.tokensOut;
    sum.tokensReasoning += more.tokensReasoning;
    sum.cacheHits += more.cacheHits;
    sum.bytesWritten += more.bytesWritten;
    sum.interruptedCalls += more.interruptedCalls;
    for (const auto& [tool, count] : more.toolCalls)
        sum.toolCalls[tool] += count;
}

} // namespace

AgentTeam::AgentTeam(const RunContext& task, std::string taskId)
    : m_task(task), m_taskId(std::move(taskId)) {}

AgentTeam::~AgentTeam() {
    stopAll(StopRequest::Cancel);
    if (m_forwarder.joinable()) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto written = write(m_wakeFd, &one, sizeof one);
        m_forwarder.join();
    }
    if (m_wakeFd >= 0)
        ::close(m_wakeFd);
}

bool AgentTeam::canSpawnFrom(std::uint64_t depth) const {
    return m_task.config.maxSubagents > 0 && depth < m_task.config.maxAgentDepth;
}

std::vector<ToolEntry> AgentTeam::toolsFor(const AgentSeat& seat, const std::vector<std::string>& seatTools) {
    if (!canSpawnFrom(seat.depth))
        return {};
    return agentTools(*this, seat, seatTools);
}

Result<std::string> AgentTeam::spawn(const AgentSeat& parent, const std::vector<std::string>& parentTools,
                                     const std::string& callId, const std::string& brief, const std::string& role) {
    if (!canSpawnFrom(parent.depth))
        return makeError(ErrorCode::InvalidArgument,
                         "sub-agents cannot start their own here (max_agent_depth " +
                             std::to_string(m_task.config.maxAgentDepth) + "); do the work yourself");
    auto tools = toolsForRole(role, parentTools);
    if (!tools)
        return tools.error();
    if (brief.empty())
        return makeError(ErrorCode::InvalidArgument, "brief: must say what the sub-agent is to do");
    auto member = std::make_unique<Member>();
    {
        std::lock_guard lock(m_mutex);
        if (m_forwarded != StopRequest::None)
            return makeError(ErrorCode::Unsupported, "the task is stopping: no new sub-agent");
        const auto open = std::count_if(m_members.begin(), m_members.end(), [](const auto& m) { return !m->ended; });
        if (static_cast<std::uint64_t>(open) >= m_task.config.maxSubagents)
            return makeError(ErrorCode::Unsupported,
                             std::to_string(open) + " sub-agents are open, the most this task allows (max_subagents): "
                                                    "wait for one (wait_agents) or close one (close_agent) first");
        member->id = "agent-" + std::to_string(++m_lastNumber);
    }
    member->parent = parent.id;
    member->callId = callId;
    member->role = role;
    member->brief = brief;
    member->depth = parent.depth + 1;
    member->config = m_task.config;
    member->config.tools = std::move(tools).value(); // approvals stay the task's: they apply to every agent
    if (m_task.paths.state) {
        member->stateDir = *m_task.paths.state / kAgentsDir / member->id;
        std::error_code error;
        fs::create_directories(*member->stateDir, error);
        const nlohmann::json record = {{"id", member->id},   {"parent", member->parent}, {"call_id", callId},
                                       {"role", role},       {"brief", brief},           {"depth", member->depth}};
        auto written = writeFileAtomically(*member->stateDir / kMemberFile, record.dump() + "\n", true, 0600);
        if (error || !written)
            return makeError(ErrorCode::System, "the sub-agent's state could not be written in " +
                                                member->stateDir->string() + ": " +
                                                (error ? error.message() : written.error().message));
    }
    member->events = std::make_unique<EventLog>(m_task.events, member->id);
    member->events->emit(protocol::AgentStartedData{parent.isSubAgent() ? std::optional(parent.id) : std::nullopt,
                                                    callId, role, brief, member->depth});
    const std::string id = member->id;
    std::lock_guard lock(m_mutex);
    ensureForwarder();
    m_members.push_back(std::move(member));
    start(*m_members.back());
    return id;
}

void AgentTeam::start(Member& member) {
    member.thread = std::thread([this, &member] { runMember(member); });
}

void AgentTeam::runMember(Member& member) {
    // The task's settings, facts, hooks, model, approver and host; its own config (its role's tools), state
    // directory (no /output: the report is the task's), events and stop.
    const RunContext context{
        member.config,   m_task.settings,
        m_task.facts,    m_task.hooks,
        m_task.model,    m_task.approver,
        m_task.hostCall, AgentPaths{m_task.paths.workspace, member.stateDir, std::nullopt},
        *member.events,  *member.stop};
    TaskRun run(context, *this, AgentSeat{member.id, member.role, member.depth});
    const TaskOutcome outcome = run.run(m_taskId, member.brief);
    // What it started ends with it: paused with it, otherwise stopped.
    std::vector<Member*> children;
    {
        std::lock_guard lock(m_mutex);
        children = descendantsOf(member.id);
        for (auto* child : children)
            child->stop->request(outcome.reason == ExitReason::Paused ? StopRequest::Pause : StopRequest::Cancel);
        m_changed.notify_all();
    }
    for (auto* child : children)
        join(*child);
    m_claims.releaseAll(member.id);
    std::lock_guard lock(m_mutex);
    member.ended = true;
    member.reason = outcome.reason;
    member.summary = outcome.summary;
    member.files = run.filesChanged();
    member.counters = run.counters();
    m_changed.notify_all();
}

void AgentTeam::join(Member& member) {
    std::lock_guard lock(member.joinMutex);
    if (member.thread.joinable() && member.thread.get_id() != std::this_thread::get_id())
        member.thread.join();
}

std::vector<AgentTeam::Member*> AgentTeam::descendantsOf(const std::string& id) {
    std::vector<Member*> found;
    std::vector<std::string> parents = {id};
    while (!parents.empty()) {
        const auto parent = parents.back();
        parents.pop_back();
        for (auto& member : m_members)
            if (member->parent == parent && member->id != id) {
                found.push_back(member.get());
                parents.push_back(member->id);
            }
    }
    return found;
}

AgentTeam::Member* AgentTeam::childOf(const AgentSeat& caller, const std::string& id, std::string& problem) {
    for (auto& member : m_members) {
        if (member->id != id)
            continue;
        if (member->parent != caller.id) {
            problem = id + " was started by " + named(member->parent) + ", not by you: only its starter may wait "
                           "for it, message it or close it";
            return nullptr;
        }
        return member.get();
    }
    std::string known;
    for (auto& member : m_members)
        if (member->parent == caller.id)
            known += (known.empty() ? "" : ", ") + member->id;
    problem = "there is no sub-agent \"" + id + "\" of yours (yours: " + (known.empty() ? "none" : known) + ")";
    return nullptr;
}

std::string AgentTeam::describeEnd(const Member& member) const {
    std::string text = member.id + " (" + member.role + ") ";
    if (!member.ended)
        return text + "is still running.";
    text += std::string(toString(member.reason)) + ": " + (member.summary.empty() ? "(no final message)" : member.summary);
    text += "\n  files it changed: ";
    if (member.files.empty())
        return text + "none";
    for (std::size_t i = 0; i < member.files.size(); ++i)
        text += (i ? ", " : "") + member.files[i];
    return text;
}

ToolOutcome AgentTeam::wait(const AgentSeat& caller, std::vector<std::string> ids, bool any, Deadline deadline,
                            const Cancellation& callerStop) {
    std::unique_lock lock(m_mutex);
    std::vector<Member*> targets;
    if (ids.empty()) {
        for (auto& member : m_members)
            if (member->parent == caller.id && !member->collected)
                targets.push_back(member.get());
        if (targets.empty())
            return failure("wait_agents: you have no sub-agents whose results you have not read yet");
    } else {
        for (const auto& id : ids) {
            std::string problem;
            Member* member = childOf(caller, id, problem);
            if (!member)
                return failure("wait_agents: " + problem);
            targets.push_back(member);
        }
    }
    auto endedCount = [&] {
        return static_cast<std::size_t>(std::count_if(targets.begin(), targets.end(), [](Member* m) { return m->ended; }));
    };
    auto done = [&] { return any ? endedCount() > 0 : endedCount() == targets.size(); };
    while (!done() && !callerStop.stopRequested()) {
        if (deadline == Deadline::max())
            m_changed.wait(lock);
        else if (m_changed.wait_until(lock, deadline) == std::cv_status::timeout)
            break;
    }
    ToolOutcome outcome;
    outcome.ok = done();
    outcome.exitCode = outcome.ok ? 0 : 1;
    if (!outcome.ok)
        outcome.output = callerStop.stopRequested() ? "The wait was cut short: this agent is being stopped.\n"
                                                    : "The step's deadline came first.\n";
    for (auto* member : targets) {
        outcome.output += describeEnd(*member) + "\n";
        if (member->ended)
            member->collected = true;
    }
    return outcome;
}

Status AgentTeam::send(const AgentSeat& caller, const std::string& id, const std::string& message) {
    std::lock_guard lock(m_mutex);
    std::string problem;
    Member* member = childOf(caller, id, problem);
    if (!member)
        return makeError(ErrorCode::NotFound, problem);
    if (member->ended)
        return makeError(ErrorCode::Unsupported, id + " has ended (" + std::string(toString(member->reason)) +
                                                     "): nothing reads messages now; start a new sub-agent");
    member->inbox.push_back(message);
    return Ok{};
}

ToolOutcome AgentTeam::close(const AgentSeat& caller, const std::string& id) {
    Member* member = nullptr;
    {
        std::lock_guard lock(m_mutex);
        std::string problem;
        member = childOf(caller, id, problem);
        if (!member)
            return failure("close_agent: " + problem);
        member->stop->request(StopRequest::Cancel);
        m_changed.notify_all();
    }
    join(*member);
    std::lock_guard lock(m_mutex);
    member->collected = true;
    ToolOutcome outcome;
    outcome.output = "Closed. " + describeEnd(*member);
    return outcome;
}

std::vector<std::string> AgentTeam::takeMessages(const std::string& id) {
    std::lock_guard lock(m_mutex);
    for (auto& member : m_members)
        if (member->id == id) {
            std::vector<std::string> messages(member->inbox.begin(), member->inbox.end());
            member->inbox.clear();
            return messages;
        }
    return {};
}

void AgentTeam::resumeAll() {
    if (!m_task.paths.state)
        return;
    const fs::path root = *m_task.paths.state / kAgentsDir;
    std::error_code error;
    std::vector<fs::path> dirs;
    for (const auto& entry : fs::directory_iterator(root, error))
        if (entry.is_directory(error) && fs::exists(entry.path() / kMemberFile, error))
            dirs.push_back(entry.path());
    std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) {
        return numberOf(a.filename().string()) < numberOf(b.filename().string());
    });
    for (const auto& dir : dirs) {
        const auto text = readFileText(dir / kMemberFile);
        const auto record = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
        if (!record.is_object() || !record.value("id", nlohmann::json()).is_string()) {
            m_task.events.error("the sub-agent record " + (dir / kMemberFile).string() +
                                    " cannot be read; it is left out",
                                false);
            continue;
        }
        auto member = std::make_unique<Member>();
        member->id = record.value("id", "");
        member->parent = record.value("parent", "");
        member->callId = record.value("call_id", "");
        member->role = record.value("role", std::string(kDefaultRole));
        member->brief = record.value("brief", "");
        member->depth = record.value("depth", std::uint64_t{1});
        member->stateDir = dir;
        member->config = m_task.config;
        auto parentTools = m_task.config.tools;
        if (auto tools = toolsForRole(member->role, parentTools))
            member->config.tools = std::move(tools).value();
        member->events = std::make_unique<EventLog>(m_task.events, member->id);
        m_lastNumber = std::max(m_lastNumber, numberOf(member->id));
        auto checkpoint = CheckpointStore(dir).load();
        if (checkpoint && *checkpoint) {
            const AgentState& state = **checkpoint;
            m_budget.add(state.counters.steps, state.counters.tokensIn + state.counters.tokensOut);
            member->counters = state.counters;
            if (state.extra.contains("finished")) {
                member->ended = true;
                member->reason = protocol::finishReasonFromName(state.extra["finished"].value("reason", "")).value_or(ExitReason::Failed);
                member->summary = state.extra["finished"].value("summary", "");
                member->files = state.extra.value("files_changed", std::vector<std::string>{});
            }
        }
        std::lock_guard lock(m_mutex);
        m_members.push_back(std::move(member));
        if (!m_members.back()->ended) {
            ensureForwarder();
            start(*m_members.back());
        }
    }
}

void AgentTeam::stopAll(StopRequest why) {
    std::vector<Member*> members;
    {
        std::lock_guard lock(m_mutex);
        for (auto& member : m_members) {
            if (!member->ended)
                member->stop->request(why);
            members.push_back(member.get());
        }
        m_changed.notify_all();
    }
    for (auto* member : members)
        join(*member);
}

SubAgentTotals AgentTeam::totals() const {
    std::lock_guard lock(m_mutex);
    SubAgentTotals totals;
    totals.started = m_members.size();
    for (const auto& member : m_members)
        addCounters(totals.counters, member->counters);
    return totals;
}

void AgentTeam::ensureForwarder() {
    if (m_forwarder.joinable())
        return;
    m_wakeFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    m_forwarder = std::thread([this] { forwardStops(); });
}

void AgentTeam::forwardStops() {
    // A stop of the task (a signal, control.cancel or pause, a closed stdin) reaches every sub-agent's
    // running tool and model call at once, not at its next step.
    pollfd fds[2] = {{m_task.cancellation.fd(), POLLIN, 0}, {m_wakeFd, POLLIN, 0}};
    for (;;) {
        const int timeoutMs = m_task.cancellation.fd() < 0 ? 100 : -1; // no eventfd: look now and then
        const int ready = poll(fds, 2, timeoutMs);
        if (ready < 0 && errno != EINTR)
            return;
        if (fds[1].revents)
            return;
        const StopRequest why = m_task.cancellation.requested();
        if (why == StopRequest::None)
            continue;
        std::lock_guard lock(m_mutex);
        m_forwarded = why;
        for (auto& member : m_members)
            member->stop->request(why);
        m_changed.notify_all();
        return;
    }
}

} // namespace warren::agent
