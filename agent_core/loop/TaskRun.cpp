#include "agent_core/loop/TaskRun.h"

#include "agent_core/context/Budget.h"
#include "agent_core/context/Compaction.h"
#include "agent_core/context/CutReply.h"
#include "agent_core/context/MemoryGuard.h"
#include "agent_core/context/OutputBudget.h"
#include "agent_core/context/TokenEstimate.h"
#include "agent_core/loop/BuiltInTools.h"
#include "agent_core/loop/CallCheck.h"
#include "agent_core/loop/ResourceReport.h"
#include "agent_core/memory/MemoryBackendFactory.h"
#include "agent_core/prompt/FamilyTools.h"
#include "agent_core/prompt/HandoffPrompt.h"
#include "agent_core/prompt/ProjectInstructions.h"
#include "agent_core/team/AgentRoles.h"
#include "agent_core/team/AgentTools.h"
#include "agent_core/tools/WorkspacePath.h"
#include "agent_core/tools/WorkspaceSnapshot.h"

#include <algorithm>
#include <malloc.h>

namespace warren::agent {

using Clock = std::chrono::steady_clock;

namespace {

// What a model that replied without a tool call is told in an unattended run (max_nudges).
constexpr const char* kNudge =
    "You replied without calling a tool. This run is unattended: nobody will answer or act on text. If the "
    "task is done and checked, call finish with your summary; otherwise go on with the next tool call.";
// ... and in an attended run, where only an empty reply is nudged (any other is the user's turn).
constexpr const char* kEmptyReplyNudge =
    "Your reply was empty. If the task is done and checked, call finish with your summary; if you need the "
    "user, write your question; otherwise go on with the next tool call.";

protocol::ToolSpec finishSpec() {
    return {"finish", "End the task with a summary of what was done.",
            {{"type", "object"},
             {"properties", {{"summary", {{"type", "string"}, {"description", "what was done"}}}}},
             {"required", {"summary"}}}};
}

// file_changed's data (docs/PROTOCOL.md): the diff and its counts when the tool knew both contents, only
// that it was binary when it was, and neither for a change seen from outside.
protocol::FileChangedData fileChangedData(const std::string& path, FileChange change, const FileDiff* diff) {
    protocol::FileChangedData data;
    data.path = path;
    data.change = change;
    if (!diff)
        return data;
    if (diff->binary) {
        data.binary = true;
        return data;
    }
    data.diff = diff->text;
    data.added = diff->added;
    data.removed = diff->removed;
    data.diffTruncated = diff->truncated;
    return data;
}

// A result before its id and output are known (recordToolResult fills them in).
protocol::ToolResultData resultWith(std::optional<std::int64_t> exitCode) {
    protocol::ToolResultData data;
    data.exitCode = exitCode;
    return data;
}

protocol::ToolResultData interruptedResult() {
    auto data = resultWith(std::nullopt);
    data.interrupted = true;
    return data;
}

protocol::ToolResultData deniedResult() {
    auto data = resultWith(std::nullopt);
    data.denied = true;
    return data;
}

protocol::GuardData guardEvent(std::string guard, protocol::GuardAction action, std::string detail) {
    return {std::move(guard), action, std::move(detail)};
}

// What the model_response event shows of a reply's reasoning: the text of its thinking blocks.
std::string reasoningText(const std::vector<protocol::ReasoningBlock>& blocks) {
    std::string text;
    for (const auto& block : blocks) {
        if (block.text.empty())
            continue;
        text += (text.empty() ? "" : "\n\n") + block.text;
    }
    return text;
}

std::uint64_t millisSince(Clock::time_point start) {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
}

} // namespace

TaskRun::TaskRun(const AgentConfig& config, const AgentSettings& settings, const RunFacts& facts, const Hooks& hooks,
                 Llm& model, const Approver& approver, const HostCall& hostCall, const AgentPaths& paths,
                 EventLog& events, Cancellation& cancellation)
    : m_config(config), m_settings(settings), m_facts(facts), m_hooks(hooks), m_model(model), m_approver(approver), m_hostCall(hostCall),
      m_paths(paths), m_events(events), m_cancellation(cancellation),
      m_loopDetector(config.loopThreshold), m_runStart(Clock::now()) {}

TaskRun::TaskRun(const AgentConfig& config, const AgentSettings& settings, const RunFacts& facts, const Hooks& hooks,
                 Llm& model, const Approver& approver, const HostCall& hostCall, const AgentPaths& paths,
                 EventLog& events, Cancellation& cancellation, AgentTeam& team, AgentSeat seat)
    : TaskRun(config, settings, facts, hooks, model, approver, hostCall, paths, events, cancellation) {
    m_team = &team;
    m_seat = std::move(seat);
}

TaskRun::~TaskRun() = default;

TaskOutcome TaskRun::run(const std::string& taskId, const std::string& prompt,
                         const std::optional<std::string>& reply) {
    if (auto opened = openState(taskId, prompt); !opened) {
        // Nothing can be trusted about the state: say why, touch nothing.
        m_events.begin(m_seqMark ? m_seqMark->last() + 1 : 1, nullptr);
        return refuse(opened.error().message);
    }
    if (reply && !m_resumed)
        return refuse("a reply continues task " + taskId + " from its checkpoint, and there is none" +
                      (m_paths.state ? " in " + m_paths.state->string() : std::string(" (no state directory)")) +
                      "; start a new task instead");
    if (reply)
        m_state.extra.erase("finished"); // the run that ended is continued
    if (m_resumed && m_state.extra.contains("finished"))
        return refuse("task " + taskId + " already ended (" + m_state.extra["finished"].value("reason", "") +
                      "): nothing to resume; reply to it to go on, or give a new task its own state directory");
    if (!m_team) {
        m_ownTeam = std::make_unique<AgentTeam>(TeamEnvironment{m_config, m_settings, m_facts, m_hooks, m_model,
                                                                m_approver, m_hostCall, m_paths, m_events,
                                                                m_cancellation, taskId});
        m_team = m_ownTeam.get();
        m_team->budget().add(m_state.counters.steps, m_state.counters.tokensIn + m_state.counters.tokensOut);
    }
    setUpTools();
    if (m_resumed)
        resume(reply);
    else
        startFresh(taskId, prompt);
    if (m_ownTeam && m_resumed)
        m_ownTeam->resumeAll(); // every sub-agent that had not ended goes on from its checkpoint

    for (;;) {
        if (auto end = stopIfRequested())
            return *end;
        if (m_state.pendingCalls.empty()) {
            if (auto end = checkGuards())
                return *end;
            if (auto end = askModel())
                return *end;
        }
        if (auto end = runPendingCalls())
            return *end;
        if (auto end = endStep())
            return *end;
    }
}

Status TaskRun::openState(const std::string& taskId, const std::string& prompt) {
    std::uint64_t firstSeq = 1;
    if (m_paths.state) {
        if (!m_seat.isSubAgent()) { // a sub-agent's events are numbered by the task's log
            auto mark = SeqMark::open(*m_paths.state);
            if (!mark)
                return mark.error();
            m_seqMark.emplace(std::move(mark).value());
        }
        m_store.emplace(*m_paths.state);
        auto loaded = m_store->load();
        if (!loaded)
            return loaded.error();
        if (*loaded) {
            if ((*loaded)->taskId != taskId)
                return makeError(ErrorCode::InvalidArgument,
                                 "the state directory " + m_paths.state->string() + " holds the checkpoint of task " +
                                     (*loaded)->taskId + ", not " + taskId + "; give each task its own");
            m_state = std::move(**loaded);
            m_resumed = true;
        }
        if (m_seqMark)
            firstSeq = std::max(m_state.nextSeq, m_seqMark->last() + 1);
    }
    if (!m_resumed) {
        m_state.taskId = taskId;
        m_state.prompt = prompt;
        m_state.presets = m_settings.presets;
        m_state.overrides = m_settings.overrides;
    }
    m_countersAtStart = m_state.counters;
    SeqMark* mark = m_seqMark ? &*m_seqMark : nullptr;
    m_events.begin(firstSeq, [mark](std::uint64_t seq) {
        if (mark)
            mark->record(seq);
    });
    m_events.configureLogging(m_config.logLevel, m_config.logFormat);
    m_events.setStep(m_state.step);
    return Ok{};
}

void TaskRun::setUpTools() {
    const std::string hostGone = "memory_backend host needs the control plane: run the agent with "
                                 "warren-agent serve, or choose another memory_backend";
    // Each family edits in the shape it was trained on (apply_patch or edit_file).
    std::vector<std::string> enabled = toolsForFamily(m_config.tools, modelFamily(m_facts));
    std::vector<ToolEntry> entries;
    if (m_seat.isSubAgent()) {
        // The task's memory has one writer, the task's own agent: a sub-agent's roles leave the tools out.
        entries = builtInTools(nullptr, "sub-agents do not use the task's memory");
    }
    for (auto& entry : m_team->toolsFor(m_seat, m_config.tools)) {
        enabled.push_back(entry.spec.name);
        entries.push_back(std::move(entry));
    }
    if (m_seat.isSubAgent()) {
        m_tools = std::make_unique<ToolRegistry>(std::move(entries), enabled, m_config.lazyTools);
        m_loopDetector.restore({m_state.recentCallKeys, m_state.loopWarned});
        return;
    }
    HostMemoryCall memoryCall = nullptr;
    if (m_hostCall)
        memoryCall = [this](const std::string& method, const nlohmann::json& params) {
            return m_hostCall(method, params, m_stepDeadline, nullptr);
        };
    auto backend = (m_config.memoryBackend == MemoryBackendKind::Host && !m_hostCall)
                       ? Result<std::unique_ptr<MemoryBackend>>(makeError(ErrorCode::Unsupported, hostGone))
                       : makeMemoryBackend(m_config.memoryBackend, m_config.memoryDir, m_config.memoryPrefix,
                                           memoryCall);
    if (backend) {
        AgentMemory::Options options;
        options.prefix = m_config.memoryPrefix;
        options.autoSaveIntervalSec = m_config.autoSaveIntervalSec;
        options.semanticIndex = m_config.semanticIndex;
        m_memory = std::make_unique<AgentMemory>(std::move(backend).value(), options);
    } else {
        m_memoryProblem = backend.error().message;
    }

    auto tools = builtInTools(m_memory.get(), m_memoryProblem);
    for (auto& entry : entries)
        tools.push_back(std::move(entry));
    m_tools = std::make_unique<ToolRegistry>(std::move(tools), enabled, m_config.lazyTools);
    m_loopDetector.restore({m_state.recentCallKeys, m_state.loopWarned});
}

void TaskRun::startFresh(const std::string& taskId, const std::string& prompt) {
    if (m_seat.isSubAgent()) { // agent_started was emitted by the team
        startConversation(subAgentBrief(m_seat.id, m_seat.role, prompt));
        saveCheckpoint(true);
        return;
    }
    m_events.emit(protocol::TaskStartedData{taskId, prompt, m_state.presets, configToJson(m_config)});
    startConversation(prompt);
    if (!m_memoryProblem.empty())
        m_events.log(LogLevel::Warn, "memory tools unavailable: " + m_memoryProblem);
    if (!m_paths.state)
        m_events.log(LogLevel::Info, "no state directory: the task cannot be resumed if it is stopped");
    fireHook(hook::kOnTaskStart);
    saveCheckpoint(true);
}

std::vector<protocol::ToolSpec> TaskRun::offeredTools() const {
    auto specs = m_tools->specs();
    specs.push_back(finishSpec());
    return specs;
}

void TaskRun::startConversation(const std::string& prompt) {
    std::vector<std::string> names;
    for (const auto& spec : offeredTools())
        names.push_back(spec.name);
    RunFacts facts = m_facts;
    facts.attended = attended();
    const SystemPrompt system = renderSystemPrompt(m_config, facts, names);
    m_events.log(LogLevel::Info, "system prompt version " + system.version + " for the " +
                                     std::string(toString(system.family)) + " model family, about " +
                                     std::to_string(system.text.size() / kBytesPerToken) + " tokens");
    m_state.messages = {{"system", system.text, {}, std::nullopt, {}}};
    const auto files = findProjectInstructions(m_paths.workspace);
    for (const auto& file : files)
        m_events.emit(protocol::ProjectInstructionsData{file.path, file.text, file.bytes, file.truncated});
    if (!files.empty())
        m_state.messages.push_back({"user", instructionsMessage(files), {}, std::nullopt, {}});
    m_state.messages.push_back({"user", prompt, {}, std::nullopt, {}});
    m_contextTokens.reset();
}

void TaskRun::resume(const std::optional<std::string>& reply) {
    if (m_seat.isSubAgent()) {
        for (const auto& path : m_state.extra.value("claims", std::vector<std::string>{}))
            m_team->claims().claim(m_seat.id, path);
        for (const auto& path : m_state.extra.value("files_changed", std::vector<std::string>{}))
            m_filesChanged.insert(path);
    } else if (auto restored = m_model.restoreState(m_state.extra.value("model", nlohmann::json())); !restored) {
        m_events.error(restored.error().message, false);
    }
    m_state.counters.resumes++;
    if (m_config.timeoutPerStepSec)
        m_stepDeadline = Clock::now() + std::chrono::seconds(m_config.timeoutPerStepSec);
    if (m_state.runningCall) {
        // The call may have done part or all of its work: say so, and let the model decide.
        const auto call = *m_state.runningCall;
        m_state.counters.interruptedCalls++;
        m_events.emit(protocol::TaskResumedData{m_state.step, call.id});
        recordToolResult(
            call,
            std::string(kInterruptedResult) +
                " The agent was stopped while this call ran. It was not run again; its effects, if "
                "any, are unknown. Check before repeating it.",
            interruptedResult());
        m_state.runningCall.reset();
    } else {
        m_events.emit(protocol::TaskResumedData{m_state.step, std::nullopt});
    }
    if (reply)
        addReply(*reply);
    else
        saveCheckpoint(true);
}

void TaskRun::addReply(const std::string& reply) {
    // An assistant message's calls are each answered before anything else is said (every provider's rule).
    for (const auto& call : m_state.pendingCalls)
        recordToolResult(call, "Not run: the task stopped before this call ran, and the user replied instead.",
                         resultWith(std::nullopt));
    m_state.pendingCalls.clear();
    addMessage({"user", reply, {}, std::nullopt, {}});
    m_nudgesInARow = 0;
    // Durable before the event: once the control plane sees user_message it forgets the reply it kept.
    saveCheckpoint(true);
    m_events.emit(protocol::UserMessageData{reply});
}

std::optional<TaskOutcome> TaskRun::stopIfRequested() {
    switch (m_cancellation.requested()) {
    case StopRequest::None:
        return std::nullopt;
    case StopRequest::Cancel:
        return finish(ExitReason::Cancelled, "cancelled");
    case StopRequest::Pause:
    case StopRequest::HostGone:
        return finish(ExitReason::Paused, m_cancellation.requested() == StopRequest::Pause
                                              ? "paused; resume to continue"
                                              : "the control plane went away; resume to continue");
    }
    return std::nullopt;
}

std::optional<TaskOutcome> TaskRun::checkGuards() {
    auto stop = [&](const char* guard, std::string detail) {
        m_events.emit(guardEvent(guard, protocol::GuardAction::Stop, detail));
        return finish(ExitReason::Guard, detail);
    };
    // One budget for the whole task: every agent's steps and tokens count.
    const auto steps = m_team->budget().steps();
    if (stepsVerdict(steps + 1, m_config.maxSteps) == BudgetVerdict::Exhausted)
        return stop("max_steps", "stopped after " + std::to_string(steps) + " steps (max_steps)");
    const auto used = m_team->budget().tokens();
    if (tokenBudgetVerdict(used, m_config.tokenBudget) == BudgetVerdict::Exhausted)
        return stop("token_budget", "used " + std::to_string(used) + " tokens of a budget of " +
                                        std::to_string(m_config.tokenBudget) + " (token_budget)");
    if (m_config.memoryThresholdMb || m_config.maxMemoryMb) {
        const auto rss = currentRssBytes().value_or(0);
        // Shed once per rise: only a fall back under the threshold re-arms it.
        const auto rearmBelow = (m_config.memoryThresholdMb ? m_config.memoryThresholdMb : m_config.maxMemoryMb) << 20;
        if (rss <= rearmBelow)
            m_memoryShed = false;
        auto verdict = memoryVerdict(rss, m_config.memoryThresholdMb, m_config.maxMemoryMb, m_memoryShed);
        if (verdict == MemoryVerdict::Shed) {
            shedMemory(rss);
            verdict = memoryVerdict(currentRssBytes().value_or(0), m_config.memoryThresholdMb,
                                    m_config.maxMemoryMb, m_memoryShed);
        }
        if (verdict == MemoryVerdict::Stop)
            return stop("max_memory_mb", "resident memory " + std::to_string(rss >> 20) +
                                             " MiB stays above max_memory_mb " +
                                             std::to_string(m_config.maxMemoryMb) + " after shedding");
    }
    return std::nullopt;
}

void TaskRun::shedMemory(std::uint64_t rssBytes) {
    const auto before = m_state.messages.size();
    m_cache.clear();
    if (m_memory)
        m_memory->shedCaches();
    m_state.messages = shedHistory(m_state.messages);
    m_contextTokens.reset();
    malloc_trim(0);
    m_memoryShed = true;
    const std::string limit = m_config.memoryThresholdMb
                                  ? "memory_threshold_mb " + std::to_string(m_config.memoryThresholdMb)
                                  : "max_memory_mb " + std::to_string(m_config.maxMemoryMb);
    const std::string detail = "resident memory " + std::to_string(rssBytes >> 20) + " MiB above " + limit +
                               ": cleared the tool cache, cut history from " + std::to_string(before) + " to " +
                               std::to_string(m_state.messages.size()) + " messages";
    m_events.emit(guardEvent("memory_threshold_mb", protocol::GuardAction::Warn, detail));
    fireHook(hook::kOnLowMemory, std::to_string(rssBytes));
}

std::optional<TaskOutcome> TaskRun::askModel() {
    m_state.step++;
    m_state.counters.steps++;
    m_team->budget().add(1, 0);
    m_events.setStep(m_state.step);
    if (m_seat.isSubAgent()) {
        for (auto& message : m_team->takeMessages(m_seat.id))
            addMessage({"user", "A message from the agent that started you:\n" + message, {}, std::nullopt, {}});
    }
    m_events.emit(protocol::StepStartedData{});
    m_stepDeadline = m_config.timeoutPerStepSec
                         ? Clock::now() + std::chrono::seconds(m_config.timeoutPerStepSec)
                         : Clock::time_point::max();

    // The estimate is kept up to date as messages are added, so a step does not walk the whole conversation
    // unless it has to be compacted (or compress_history shortens old results every step).
    if (!m_contextTokens)
        m_contextTokens = estimateTokens(m_state.messages);
    if (m_config.compressHistory || *m_contextTokens > m_config.contextWindowLimit)
        compactContext();

    auto tools = m_tools->specs();
    tools.push_back(finishSpec());
    protocol::LlmChatParams params = chatParams(m_state.messages, std::move(tools));
    for (;;) {
        const auto started = Clock::now();
        auto reply = m_model.chat(params, m_stepDeadline, m_cancellation);
        if (!reply) {
            if (auto stopped = stopIfRequested())
                return stopped;
            m_events.error("the model call failed: " + reply.error().message, true);
            fireHook(hook::kOnError, reply.error().message);
            return finish(ExitReason::Failed, reply.error().message);
        }
        auto& result = *reply;
        countModelCall(result.tokenUsage);
        if (m_seat.isSubAgent()) {
            for (std::size_t i = 0; i < result.toolCalls.size(); ++i)
                result.toolCalls[i].id =
                    subAgentCallId(m_seat.id, m_state.counters.modelCalls, i, result.toolCalls[i].id);
        }
        m_events.emit(protocol::ModelResponseData{result.content, result.toolCalls, result.finishReason,
                                                  reasoningText(result.reasoning)},
                      {std::nullopt, result.tokenUsage, millisSince(started)});
        if (result.finishReason == "length") {
            auto asked = onCutReply(result, params.maxOutputTokens.value_or(0));
            if (!asked)
                return std::nullopt; // the model was told; the next step asks it again
            if (std::holds_alternative<TaskOutcome>(*asked))
                return std::get<TaskOutcome>(*asked);
            params.maxOutputTokens = std::get<std::uint64_t>(*asked);
            continue;
        }
        m_cutsInARow = 0;
        addMessage({"assistant", result.content, result.toolCalls, std::nullopt, std::move(result.reasoning)});
        if (result.toolCalls.empty())
            onReplyWithoutCalls(result.content);
        else
            m_nudgesInARow = 0;
        // Not saved yet: the state written before the first call (or at the end of the step) holds this
        // reply. A kill before then asks the model again.
        m_state.pendingCalls = std::move(result.toolCalls);
        return std::nullopt;
    }
}

void TaskRun::compactContext() {
    const std::uint64_t limit = m_config.contextWindowLimit;
    const bool byModel = m_config.compactionSummary == CompactionSummary::Model;
    auto compacted = compactHistory(m_state.messages, {limit, m_config.keepRecentMessages, m_config.compressHistory});
    if (compacted.cutCount && byModel) {
        // The model's summary may be longer than the mechanical one: cut so that it has room.
        compacted = compactHistory(m_state.messages, {limit - std::min(limit, handoffSummaryLimit(limit)),
                                                      m_config.keepRecentMessages, m_config.compressHistory});
    }
    std::string replacedBy;
    if (compacted.cutCount) {
        replacedBy = "the mechanical summary";
        if (byModel) {
            const auto handoff = writeHandoffSummary(compacted.cutMessages);
            if (handoff.summary) {
                auto& summary = compacted.messages[compacted.summaryIndex];
                const auto others = compacted.estimatedTokensAfter - estimateTokens(summary);
                summary = handoffSummaryMessage(compacted.summarisedMessages, *handoff.summary);
                compacted.estimatedTokensAfter = others + estimateTokens(summary);
                replacedBy = "a handoff summary the model wrote (handoff prompt " + handoffPromptVersion() + ")";
            } else {
                replacedBy += " (the model's handoff summary was not used: " + handoff.problem + ")";
            }
        }
        m_events.log(LogLevel::Info, "compacted the conversation: " + std::to_string(compacted.cutCount) +
                                         " messages summarised, about " +
                                         std::to_string(compacted.estimatedTokensBefore) + " -> " +
                                         std::to_string(compacted.estimatedTokensAfter) + " tokens");
    }
    if (compacted.droppedOutputs || compacted.cutCount) {
        std::string detail = "compacted the conversation from about " +
                             std::to_string(compacted.estimatedTokensBefore) + " to " +
                             std::to_string(compacted.estimatedTokensAfter) + " estimated tokens: " +
                             std::to_string(compacted.droppedOutputs) + " old tool outputs dropped";
        if (compacted.cutCount)
            detail += ", " + std::to_string(compacted.cutCount) + " messages replaced by " + replacedBy;
        m_events.emit(guardEvent("context_window_limit", protocol::GuardAction::Warn, detail));
    }
    m_state.messages = std::move(compacted.messages);
    m_contextTokens = compacted.estimatedTokensAfter;
}

protocol::LlmChatParams TaskRun::chatParams(std::vector<protocol::ChatMessage> messages,
                                            std::vector<protocol::ToolSpec> tools) const {
    protocol::LlmChatParams params{std::move(messages), std::move(tools)};
    if (m_config.maxOutputTokens)
        params.maxOutputTokens = m_config.maxOutputTokens;
    if (m_config.reasoningEffort != ReasoningEffort::Default)
        params.reasoningEffort = std::string(toString(m_config.reasoningEffort));
    if (m_seat.isSubAgent())
        params.agent = m_seat.id;
    return params;
}

void TaskRun::countModelCall(const protocol::TokenUsage& usage) {
    m_state.counters.modelCalls++;
    m_state.counters.tokensIn += usage.input;
    m_state.counters.tokensOut += usage.output;
    m_state.counters.tokensReasoning += usage.reasoning;
    m_team->budget().add(0, usage.input + usage.output);
}

HandoffVerdict TaskRun::writeHandoffSummary(const std::vector<protocol::ChatMessage>& cut) {
    // One call without tools, through the same model as every step, counted like one.
    const protocol::LlmChatParams params =
        chatParams(handoffRequest(m_state.prompt, cut, m_config.contextWindowLimit), {});
    auto reply = m_model.chat(params, m_stepDeadline, m_cancellation);
    if (!reply)
        return {std::nullopt, "the model call failed: " + reply.error().message};
    countModelCall(reply->tokenUsage);
    return checkHandoffSummary(*reply, m_config.contextWindowLimit);
}

std::optional<std::variant<std::uint64_t, TaskOutcome>> TaskRun::onCutReply(protocol::LlmChatResult& result,
                                                                            std::uint64_t askedLimit) {
    ++m_cutsInARow;
    const std::uint64_t used = result.tokenUsage.output;
    const std::string what = describeCutReply(used, result.cutToolCalls);
    const CutReplyPlan plan = planForCutReply(used, askedLimit, m_cutsInARow);
    switch (plan.action) {
    case CutReplyPlan::Action::AskAgain:
        m_events.emit(guardEvent("max_output_tokens", protocol::GuardAction::Warn,
                                 what + "; asking again with room for " + std::to_string(plan.room) + " tokens"));
        return plan.room;
    case CutReplyPlan::Action::Stop: {
        const std::string detail = what + ", " + std::to_string(m_cutsInARow) +
                                   " replies in a row; raise max_output_tokens or make the task smaller";
        m_events.emit(guardEvent("max_output_tokens", protocol::GuardAction::Stop, detail));
        return finish(ExitReason::Guard, detail);
    }
    case CutReplyPlan::Action::TellModel:
        break;
    }
    m_events.emit(guardEvent("max_output_tokens", protocol::GuardAction::Warn, what + "; the model is told to work in smaller pieces"));
    // The text it wrote stays in the conversation (it may have reasoned there); the calls do not.
    if (!result.content.empty())
        addMessage({"assistant", result.content, {}, std::nullopt, std::move(result.reasoning)});
    addMessage({"user", cutReplyNotice(used, result.cutToolCalls), {}, std::nullopt, {}});
    return std::nullopt;
}

void TaskRun::onReplyWithoutCalls(const std::string& content) {
    // Someone reads it: the turn is theirs. An empty reply says nothing to them, so it is nudged instead.
    const bool blank = content.find_first_not_of(" \t\r\n") == std::string::npos;
    if (attended() && !blank) {
        m_ending = TaskOutcome{ExitReason::Waiting, content};
        return;
    }
    if (m_nudgesInARow >= m_config.maxNudges) {
        m_ending = TaskOutcome{ExitReason::Finished, content}; // the model's last word
        return;
    }
    ++m_nudgesInARow;
    m_events.emit(guardEvent("max_nudges", protocol::GuardAction::Warn,
                             "the model replied without a tool call; told to go on or call finish (" +
                                 std::to_string(m_nudgesInARow) + " of " + std::to_string(m_config.maxNudges) + ")"));
    addMessage({"user", attended() ? kEmptyReplyNudge : kNudge, {}, std::nullopt, {}});
}

std::optional<TaskOutcome> TaskRun::refuseBadCall(const protocol::ToolCall& call, const std::string& problem) {
    m_events.emit(protocol::ToolCallData{call.id, call.arguments}, {call.name, std::nullopt, std::nullopt});
    ++m_badCallsInARow;
    if (m_badCallsInARow >= m_config.maxBadCalls) {
        const std::string detail = std::to_string(m_badCallsInARow) +
                                   " tool calls in a row the model got wrong (max_bad_calls); the last: " + problem;
        recordToolResult(call, "Not run: " + problem, resultWith(std::nullopt));
        m_events.emit(guardEvent("max_bad_calls", protocol::GuardAction::Stop, detail));
        m_state.pendingCalls.clear();
        return finish(ExitReason::Guard, detail);
    }
    recordToolResult(call, "Not run: " + problem, resultWith(1));
    return std::nullopt;
}

std::optional<TaskOutcome> TaskRun::runPendingCalls() {
    // However the calls end, none read ahead outlives them (the destructor waits for those running).
    struct ReadAheadEnd {
        TaskRun& run;
        ~ReadAheadEnd() {
            run.m_readAhead.reset();
            run.m_readAheadKeys.clear();
        }
    } readAheadEnd{*this};
    while (!m_state.pendingCalls.empty()) {
        if (m_cancellation.stopRequested())
            return std::nullopt; // the checkpoint keeps the calls not started; stopIfRequested ends the run
        if (!m_readAhead || !m_readAhead->has(m_state.pendingCalls.front().id))
            startReadAhead();
        const auto call = m_state.pendingCalls.front();
        m_state.pendingCalls.erase(m_state.pendingCalls.begin());
        if (auto problem = checkToolCall(call, offeredTools())) {
            if (auto end = refuseBadCall(call, *problem))
                return end;
            continue;
        }
        m_badCallsInARow = 0;
        if (call.name == "finish") {
            const bool hasSummary = call.arguments.is_object() && call.arguments.contains("summary") &&
                                    call.arguments["summary"].is_string();
            m_ending = TaskOutcome{ExitReason::Finished,
                                   hasSummary ? call.arguments["summary"].get<std::string>() : std::string()};
            m_state.counters.toolCalls["finish"]++;
            m_events.emit(protocol::ToolCallData{call.id, call.arguments},
                          {"finish", std::nullopt, std::nullopt});
            recordToolResult(call, "The task is finished.", resultWith(0));
            if (!m_state.pendingCalls.empty())
                m_events.log(LogLevel::Warn, "calls after finish were not run");
            m_state.pendingCalls.clear();
            return std::nullopt;
        }
        if (auto end = runCall(call))
            return end;
    }
    return std::nullopt;
}

Tool* TaskRun::readAheadTool(const protocol::ToolCall& call) {
    if (call.name == "finish" || checkToolCall(call, offeredTools()))
        return nullptr;
    if (std::find(m_config.approvalTools.begin(), m_config.approvalTools.end(), call.name) !=
        m_config.approvalTools.end())
        return nullptr;
    std::string unavailable;
    Tool* tool = m_tools->find(call.name, unavailable);
    return tool && tool->readOnly() && tool->concurrencySafe() ? tool : nullptr;
}

void TaskRun::startReadAhead() {
    m_readAhead.reset();
    m_readAheadKeys.clear();
    std::vector<ConcurrentCalls::Call> calls;
    std::map<std::string, std::string> keys;
    for (const auto& call : m_state.pendingCalls) {
        Tool* tool = readAheadTool(call);
        if (!tool)
            break; // a call with effects, or one the loop answers itself, keeps its place in the order
        const auto sameId = [&](const ConcurrentCalls::Call& ahead) { return ahead.id == call.id; };
        if (keys.contains(call.id) || std::any_of(calls.begin(), calls.end(), sameId))
            break; // the id names what is handed back: a model that repeats one gets those calls in turn
        ConcurrentCalls::Call ahead{call.id, tool, call.arguments, toolEnv(call.id)};
        if (m_config.executionCache) {
            // The key of what the call reads, taken before it reads: the outcome is stored under it.
            if (auto content = tool->contentKey(call.arguments, ahead.env)) {
                auto key = cacheKey(call.name, call.arguments, *content);
                if (m_cache.contains(key))
                    continue; // the cache answers it at its turn
                keys[call.id] = std::move(key);
            }
        }
        calls.push_back(std::move(ahead));
    }
    if (calls.size() < 2)
        return; // nothing to run beside
    m_readAheadKeys = std::move(keys);
    m_readAhead = std::make_unique<ConcurrentCalls>(std::move(calls));
}

std::optional<TaskOutcome> TaskRun::runCall(const protocol::ToolCall& call) {
    m_events.emit(protocol::ToolCallData{call.id, call.arguments}, {call.name, std::nullopt, std::nullopt});
    m_state.counters.toolCalls[call.name]++;
    std::string warning;
    if (m_config.loopDetection) {
        const auto verdict = m_loopDetector.observe(call);
        auto loopState = m_loopDetector.state();
        m_state.recentCallKeys = std::move(loopState.recentKeys);
        m_state.loopWarned = loopState.warned;
        if (verdict == LoopVerdict::Stop) {
            const std::string detail = "the model repeated the call " + call.name + " " + call.arguments.dump() +
                                       " after being warned (loop_detection)";
            m_events.emit(guardEvent("loop_detection", protocol::GuardAction::Stop, detail));
            recordToolResult(call, "Not run: " + detail, resultWith(std::nullopt));
            return finish(ExitReason::Guard, detail);
        }
        if (verdict == LoopVerdict::Warn) {
            warning = "\n[warning: this exact call has now been made " + std::to_string(m_config.loopThreshold) +
                      " times in a row and its result will not change. Do something different or finish; "
                      "one more repeat stops the task.]";
            m_events.emit(guardEvent("loop_detection", protocol::GuardAction::Warn,
                                     "repeated call " + call.name + " " + call.arguments.dump()));
        }
    }

    std::string unavailable;
    Tool* tool = m_tools->find(call.name, unavailable);
    if (!tool) {
        recordToolResult(call, unavailable + warning, resultWith(1));
        return std::nullopt;
    }

    if (std::find(m_config.approvalTools.begin(), m_config.approvalTools.end(), call.name) !=
        m_config.approvalTools.end()) {
        protocol::ApprovalRequestParams request{call.name, call.arguments, call.name + " is in approval_tools",
                                                call.id};
        m_events.emit(protocol::ApprovalRequestedData{call.id, call.arguments, request.reason},
                      {call.name, std::nullopt, std::nullopt});
        protocol::ApprovalResult decision{false, "no approver: the call was denied"};
        if (m_approver) {
            auto answer = m_approver(request, &m_cancellation);
            decision = answer ? *answer
                              : protocol::ApprovalResult{false, "approval failed: " + answer.error().message};
        }
        m_events.emit(protocol::ApprovalResolvedData{call.id, decision.approved, decision.note, std::nullopt},
                      {call.name, std::nullopt, std::nullopt});
        if (!decision.approved) {
            if (m_cancellation.stopRequested()) {
                // The wait was cut short, not answered: the call stays first in line for the resumed run.
                m_state.pendingCalls.insert(m_state.pendingCalls.begin(), call);
                return stopIfRequested();
            }
            recordToolResult(call,
                             "Denied: the user did not approve this call." +
                                 (decision.note ? " Their note: " + *decision.note : std::string()) + warning,
                             deniedResult());
            return std::nullopt;
        }
    }

    std::vector<std::string> claimed;
    if (auto conflict = claimPaths(call, claimed)) {
        recordToolResult(call, *conflict + warning, resultWith(1));
        return std::nullopt;
    }

    // Written before the call starts: if the agent is killed now, the resumed run knows this call was
    // interrupted instead of silently running it again.
    m_state.runningCall = call;
    saveCheckpoint(false);

    const auto started = Clock::now();
    bool cached = false;
    std::optional<std::uint64_t> ranAheadMs;
    ToolOutcome outcome = executeTool(*tool, call, cached, ranAheadMs);
    const std::uint64_t durationMs = ranAheadMs.value_or(millisSince(started));
    m_state.counters.bytesWritten += outcome.bytesWritten;
    protocol::ToolResultData data = resultWith(outcome.exitCode);
    data.truncated = outcome.truncated;
    data.cached = cached;
    data.timedOut = outcome.timedOut;
    if (outcome.timedOut && Clock::now() >= m_stepDeadline)
        m_events.emit(guardEvent("timeout_per_step_sec", protocol::GuardAction::Warn,
                                 call.name + " was stopped at the step's deadline of " +
                                     std::to_string(m_config.timeoutPerStepSec) + " s"));
    if (outcome.cancelled) {
        // Stopped by cancel or pause: like a kill, the model hears it was interrupted.
        m_state.counters.interruptedCalls++;
        data.interrupted = true;
        recordToolResult(call,
                         std::string(kInterruptedResult) +
                             " The task was stopped while this call ran; it was killed and not run again. Its "
                             "effects, if any, are unknown.",
                         std::move(data), durationMs);
    } else {
        // The model reads the output within its token budget; tool_output events carry all a process printed.
        FittedOutput fitted = fitToBudget(outcome.output, m_config.toolOutputLimitTokens, narrowingHint(call.name));
        data.truncated = data.truncated || fitted.cut;
        recordToolResult(call, std::move(fitted.text) + warning, std::move(data), durationMs);
    }
    m_state.runningCall.reset();
    releaseCallClaims(claimed);
    return std::nullopt;
}

std::optional<std::string> TaskRun::claimPaths(const protocol::ToolCall& call,
                                               std::vector<std::string>& claimed) {
    for (const std::string& path : pathsWrittenBy(call)) {
        auto resolved = resolveInWorkspace(m_paths.workspace, path);
        if (!resolved)
            continue; // the tool says what is wrong
        const std::string relative = relativeToWorkspace(m_paths.workspace, *resolved);
        const auto holder = m_team->claims().claim(m_seat.id, relative);
        if (!holder) {
            claimed.push_back(relative);
            continue;
        }
        releaseCallClaims(claimed); // all of the call's paths or none
        claimed.clear();
        return "Not run: conflict: " + relative + " is being written by " +
               (holder->empty() ? std::string("the task's own agent") : *holder) +
               ", another agent of this task working in the same workspace, until it ends. Leave the file to "
               "it, or wait for it and try again.";
    }
    return std::nullopt;
}

void TaskRun::releaseCallClaims(const std::vector<std::string>& claimed) {
    if (m_seat.isSubAgent())
        return; // a sub-agent holds its paths until it ends
    for (const std::string& path : claimed)
        m_team->claims().release(m_seat.id, path); // the coordinator only while it writes
}

ToolEnv TaskRun::toolEnv(const std::string& callId) const {
    ToolEnv env;
    env.workspace = m_paths.workspace;
    env.deadline = m_stepDeadline;
    env.outputLimitBytes = m_config.toolOutputLimitBytes;
    env.shellTimeoutSec = m_config.shellTimeoutSec;
    env.cancellation = &m_cancellation;
    env.callId = callId;
    return env;
}

ToolOutcome TaskRun::executeTool(Tool& tool, const protocol::ToolCall& call, bool& cached,
                                  std::optional<std::uint64_t>& ranAheadMs) {
    ToolEnv env = toolEnv(call.id);
    env.onOutput = [&](std::string_view stream, std::string_view text) {
        const auto which =
            stream == "stderr" ? protocol::OutputStream::Stderr : protocol::OutputStream::Stdout;
        m_events.emit(protocol::ToolOutputData{call.id, which, std::string(text)},
                      {call.name, std::nullopt, std::nullopt});
    };
    env.onFileChanged = [&](const std::string& path, FileChange change, const FileDiff* diff) {
        m_filesChanged.insert(path);
        m_events.emit(fileChangedData(path, change, diff), {call.name, std::nullopt, std::nullopt});
    };
    env.onPlanUpdated = [&](const protocol::PlanUpdatedData& plan) {
        m_events.emit(plan, {call.name, std::nullopt, std::nullopt});
    };

    if (m_readAhead && m_readAhead->has(call.id)) {
        // Run ahead beside the others of its run: what it reported is told now, in its turn.
        auto taken = m_readAhead->take(call.id, env);
        if (const auto key = m_readAheadKeys.find(call.id); key != m_readAheadKeys.end())
            m_cache.store(key->second, taken.outcome);
        ranAheadMs = taken.ranMs;
        return std::move(taken.outcome);
    }

    std::optional<std::string> key;
    if (m_config.executionCache && tool.readOnly()) {
        if (auto content = tool.contentKey(call.arguments, env)) {
            key = cacheKey(call.name, call.arguments, *content);
            if (const ToolOutcome* hit = m_cache.find(*key)) {
                m_events.log(LogLevel::Debug, call.name + " " + call.arguments.dump() +
                                                  ": unchanged since an earlier call, served from the cache");
                cached = true;
                m_state.counters.cacheHits++;
                return *hit;
            }
        }
    }

    // Only a process can change files behind the tool's back; the file tools report their own changes.
    const bool watchFiles = call.name == "shell";
    std::optional<WorkspaceSnapshot> before;
    if (watchFiles)
        before = takeSnapshot(m_paths.workspace);
    ToolOutcome outcome = tool.run(call.arguments, env);
    if (before) {
        for (const auto& [path, change] : diffSnapshots(*before, takeSnapshot(m_paths.workspace)))
            env.onFileChanged(path, change, nullptr); // no content before it to diff against
    }
    if (key)
        m_cache.store(*key, outcome);
    return outcome;
}

std::optional<TaskOutcome> TaskRun::endStep() {
    // A task that reached its end (finish, or a reply to the user) ends so, whatever stop request came in
    // meanwhile.
    if (m_cancellation.stopRequested() && !m_ending)
        return stopIfRequested();
    fireHook(hook::kOnStep);
    if (m_memory) {
        if (auto flushed = m_memory->flushIfDue(); !flushed)
            m_events.error("saving memories failed: " + flushed.error().message, false);
    }
    m_events.emit(protocol::ResourceSampleData{currentRssBytes().value_or(0), cpuMillisSoFar()});
    if (m_ending)
        return finish(m_ending->reason, m_ending->summary); // which writes the last checkpoint
    saveCheckpoint(true);
    return std::nullopt;
}

void TaskRun::recordToolResult(const protocol::ToolCall& call, std::string content,
                               protocol::ToolResultData data, std::optional<std::uint64_t> durationMs) {
    data.id = call.id;
    data.output = content;
    m_events.emit(data, {call.name, std::nullopt, durationMs});
    addMessage({"tool", std::move(content), {}, call.id, {}});
}

void TaskRun::addMessage(protocol::ChatMessage message) {
    if (m_contextTokens)
        *m_contextTokens += estimateTokens(message);
    m_state.messages.push_back(std::move(message));
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
    m_state.nextSeq = m_events.nextSeq() + (durable ? 1 : 0);
    if (m_seat.isSubAgent()) {
        // The model's state (a script's position) is the task's, kept by the task's own agent.
        m_state.extra["files_changed"] = filesChanged();
        m_state.extra["claims"] = m_team->claims().heldBy(m_seat.id);
    } else {
        m_state.extra["model"] = m_model.saveState();
    }
    auto saved = m_store->save(m_state, durable);
    if (!saved) {
        m_events.error("writing the checkpoint failed: " + saved.error().message, false);
        return;
    }
    if (!durable)
        m_events.log(LogLevel::Debug, "state written before the next action (" + std::to_string(*saved) + " bytes)");
    if (durable)
        m_events.emit(protocol::CheckpointData{m_store->path().string(), *saved});
}

TaskOutcome TaskRun::finish(ExitReason reason, std::string summary) {
    // Sub-agents end before the task does: paused with it (resumable, as a task waiting for the user's
    // reply is), otherwise stopped.
    const bool goesOn = reason == ExitReason::Paused || reason == ExitReason::Waiting;
    if (m_ownTeam)
        m_ownTeam->stopAll(goesOn ? StopRequest::Pause : StopRequest::Cancel);
    if (m_memory) {
        if (auto flushed = m_memory->flush(); !flushed)
            m_events.error("saving memories failed: " + flushed.error().message, false);
    }
    fireHook(hook::kOnTaskComplete, std::string(toString(reason)));
    if (reason != ExitReason::Paused)
        m_state.extra["finished"] = {{"reason", toString(reason)}, {"summary", summary}};
    saveCheckpoint(true);
    if (m_seat.isSubAgent()) {
        m_events.emit(protocol::AgentFinishedData{reason, summary, filesChanged()});
        return {reason, std::move(summary)};
    }
    if (m_paths.output) {
        const auto subagents = m_team->totals();
        auto report = resourceReportJson({m_state.counters, std::string(toString(reason)), m_tools->loaded(),
                                          subagents.started, subagents.counters});
        if (auto written = writeResourceReport(*m_paths.output, report); !written)
            m_events.error(written.error().message, false);
    }
    m_events.emit(protocol::TaskFinishedData{reason, summary});
    return {reason, std::move(summary)};
}

TaskOutcome TaskRun::refuse(const std::string& message) {
    m_events.error(message, true);
    if (m_seat.isSubAgent()) {
        m_events.emit(protocol::AgentFinishedData{ExitReason::Failed, message, {}});
        return {ExitReason::Failed, message};
    }
    m_events.emit(protocol::TaskFinishedData{ExitReason::Failed, message});
    return {ExitReason::Failed, message};
}

void TaskRun::fireHook(const char* name, std::string detail) {
    if (m_seat.isSubAgent())
        return; // the hooks are the task's life, not each agent's
    m_hooks.fire({name, m_state.taskId, m_state.step, std::move(detail)}, m_paths.workspace, m_events);
}

} // namespace warren::agent
