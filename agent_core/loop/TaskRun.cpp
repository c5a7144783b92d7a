#include "agent_core/loop/TaskRun.h"

#include "agent_core/context/Budget.h"
#include "agent_core/context/Compaction.h"
#include "agent_core/context/MemoryGuard.h"
#include "agent_core/context/TokenEstimate.h"
#include "agent_core/loop/BuiltInTools.h"
#include "agent_core/loop/ResourceReport.h"
#include "agent_core/memory/MemoryBackendFactory.h"
#include "agent_core/prompt/FamilyTools.h"
#include "agent_core/prompt/ProjectInstructions.h"
#include "agent_core/prompt/SkillsSection.h"
#include "agent_core/skills/SkillTool.h"
#include "agent_core/team/AgentRoles.h"

#include <algorithm>
#include <malloc.h>

namespace warren::agent {

using Clock = std::chrono::steady_clock;

namespace {

// The checkpoint's record of the events its run could not send (EventLog::unsent).
constexpr const char* kUnsentEvents = "unsent_events";

protocol::ToolResultData interruptedResult() {
    auto data = toolResultWith(std::nullopt);
    data.interrupted = true;
    return data;
}

} // namespace

TaskRun::TaskRun(const RunContext& context) : m_context(context), m_runStart(Clock::now()) {}

TaskRun::TaskRun(const RunContext& context, AgentTeam& team, AgentSeat seat)
    : m_context(context), m_team(&team), m_seat(std::move(seat)), m_rules(seatRules(m_seat)),
      m_runStart(Clock::now()) {}

TaskRun::~TaskRun() = default;

TaskOutcome TaskRun::run(const std::string& taskId, const std::string& prompt,
                         const std::optional<std::string>& reply) {
    if (auto refused = start(taskId, prompt, reply))
        return *refused;
    for (;;) {
        if (auto end = stopIfRequested())
            return *end;
        if (m_state.pendingCalls.empty()) {
            if (auto end = checkGuards())
                return *end;
            startStep();
            if (auto end = askModel())
                return *end;
        }
        if (auto end = runPendingCalls())
            return *end;
        if (auto end = endStep())
            return *end;
    }
}

std::optional<TaskOutcome> TaskRun::start(const std::string& taskId, const std::string& prompt,
                                          const std::optional<std::string>& reply) {
    if (auto opened = openState(taskId, prompt); !opened) {
        // Nothing can be trusted about the state: say why, touch nothing.
        m_context.events.begin(m_seqMark ? m_seqMark->last() + 1 : 1, nullptr);
        return refuse(opened.error().message);
    }
    if (reply && !m_resumed)
        return refuse("a reply continues task " + taskId + " from its checkpoint, and there is none" +
                      (m_context.paths.state ? " in " + m_context.paths.state->string()
                                             : std::string(" (no state directory)")) +
                      "; start a new task instead");
    if (reply)
        m_state.extra.erase("finished"); // the run that ended is continued
    if (m_resumed && m_state.extra.contains("finished"))
        return refuse("task " + taskId + " already ended (" + m_state.extra["finished"].value("reason", "") +
                      "): nothing to resume; reply to it to go on, or give a new task its own state directory");
    if (m_rules.ownsTeam) {
        m_ownTeam = std::make_unique<AgentTeam>(m_context, taskId);
        m_team = m_ownTeam.get();
        m_team->budget().add(m_state.counters.steps, m_state.counters.tokensIn + m_state.counters.tokensOut);
    }
    setUpTools();
    if (m_resumed)
        resume(reply);
    else
        startFresh(taskId, prompt);
    if (m_rules.ownsTeam && m_resumed)
        m_ownTeam->resumeAll(); // every sub-agent that had not ended goes on from its checkpoint
    return std::nullopt;
}

Status TaskRun::openState(const std::string& taskId, const std::string& prompt) {
    std::uint64_t firstSeq = 1;
    if (m_context.paths.state) {
        if (m_rules.numbersEvents) {
            auto mark = SeqMark::open(*m_context.paths.state);
            if (!mark)
                return mark.error();
            m_seqMark.emplace(std::move(mark).value());
        }
        m_store.emplace(*m_context.paths.state);
        auto loaded = m_store->load();
        if (!loaded)
            return loaded.error();
        if (*loaded) {
            if ((*loaded)->taskId != taskId)
                return makeError(ErrorCode::InvalidArgument,
                                 "the state directory " + m_context.paths.state->string() +
                                     " holds the checkpoint of task " + (*loaded)->taskId + ", not " +
                                     taskId + "; give each task its own");
            m_state = std::move(**loaded);
            m_resumed = true;
        }
        if (m_seqMark)
            firstSeq = std::max(m_state.nextSeq, m_seqMark->last() + 1);
    }
    if (!m_resumed) {
        m_state.taskId = taskId;
        m_state.prompt = prompt;
        m_state.presets = m_context.settings.presets;
        m_state.overrides = m_context.settings.overrides;
    }
    m_countersAtStart = m_state.counters;
    SeqMark* mark = m_seqMark ? &*m_seqMark : nullptr;
    m_context.events.begin(firstSeq, [mark](std::uint64_t seq) {
        if (mark)
            mark->record(seq);
    });
    m_context.events.configureLogging(m_context.config.logLevel, m_context.config.logFormat);
    m_context.events.setStep(m_state.step);
    return Ok{};
}

void TaskRun::setUpTools() {
    const auto& config = m_context.config;
    // Each family edits in the shape it was trained on (apply_patch or edit_file).
    std::vector<std::string> enabled = toolsForFamily(config.tools, modelFamily(m_context.facts));
    if (m_rules.usesMemory)
        openMemory();
    findSkills(enabled);
    auto tools = m_rules.usesMemory
                     ? builtInTools(m_memory.get(), m_memoryProblem, m_skills.get())
                     : builtInTools(nullptr, "sub-agents do not use the task's memory", m_skills.get());
    for (auto& entry : m_team->toolsFor(m_seat, config.tools)) {
        enabled.push_back(entry.spec.name);
        tools.push_back(std::move(entry));
    }
    if (m_rules.usesMcpServers)
        startMcpServers(enabled, tools);
    m_tools = std::make_unique<ToolRegistry>(std::move(tools), enabled, config.lazyTools);
    CallRunner::Host host{[this] { saveCheckpoint(false); },
                          [this](const protocol::ToolCall& call, std::string content,
                                 protocol::ToolResultData data, std::optional<std::uint64_t> durationMs) {
                              recordToolResult(call, std::move(content), std::move(data), durationMs);
                          }};
    m_calls = std::make_unique<CallRunner>(m_context, m_seat, m_state, *m_tools, m_team->claims(),
                                           m_stepDeadline, m_filesChanged, std::move(host));
    m_turn =
        std::make_unique<ModelTurn>(m_context, m_seat, m_state, *m_tools, m_team->budget(), m_stepDeadline);
}

void TaskRun::startMcpServers(std::vector<std::string>& enabled, std::vector<ToolEntry>& tools) {
    m_mcp = std::make_unique<McpServerSet>(m_context.config.mcpServers, m_context.paths.workspace, processEnvironment(),
                                           Clock::now() + kMcpStartTimeout, &m_context.cancellation);
    // Declared by the user in the workspace: offered whatever the tools setting says of the built-in ones.
    for (auto& entry : m_mcp->toolEntries()) {
        enabled.push_back(entry.spec.name);
        tools.push_back(std::move(entry));
    }
}

void TaskRun::refreshMcpTools() {
    if (!m_mcp)
        return;
    const auto deadline = std::min(m_stepDeadline, Clock::now() + kMcpStartTimeout);
    for (auto& change : m_mcp->refresh(deadline, &m_context.cancellation))
        m_tools->replace(change.before, std::move(change.entries));
    reportMcpNotices();
}

void TaskRun::reportMcpNotices() {
    if (!m_mcp)
        return;
    // Events whatever log_format says: a failure an error, what was left out a warning every face shows.
    for (const auto& notice : m_mcp->takeNotices()) {
        if (notice.kind == McpNotice::Kind::Failed)
            m_context.events.error(notice.message, false);
        else
            m_context.events.notice(notice.kind == McpNotice::Kind::Skipped ? LogLevel::Warn : LogLevel::Info,
                                    notice.message);
    }
}

void TaskRun::findSkills(std::vector<std::string>& enabled) {
    const auto skill = std::find(enabled.begin(), enabled.end(), SkillTool::kName);
    if (skill == enabled.end())
        return; // the tools setting leaves skills out: none are looked for
    m_skills =
        std::make_unique<SkillLibrary>(skillRoots(m_context.paths.workspace, m_context.config.skillsDirs));
    m_skills->refresh();
    if (m_skills->skills().empty())
        enabled.erase(skill);
}

void TaskRun::refreshSkills() {
    if (!m_skills)
        return;
    if (m_skills->refresh()) {
        const auto specs = m_tools->specs();
        const bool offered = std::any_of(specs.begin(), specs.end(), [](const protocol::ToolSpec& spec) {
            return spec.name == SkillTool::kName;
        });
        if (!offered && !m_skills->skills().empty())
            m_tools->replace({}, {skillToolEntry(m_skills.get())});
        else if (offered && m_skills->skills().empty())
            m_tools->replace({std::string(SkillTool::kName)}, {});
        updateSkillsSection();
    }
    reportSkillNotices();
}

std::string TaskRun::skillsSectionText() const {
    if (!m_skills)
        return {};
    return skillsSection(m_skills->skills(), skillsListBudget(m_context.config.contextWindowLimit));
}

void TaskRun::updateSkillsSection() {
    if (m_state.messages.empty() || m_state.messages.front().role != "system")
        return;
    std::string& system = m_state.messages.front().content;
    std::string updated = withSkillsSection(system, skillsSectionText());
    if (updated == system)
        return;
    system = std::move(updated);
    m_turn->forgetEstimate();
}

void TaskRun::reportSkillNotices() {
    if (!m_skills)
        return;
    for (const auto& notice : m_skills->takeNotices())
        m_context.events.notice(notice.kind == SkillNotice::Kind::Skipped ? LogLevel::Warn : LogLevel::Info,
                                notice.message);
}

void TaskRun::openMemory() {
    const auto& config = m_context.config;
    HostMemoryCall memoryCall = nullptr;
    if (m_context.hostCall)
        memoryCall = [this](const std::string& method, const nlohmann::json& params) {
            return m_context.hostCall(method, params, m_stepDeadline, nullptr);
        };
    auto backend =
        (config.memoryBackend == MemoryBackendKind::Host && !m_context.hostCall)
            ? Result<std::unique_ptr<MemoryBackend>>(makeError(
                  ErrorCode::Unsupported, "memory_backend host needs the control plane: run the agent "
                                          "with warren-agent serve, or choose another memory_backend"))
            : makeMemoryBackend(config.memoryBackend, config.memoryDir, config.memoryPrefix, memoryCall);
    if (!backend) {
        m_memoryProblem = backend.error().message;
        return;
    }
    AgentMemory::Options options;
    options.prefix = config.memoryPrefix;
    options.autoSaveIntervalSec = config.autoSaveIntervalSec;
    options.semanticIndex = config.semanticIndex;
    m_memory = std::make_unique<AgentMemory>(std::move(backend).value(), options);
}

void TaskRun::startFresh(const std::string& taskId, const std::string& prompt) {
    if (!m_rules.announcesTask) { // agent_started was emitted by the team
        startConversation(subAgentBrief(m_seat.id, m_seat.role, prompt));
        reportSkillNotices();
        saveCheckpoint(true);
        return;
    }
    m_context.events.emit(
        protocol::TaskStartedData{taskId, prompt, m_state.presets, configForEvents(m_context.config)});
    startConversation(prompt);
    if (!m_memoryProblem.empty())
        m_context.events.log(LogLevel::Warn, "memory tools unavailable: " + m_memoryProblem);
    reportMcpNotices();
    reportSkillNotices();
    if (!m_context.paths.state)
        m_context.events.log(LogLevel::Info,
                             "no state directory: the task cannot be resumed if it is stopped");
    fireHook(hook::kOnTaskStart);
    saveCheckpoint(true);
}

void TaskRun::startConversation(const std::string& prompt) {
    std::vector<std::string> names;
    for (const auto& spec : offeredTools(*m_tools))
        names.push_back(spec.name);
    RunFacts facts = m_context.facts;
    facts.attended = m_turn->attended();
    const SystemPrompt system = renderSystemPrompt(m_context.config, facts, names);
    std::string text = withSkillsSection(system.text, skillsSectionText());
    m_context.events.log(LogLevel::Info, "system prompt version " + system.version + " for the " +
                                             std::string(toString(system.family)) + " model family, about " +
                                             std::to_string(text.size() / kBytesPerToken) + " tokens");
    m_state.messages = {{"system", std::move(text), {}, std::nullopt, {}}};
    const auto files = findProjectInstructions(m_context.paths.workspace);
    for (const auto& file : files)
        m_context.events.emit(
            protocol::ProjectInstructionsData{file.path, file.text, file.bytes, file.truncated});
    if (!files.empty())
        m_state.messages.push_back({"user", instructionsMessage(files), {}, std::nullopt, {}});
    m_state.messages.push_back({"user", prompt, {}, std::nullopt, {}});
    m_turn->forgetEstimate();
}

void TaskRun::resume(const std::optional<std::string>& reply) {
    if (!m_rules.keepsModelState) {
        for (const auto& path : m_state.extra.value("claims", std::vector<std::string>{}))
            m_team->claims().claim(m_seat.id, path);
        for (const auto& path : m_state.extra.value("files_changed", std::vector<std::string>{}))
            m_filesChanged.insert(path);
    } else if (auto restored = m_context.model.restoreState(m_state.extra.value("model", nlohmann::json()));
               !restored) {
        m_context.events.error(restored.error().message, false);
    }
    m_state.counters.resumes++;
    // What the run before did but could not send (its control plane went away as it ended), before this
    // run's own events: the timeline shows what the model was told.
    if (const auto unsent = m_state.extra.find(kUnsentEvents); unsent != m_state.extra.end()) {
        for (const auto& kept : *unsent)
            if (auto event = protocol::eventFromJson(kept))
                m_context.events.resend(std::move(*event));
        m_state.extra.erase(unsent);
    }
    if (m_context.config.timeoutPerStepSec)
        m_stepDeadline = Clock::now() + std::chrono::seconds(m_context.config.timeoutPerStepSec);
    if (m_state.runningCall) {
        // The call may have done part or all of its work: say so, and let the model decide.
        const auto call = *m_state.runningCall;
        m_state.counters.interruptedCalls++;
        m_context.events.emit(protocol::TaskResumedData{m_state.step, call.id});
        recordToolResult(
            call,
            std::string(kInterruptedResult) +
                " The agent was stopped while this call ran. It was not run again; its effects, if "
                "any, are unknown. Check before repeating it.",
            interruptedResult());
        m_state.runningCall.reset();
    } else {
        m_context.events.emit(protocol::TaskResumedData{m_state.step, std::nullopt});
    }
    reportMcpNotices();
    // The skills may have changed while the task was stopped: the prompt says what they are now.
    updateSkillsSection();
    reportSkillNotices();
    if (reply)
        addReply(*reply);
    else
        saveCheckpoint(true);
}

void TaskRun::addReply(const std::string& reply) {
    // A question a pause left open is closed: the call it asked about will not run.
    for (const auto& call : m_state.pendingCalls)
        if (call.id == m_state.askedCall)
            m_context.events.emit(
                protocol::ApprovalResolvedData{call.id, false, "the user replied instead", std::nullopt},
                {call.name, std::nullopt, std::nullopt});
    m_state.askedCall.reset();
    // An assistant message's calls are each answered before anything else is said (every provider's rule).
    for (const auto& call : m_state.pendingCalls)
        recordToolResult(call,
                         "Not run: the task stopped before this call ran, and the user replied instead.",
                         toolResultWith(std::nullopt));
    m_state.pendingCalls.clear();
    m_turn->addMessage({"user", reply, {}, std::nullopt, {}});
    m_turn->userReplied();
    // Durable before the event: once the control plane sees user_message it forgets the reply it kept.
    saveCheckpoint(true);
    m_context.events.emit(protocol::UserMessageData{reply});
}

std::optional<TaskOutcome> TaskRun::stopIfRequested() {
    switch (m_context.cancellation.requested()) {
    case StopRequest::None:
        return std::nullopt;
    case StopRequest::Cancel:
        return finish(ExitReason::Cancelled, "cancelled");
    case StopRequest::Pause:
    case StopRequest::HostGone:
        return finish(ExitReason::Paused, m_context.cancellation.requested() == StopRequest::Pause
                                              ? "paused; resume to continue"
                                              : "the control plane went away; resume to continue");
    }
    return std::nullopt;
}

std::optional<TaskOutcome> TaskRun::checkGuards() {
    const auto& config = m_context.config;
    auto stop = [&](const char* guard, std::string detail) {
        m_context.events.emit(protocol::GuardData{guard, protocol::GuardAction::Stop, detail});
        return finish(ExitReason::Guard, detail);
    };
    // One budget for the whole task: every agent's steps and tokens count.
    const auto steps = m_team->budget().steps();
    if (stepsVerdict(steps + 1, config.maxSteps) == BudgetVerdict::Exhausted)
        return stop("max_steps", "stopped after " + std::to_string(steps) + " steps (max_steps)");
    const auto used = m_team->budget().tokens();
    if (tokenBudgetVerdict(used, config.tokenBudget) == BudgetVerdict::Exhausted)
        return stop("token_budget", "used " + std::to_string(used) + " tokens of a budget of " +
                                        std::to_string(config.tokenBudget) + " (token_budget)");
    if (config.memoryThresholdMb || config.maxMemoryMb) {
        const auto rss = currentRssBytes().value_or(0);
        // Shed once per rise: only a fall back under the threshold re-arms it.
        const auto rearmBelow = (config.memoryThresholdMb ? config.memoryThresholdMb : config.maxMemoryMb)
                                << 20;
        if (rss <= rearmBelow)
            m_memoryShed = false;
        auto verdict = memoryVerdict(rss, config.memoryThresholdMb, config.maxMemoryMb, m_memoryShed);
        if (verdict == MemoryVerdict::Shed) {
            shedMemory(rss);
            verdict = memoryVerdict(currentRssBytes().value_or(0), config.memoryThresholdMb,
                                    config.maxMemoryMb, m_memoryShed);
        }
        if (verdict == MemoryVerdict::Stop)
            return stop("max_memory_mb", "resident memory " + std::to_string(rss >> 20) +
                                             " MiB stays above max_memory_mb " +
                                             std::to_string(config.maxMemoryMb) + " after shedding");
    }
    return std::nullopt;
}

void TaskRun::shedMemory(std::uint64_t rssBytes) {
    const auto& config = m_context.config;
    const auto before = m_state.messages.size();
    m_calls->clearCache();
    if (m_memory)
        m_memory->shedCaches();
    m_state.messages = shedHistory(m_state.messages);
    m_turn->forgetEstimate();
    malloc_trim(0);
    m_memoryShed = true;
    const std::string limit = config.memoryThresholdMb
                                  ? "memory_threshold_mb " + std::to_string(config.memoryThresholdMb)
                                  : "max_memory_mb " + std::to_string(config.maxMemoryMb);
    const std::string detail = "resident memory " + std::to_string(rssBytes >> 20) + " MiB above " + limit +
                               ": cleared the tool cache, cut history from " + std::to_string(before) + " to " +
                               std::to_string(m_state.messages.size()) + " messages";
    m_context.events.emit(protocol::GuardData{"memory_threshold_mb", protocol::GuardAction::Warn, detail});
    fireHook(hook::kOnLowMemory, std::to_string(rssBytes));
}

void TaskRun::startStep() {
    m_state.step++;
    m_state.counters.steps++;
    m_team->budget().add(1, 0);
    m_context.events.setStep(m_state.step);
    if (m_rules.readsInbox) {
        for (auto& message : m_team->takeMessages(m_seat.id))
            m_turn->addMessage(
                {"user", "A message from the agent that started you:\n" + message, {}, std::nullopt, {}});
    }
    m_context.events.emit(protocol::StepStartedData{});
    m_stepDeadline = m_context.config.timeoutPerStepSec
                         ? Clock::now() + std::chrono::seconds(m_context.config.timeoutPerStepSec)
                         : Clock::time_point::max();
    refreshMcpTools();
    refreshSkills();

    m_turn->compactIfDue();
}

std::optional<TaskOutcome> TaskRun::askModel() {
    auto end = m_turn->ask();
    if (!end)
        return std::nullopt;
    switch (end->kind) {
    case ModelTurn::End::Kind::Failed:
        if (auto stopped = stopIfRequested())
            return stopped;
        m_context.events.error("the model call failed: " + end->detail, true);
        fireHook(hook::kOnError, end->detail);
        return finish(ExitReason::Failed, std::move(end->detail));
    case ModelTurn::End::Kind::Guard:
        return finish(ExitReason::Guard, std::move(end->detail));
    case ModelTurn::End::Kind::Waiting:
        m_ending = TaskOutcome{ExitReason::Waiting, std::move(end->detail)};
        return std::nullopt;
    case ModelTurn::End::Kind::LastWord:
        m_ending = TaskOutcome{ExitReason::Finished, std::move(end->detail)}; // the model's last word
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<TaskOutcome> TaskRun::runPendingCalls() {
    auto end = m_calls->runPending();
    if (!end)
        return std::nullopt;
    switch (end->kind) {
    case CallRunner::End::Kind::Finish:
        m_ending = TaskOutcome{ExitReason::Finished, std::move(end->detail)};
        return std::nullopt;
    case CallRunner::End::Kind::Guard:
        return finish(ExitReason::Guard, std::move(end->detail));
    case CallRunner::End::Kind::StopRequested:
        return stopIfRequested();
    }
    return std::nullopt;
}

std::optional<TaskOutcome> TaskRun::endStep() {
    // A task that reached its end (finish, or a reply to the user) ends so, whatever stop request came in
    // meanwhile.
    if (m_context.cancellation.stopRequested() && !m_ending)
        return stopIfRequested();
    fireHook(hook::kOnStep);
    if (m_memory) {
        if (auto flushed = m_memory->flushIfDue(); !flushed)
            m_context.events.error("saving memories failed: " + flushed.error().message, false);
    }
    m_context.events.emit(protocol::ResourceSampleData{currentRssBytes().value_or(0), cpuMillisSoFar()});
    if (m_ending)
        return finish(m_ending->reason, m_ending->summary); // which writes the last checkpoint
    saveCheckpoint(true);
    return std::nullopt;
}

void TaskRun::recordToolResult(const protocol::ToolCall& call, std::string content,
                               protocol::ToolResultData data, std::optional<std::uint64_t> durationMs) {
    data.id = call.id;
    data.output = content;
    m_context.events.emit(data, {call.name, std::nullopt, durationMs});
    m_turn->addMessage({"tool", std::move(content), {}, call.id, {}});
}

void TaskRun::updateTimes() {
    auto& counters = m_state.counters;
    counters.wallMs = m_countersAtStart.wallMs + millisSince(m_runStart);
    counters.cpuMs = m_countersAtStart.cpuMs + cpuMillisSoFar();
    counters.peakRssBytes = std::max(m_countersAtStart.peakRssBytes, peakRssBytesSoFar());
}

void TaskRun::saveCheckpoint(bool durable) {
    if (!m_store)
        return;
    updateTimes();
    if (durable)
        m_state.counters.checkpoints++;
    m_state.nextSeq = m_context.events.nextSeq() + (durable ? 1 : 0);
    if (const auto unsent = m_context.events.unsent(); !unsent.empty()) {
        nlohmann::json kept = nlohmann::json::array();
        for (const auto& event : unsent)
            kept.push_back(protocol::toJson(event));
        m_state.extra[kUnsentEvents] = std::move(kept);
    }
    if (m_rules.keepsModelState) {
        m_state.extra["model"] = m_context.model.saveState();
    } else {
        m_state.extra["files_changed"] = filesChanged();
        m_state.extra["claims"] = m_team->claims().heldBy(m_seat.id);
    }
    auto saved = m_store->save(m_state, durable);
    if (!saved) {
        m_context.events.error("writing the checkpoint failed: " + saved.error().message, false);
        return;
    }
    if (!durable)
        m_context.events.log(LogLevel::Debug,
                             "state written before the next action (" + std::to_string(*saved) + " bytes)");
    if (durable)
        m_context.events.emit(protocol::CheckpointData{m_store->path().string(), *saved});
}

TaskOutcome TaskRun::finish(ExitReason reason, std::string summary) {
    // Sub-agents end before the task does: paused with it (resumable, as a task waiting for the user's
    // reply is), otherwise stopped.
    const bool goesOn = reason == ExitReason::Paused || reason == ExitReason::Waiting;
    if (m_ownTeam)
        m_ownTeam->stopAll(goesOn ? StopRequest::Pause : StopRequest::Cancel);
    if (m_memory) {
        if (auto flushed = m_memory->flush(); !flushed)
            m_context.events.error("saving memories failed: " + flushed.error().message, false);
    }
    fireHook(hook::kOnTaskComplete, std::string(toString(reason)));
    if (reason != ExitReason::Paused)
        m_state.extra["finished"] = {{"reason", toString(reason)}, {"summary", summary}};
    saveCheckpoint(true);
    if (!m_rules.announcesTask) {
        m_context.events.emit(
            protocol::AgentFinishedData{reason, summary, filesChanged()});
        return {reason, std::move(summary)};
    }
    if (m_context.paths.output) {
        const auto subagents = m_team->totals();
        auto report = resourceReportJson({m_state.counters, std::string(toString(reason)), m_tools->loaded(),
                                          subagents.started, subagents.counters});
        if (auto written = writeResourceReport(*m_context.paths.output, report); !written)
            m_context.events.error(written.error().message, false);
    }
    m_context.events.emit(protocol::TaskFinishedData{reason, summary});
    return {reason, std::move(summary)};
}

TaskOutcome TaskRun::refuse(const std::string& message) {
    m_context.events.error(message, true);
    if (!m_rules.announcesTask) {
        m_context.events.emit(protocol::AgentFinishedData{ExitReason::Failed, message, {}});
        return {ExitReason::Failed, message};
    }
    m_context.events.emit(protocol::TaskFinishedData{ExitReason::Failed, message});
    return {ExitReason::Failed, message};
}

void TaskRun::fireHook(const char* name, std::string detail) {
    if (!m_rules.firesHooks)
        return;
    m_context.hooks.fire({name, m_state.taskId, m_state.step, std::move(detail)}, m_context.paths.workspace,
                         m_context.events);
}

} // namespace warren::agent
