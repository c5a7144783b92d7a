#include "agent_core/loop/TaskRun.h"

#include "agent_core/context/Budget.h"
#include "agent_core/context/Compaction.h"
#include "agent_core/context/CutReply.h"
#include "agent_core/context/MemoryGuard.h"
#include "agent_core/context/TokenEstimate.h"
#include "agent_core/loop/BuiltInTools.h"
#include "agent_core/loop/ResourceReport.h"
#include "agent_core/memory/MemoryBackendFactory.h"
#include "agent_core/prompt/FamilyTools.h"
#include "agent_core/prompt/HandoffPrompt.h"
#include "agent_core/prompt/ProjectInstructions.h"
#include "agent_core/team/AgentRoles.h"

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

protocol::ToolResultData interruptedResult() {
    auto data = toolResultWith(std::nullopt);
    data.interrupted = true;
    return data;
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

} // namespace

TaskRun::TaskRun(const RunContext& context) : m_context(context), m_runStart(Clock::now()) {}

TaskRun::TaskRun(const RunContext& context, AgentTeam& team, AgentSeat seat)
    : m_context(context), m_team(&team), m_seat(std::move(seat)), m_rules(seatRules(m_seat)),
      m_runStart(Clock::now()) {}

TaskRun::~TaskRun() = default;

TaskOutcome TaskRun::run(const std::string& taskId, const std::string& prompt,
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
    auto tools = m_rules.usesMemory ? builtInTools(m_memory.get(), m_memoryProblem)
                                    : builtInTools(nullptr, "sub-agents do not use the task's memory");
    for (auto& entry : m_team->toolsFor(m_seat, config.tools)) {
        enabled.push_back(entry.spec.name);
        tools.push_back(std::move(entry));
    }
    m_tools = std::make_unique<ToolRegistry>(std::move(tools), enabled, config.lazyTools);
    CallRunner::Host host{[this] { saveCheckpoint(false); },
                          [this](const protocol::ToolCall& call, std::string content,
                                 protocol::ToolResultData data, std::optional<std::uint64_t> durationMs) {
                              recordToolResult(call, std::move(content), std::move(data), durationMs);
                          }};
    m_calls = std::make_unique<CallRunner>(m_context, m_seat, m_state, *m_tools, m_team->claims(),
                                           m_stepDeadline, m_filesChanged, std::move(host));
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
        saveCheckpoint(true);
        return;
    }
    m_context.events.emit(
        protocol::TaskStartedData{taskId, prompt, m_state.presets, configToJson(m_context.config)});
    startConversation(prompt);
    if (!m_memoryProblem.empty())
        m_context.events.log(LogLevel::Warn, "memory tools unavailable: " + m_memoryProblem);
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
    facts.attended = attended();
    const SystemPrompt system = renderSystemPrompt(m_context.config, facts, names);
    m_context.events.log(LogLevel::Info, "system prompt version " + system.version + " for the " +
                                             std::string(toString(system.family)) + " model family, about " +
                                             std::to_string(system.text.size() / kBytesPerToken) + " tokens");
    m_state.messages = {{"system", system.text, {}, std::nullopt, {}}};
    const auto files = findProjectInstructions(m_context.paths.workspace);
    for (const auto& file : files)
        m_context.events.emit(
            protocol::ProjectInstructionsData{file.path, file.text, file.bytes, file.truncated});
    if (!files.empty())
        m_state.messages.push_back({"user", instructionsMessage(files), {}, std::nullopt, {}});
    m_state.messages.push_back({"user", prompt, {}, std::nullopt, {}});
    m_contextTokens.reset();
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
    if (reply)
        addReply(*reply);
    else
        saveCheckpoint(true);
}

void TaskRun::addReply(const std::string& reply) {
    // An assistant message's calls are each answered before anything else is said (every provider's rule).
    for (const auto& call : m_state.pendingCalls)
        recordToolResult(call,
                         "Not run: the task stopped before this call ran, and the user replied instead.",
                         toolResultWith(std::nullopt));
    m_state.pendingCalls.clear();
    addMessage({"user", reply, {}, std::nullopt, {}});
    m_nudgesInARow = 0;
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
    auto stop = [&](const char* guard, std::string detail) {
        m_context.events.emit(protocol::GuardData{guard, "stop", detail});
        return finish(ExitReason::Guard, detail);
    };
    // One budget for the whole task: every agent's steps and tokens count.
    const auto steps = m_team->budget().steps();
    if (stepsVerdict(steps + 1, m_context.config.maxSteps) == BudgetVerdict::Exhausted)
        return stop("max_steps", "stopped after " + std::to_string(steps) + " steps (max_steps)");
    const auto used = m_team->budget().tokens();
    if (tokenBudgetVerdict(used, m_context.config.tokenBudget) == BudgetVerdict::Exhausted)
        return stop("token_budget", "used " + std::to_string(used) + " tokens of a budget of " +
                                        std::to_string(m_context.config.tokenBudget) + " (token_budget)");
    if (m_context.config.memoryThresholdMb || m_context.config.maxMemoryMb) {
        const auto rss = currentRssBytes().value_or(0);
        // Shed once per rise: only a fall back under the threshold re-arms it.
        const auto rearmBelow = (m_context.config.memoryThresholdMb ? m_context.config.memoryThresholdMb
                                                                    : m_context.config.maxMemoryMb)
                                << 20;
        if (rss <= rearmBelow)
            m_memoryShed = false;
        auto verdict = memoryVerdict(rss, m_context.config.memoryThresholdMb, m_context.config.maxMemoryMb,
                                     m_memoryShed);
        if (verdict == MemoryVerdict::Shed) {
            shedMemory(rss);
            verdict = memoryVerdict(currentRssBytes().value_or(0), m_context.config.memoryThresholdMb,
                                    m_context.config.maxMemoryMb, m_memoryShed);
        }
        if (verdict == MemoryVerdict::Stop)
            return stop("max_memory_mb",
                        "resident memory " + std::to_string(rss >> 20) + " MiB stays above max_memory_mb " +
                            std::to_string(m_context.config.maxMemoryMb) + " after shedding");
    }
    return std::nullopt;
}

void TaskRun::shedMemory(std::uint64_t rssBytes) {
    const auto before = m_state.messages.size();
    m_calls->clearCache();
    if (m_memory)
        m_memory->shedCaches();
    m_state.messages = shedHistory(m_state.messages);
    m_contextTokens.reset();
    malloc_trim(0);
    m_memoryShed = true;
    const std::string limit =
        m_context.config.memoryThresholdMb
            ? "memory_threshold_mb " + std::to_string(m_context.config.memoryThresholdMb)
            : "max_memory_mb " + std::to_string(m_context.config.maxMemoryMb);
    const std::string detail = "resident memory " + std::to_string(rssBytes >> 20) + " MiB above " + limit +
                               ": cleared the tool cache, cut history from " + std::to_string(before) + " to " +
                               std::to_string(m_state.messages.size()) + " messages";
    m_context.events.emit(protocol::GuardData{"memory_threshold_mb", "warn", detail});
    fireHook(hook::kOnLowMemory, std::to_string(rssBytes));
}

void TaskRun::startStep() {
    m_state.step++;
    m_state.counters.steps++;
    m_team->budget().add(1, 0);
    m_context.events.setStep(m_state.step);
    if (m_rules.readsInbox) {
        for (auto& message : m_team->takeMessages(m_seat.id))
            addMessage({"user", "A message from the agent that started you:\n" + message, {}, std::nullopt, {}});
    }
    m_context.events.emit(protocol::StepStartedData{});
    m_stepDeadline = m_context.config.timeoutPerStepSec
                         ? Clock::now() + std::chrono::seconds(m_context.config.timeoutPerStepSec)
                         : Clock::time_point::max();

    // The estimate is kept up to date as messages are added, so a step does not walk the whole conversation
    // unless it has to be compacted (or compress_history shortens old results every step).
    if (!m_contextTokens)
        m_contextTokens = estimateTokens(m_state.messages);
    if (m_context.config.compressHistory || *m_contextTokens > m_context.config.contextWindowLimit)
        compactContext();
}

std::optional<TaskOutcome> TaskRun::askModel() {
    protocol::LlmChatParams params = chatParams(m_state.messages, offeredTools(*m_tools));
    for (;;) {
        const auto started = Clock::now();
        auto reply = m_context.model.chat(params, m_stepDeadline, m_context.cancellation);
        if (!reply) {
            if (auto stopped = stopIfRequested())
                return stopped;
            m_context.events.error("the model call failed: " + reply.error().message, true);
            fireHook(hook::kOnError, reply.error().message);
            return finish(ExitReason::Failed, reply.error().message);
        }
        auto& result = *reply;
        countModelCall(result.tokenUsage);
        if (m_rules.namesItself) {
            for (std::size_t i = 0; i < result.toolCalls.size(); ++i)
                result.toolCalls[i].id =
                    subAgentCallId(m_seat.id, m_state.counters.modelCalls, i, result.toolCalls[i].id);
        }
        m_context.events.emit(protocol::ModelResponseData{result.content, result.toolCalls,
                                                          result.finishReason,
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
        takeReply(result);
        return std::nullopt;
    }
}

void TaskRun::takeReply(protocol::LlmChatResult& result) {
    m_cutsInARow = 0;
    addMessage({"assistant", result.content, result.toolCalls, std::nullopt, std::move(result.reasoning)});
    if (result.toolCalls.empty())
        onReplyWithoutCalls(result.content);
    else
        m_nudgesInARow = 0;
    // Not saved yet: the state written before the first call (or at the end of the step) holds this
    // reply. A kill before then asks the model again.
    m_state.pendingCalls = std::move(result.toolCalls);
}

void TaskRun::compactContext() {
    const std::uint64_t limit = m_context.config.contextWindowLimit;
    const bool byModel = m_context.config.compactionSummary == CompactionSummary::Model;
    auto compacted = compactHistory(
        m_state.messages, {limit, m_context.config.keepRecentMessages, m_context.config.compressHistory});
    if (compacted.cutCount && byModel) {
        // The model's summary may be longer than the mechanical one: cut so that it has room.
        compacted = compactHistory(m_state.messages,
                                   {limit - std::min(limit, handoffSummaryLimit(limit)),
                                    m_context.config.keepRecentMessages, m_context.config.compressHistory});
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
        m_context.events.log(LogLevel::Info,
                             "compacted the conversation: " + std::to_string(compacted.cutCount) +
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
        m_context.events.emit(protocol::GuardData{"context_window_limit", "warn", detail});
    }
    m_state.messages = std::move(compacted.messages);
    m_contextTokens = compacted.estimatedTokensAfter;
}

protocol::LlmChatParams TaskRun::chatParams(std::vector<protocol::ChatMessage> messages,
                                            std::vector<protocol::ToolSpec> tools) const {
    protocol::LlmChatParams params{std::move(messages), std::move(tools)};
    if (m_context.config.maxOutputTokens)
        params.maxOutputTokens = m_context.config.maxOutputTokens;
    if (m_context.config.reasoningEffort != ReasoningEffort::Default)
        params.reasoningEffort = std::string(toString(m_context.config.reasoningEffort));
    if (m_rules.namesItself)
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
        chatParams(handoffRequest(m_state.prompt, cut, m_context.config.contextWindowLimit), {});
    auto reply = m_context.model.chat(params, m_stepDeadline, m_context.cancellation);
    if (!reply)
        return {std::nullopt, "the model call failed: " + reply.error().message};
    countModelCall(reply->tokenUsage);
    return checkHandoffSummary(*reply, m_context.config.contextWindowLimit);
}

std::optional<std::variant<std::uint64_t, TaskOutcome>> TaskRun::onCutReply(protocol::LlmChatResult& result,
                                                                            std::uint64_t askedLimit) {
    ++m_cutsInARow;
    const std::uint64_t used = result.tokenUsage.output;
    const std::string what = describeCutReply(used, result.cutToolCalls);
    const CutReplyPlan plan = planForCutReply(used, askedLimit, m_cutsInARow);
    switch (plan.action) {
    case CutReplyPlan::Action::AskAgain:
        m_context.events.emit(protocol::GuardData{"max_output_tokens", "warn",
                                                  what + "; asking again with room for " +
                                                      std::to_string(plan.room) + " tokens"});
        return plan.room;
    case CutReplyPlan::Action::Stop: {
        const std::string detail = what + ", " + std::to_string(m_cutsInARow) +
                                   " replies in a row; raise max_output_tokens or make the task smaller";
        m_context.events.emit(protocol::GuardData{"max_output_tokens", "stop", detail});
        return finish(ExitReason::Guard, detail);
    }
    case CutReplyPlan::Action::TellModel:
        break;
    }
    m_context.events.emit(protocol::GuardData{"max_output_tokens", "warn",
                                              what + "; the model is told to work in smaller pieces"});
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
    if (m_nudgesInARow >= m_context.config.maxNudges) {
        m_ending = TaskOutcome{ExitReason::Finished, content}; // the model's last word
        return;
    }
    ++m_nudgesInARow;
    m_context.events.emit(protocol::GuardData{
        "max_nudges", "warn",
        "the model replied without a tool call; told to go on or call finish (" +
            std::to_string(m_nudgesInARow) + " of " + std::to_string(m_context.config.maxNudges) + ")"});
    addMessage({"user", attended() ? kEmptyReplyNudge : kNudge, {}, std::nullopt, {}});
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
    m_state.nextSeq = m_context.events.nextSeq() + (durable ? 1 : 0);
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
            protocol::AgentFinishedData{std::string(toString(reason)), summary, filesChanged()});
        return {reason, std::move(summary)};
    }
    if (m_context.paths.output) {
        const auto subagents = m_team->totals();
        auto report = resourceReportJson({m_state.counters, std::string(toString(reason)), m_tools->loaded(),
                                          subagents.started, subagents.counters});
        if (auto written = writeResourceReport(*m_context.paths.output, report); !written)
            m_context.events.error(written.error().message, false);
    }
    m_context.events.emit(protocol::TaskFinishedData{std::string(toString(reason)), summary});
    return {reason, std::move(summary)};
}

TaskOutcome TaskRun::refuse(const std::string& message) {
    m_context.events.error(message, true);
    if (!m_rules.announcesTask) {
        m_context.events.emit(protocol::AgentFinishedData{"failed", message, {}});
        return {ExitReason::Failed, message};
    }
    m_context.events.emit(protocol::TaskFinishedData{"failed", message});
    return {ExitReason::Failed, message};
}

void TaskRun::fireHook(const char* name, std::string detail) {
    if (!m_rules.firesHooks)
        return;
    m_context.hooks.fire({name, m_state.taskId, m_state.step, std::move(detail)}, m_context.paths.workspace,
                         m_context.events);
}

} // namespace warren::agent
