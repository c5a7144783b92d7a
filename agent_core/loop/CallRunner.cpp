#include "agent_core/loop/CallRunner.h"

#include "agent_core/context/OutputBudget.h"
#include "agent_core/llm/Llm.h"
#include "agent_core/loop/CallCheck.h"
#include "agent_core/loop/ResourceReport.h"
#include "agent_core/mcp/McpServers.h"
#include "agent_core/tools/WorkspacePath.h"
#include "agent_core/tools/WorkspaceSnapshot.h"

#include <algorithm>

namespace warren::agent {

namespace {

using Clock = std::chrono::steady_clock;

protocol::ToolSpec finishSpec() {
    return {"finish",
            "End the task with a summary of what was done.",
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

protocol::ToolResultData deniedResult() {
    auto data = toolResultWith(std::nullopt);
    data.denied = true;
    return data;
}

} // namespace

std::vector<protocol::ToolSpec> offeredTools(const ToolRegistry& tools) {
    auto specs = tools.specs();
    specs.push_back(finishSpec());
    return specs;
}

protocol::ToolResultData toolResultWith(std::optional<std::int64_t> exitCode) {
    protocol::ToolResultData data;
    data.exitCode = exitCode;
    return data;
}

CallRunner::CallRunner(const RunContext& context, const AgentSeat& seat, AgentState& state,
                       ToolRegistry& tools, PathClaims& claims, Deadline& stepDeadline,
                       std::set<std::string>& filesChanged, Host host)
    : m_context(context), m_seat(seat), m_rules(seatRules(seat)), m_state(state), m_tools(tools),
      m_claims(claims), m_stepDeadline(stepDeadline), m_filesChanged(filesChanged), m_host(std::move(host)),
      m_loopDetector(context.config.loopThreshold) {
    m_loopDetector.restore({m_state.recentCallKeys, m_state.loopWarned});
}

CallRunner::~CallRunner() = default;

std::optional<CallRunner::End> CallRunner::runPending() {
    // However the calls end, none read ahead outlives them (the destructor waits for those running).
    struct ReadAheadEnd {
        CallRunner& runner;
        ~ReadAheadEnd() {
            runner.m_readAhead.reset();
            runner.m_readAheadKeys.clear();
        }
    } readAheadEnd{*this};
    while (!m_state.pendingCalls.empty()) {
        if (m_context.cancellation.stopRequested())
            return std::nullopt; // the checkpoint keeps the calls not started; the loop ends the run
        if (!m_readAhead || !m_readAhead->has(m_state.pendingCalls.front().id))
            startReadAhead();
        const auto call = m_state.pendingCalls.front();
        m_state.pendingCalls.erase(m_state.pendingCalls.begin());
        if (auto problem = checkToolCall(call, offeredTools(m_tools))) {
            if (auto end = refuseBadCall(call, *problem))
                return end;
            continue;
        }
        m_badCallsInARow = 0;
        if (call.name == "finish") {
            const bool hasSummary = call.arguments.is_object() && call.arguments.contains("summary") &&
                                    call.arguments["summary"].is_string();
            End end{End::Kind::Finish,
                    hasSummary ? call.arguments["summary"].get<std::string>() : std::string()};
            m_state.counters.toolCalls["finish"]++;
            m_context.events.emit(protocol::ToolCallData{call.id, call.arguments},
                                  {"finish", std::nullopt, std::nullopt});
            m_host.record(call, "The task is finished.", toolResultWith(0), std::nullopt);
            if (!m_state.pendingCalls.empty())
                m_context.events.log(LogLevel::Warn, "calls after finish were not run");
            m_state.pendingCalls.clear();
            return end;
        }
        if (auto end = runCall(call))
            return end;
    }
    return std::nullopt;
}

std::optional<CallRunner::End> CallRunner::refuseBadCall(const protocol::ToolCall& call,
                                                         const std::string& problem) {
    auto& events = m_context.events;
    events.emit(protocol::ToolCallData{call.id, call.arguments}, {call.name, std::nullopt, std::nullopt});
    ++m_badCallsInARow;
    if (m_badCallsInARow >= m_context.config.maxBadCalls) {
        const std::string detail =
            std::to_string(m_badCallsInARow) +
            " tool calls in a row the model got wrong (max_bad_calls); the last: " + problem;
        m_host.record(call, "Not run: " + problem, toolResultWith(std::nullopt), std::nullopt);
        events.emit(protocol::GuardData{"max_bad_calls", protocol::GuardAction::Stop, detail});
        m_state.pendingCalls.clear();
        return End{End::Kind::Guard, detail};
    }
    m_host.record(call, "Not run: " + problem, toolResultWith(1), std::nullopt);
    return std::nullopt;
}

std::optional<CallRunner::End> CallRunner::runCall(const protocol::ToolCall& call) {
    // A call whose question a pause cut short was shown, counted and checked when it was first asked: the
    // resumed run asks again and nothing more.
    const bool askedBefore = m_state.askedCall == call.id;
    if (!askedBefore) {
        m_state.askedCall.reset();
        m_context.events.emit(protocol::ToolCallData{call.id, call.arguments},
                              {call.name, std::nullopt, std::nullopt});
        m_state.counters.toolCalls[call.name]++;
    }
    std::string warning;
    if (!askedBefore)
        if (auto stop = checkLoop(call, warning))
            return stop;

    std::string unavailable;
    Tool* tool = m_tools.find(call.name, unavailable);
    if (!tool) {
        m_host.record(call, unavailable + warning, toolResultWith(1), std::nullopt);
        return std::nullopt;
    }
    if (needsApproval(call.name)) {
        switch (askApproval(call, warning)) {
        case Approval::Approved:
            break;
        case Approval::Denied:
            return std::nullopt;
        case Approval::Interrupted:
            return End{End::Kind::StopRequested, {}};
        }
    }
    std::vector<std::string> claimed;
    if (auto conflict = claimPaths(call, claimed)) {
        m_host.record(call, *conflict + warning, toolResultWith(1), std::nullopt);
        return std::nullopt;
    }

    // Written before the call starts: if the agent is killed now, the resumed run knows this call was
    // interrupted instead of silently running it again.
    m_state.runningCall = call;
    m_host.saveBeforeCall();
    const auto started = Clock::now();
    bool cached = false;
    std::optional<std::uint64_t> ranAheadMs;
    ToolOutcome outcome = executeTool(*tool, call, cached, ranAheadMs);
    recordRun(call, std::move(outcome), cached, ranAheadMs.value_or(millisSince(started)), warning);
    m_state.runningCall.reset();
    releaseCallClaims(claimed);
    return std::nullopt;
}

std::optional<CallRunner::End> CallRunner::checkLoop(const protocol::ToolCall& call, std::string& warning) {
    if (!m_context.config.loopDetection)
        return std::nullopt;
    const auto verdict = m_loopDetector.observe(call);
    auto loopState = m_loopDetector.state();
    m_state.recentCallKeys = std::move(loopState.recentKeys);
    m_state.loopWarned = loopState.warned;
    if (verdict == LoopVerdict::Stop) {
        const std::string detail = "the model repeated the call " + call.name + " " + call.arguments.dump() +
                                   " after being warned (loop_detection)";
        m_context.events.emit(protocol::GuardData{"loop_detection", protocol::GuardAction::Stop, detail});
        m_host.record(call, "Not run: " + detail, toolResultWith(std::nullopt), std::nullopt);
        return End{End::Kind::Guard, detail};
    }
    if (verdict == LoopVerdict::Warn) {
        warning = "\n[warning: this exact call has now been made " +
                  std::to_string(m_context.config.loopThreshold) +
                  " times in a row and its result will not change. Do something different or finish; "
                  "one more repeat stops the task.]";
        m_context.events.emit(protocol::GuardData{
            "loop_detection", protocol::GuardAction::Warn, "repeated call " + call.name + " " + call.arguments.dump()});
    }
    return std::nullopt;
}

bool CallRunner::needsApproval(const std::string& tool) const {
    return !approvalReason(tool).empty();
}

std::string CallRunner::approvalReason(const std::string& tool) const {
    const auto& approvalTools = m_context.config.approvalTools;
    if (std::find(approvalTools.begin(), approvalTools.end(), tool) != approvalTools.end())
        return tool + " is in approval_tools";
    if (!isMcpToolName(tool))
        return {};
    bool namesMcp = false;
    for (const std::string& entry : approvalTools) {
        if (mcpToolListed(entry, tool))
            return tool + " is in approval_tools (as " + entry + ")";
        namesMcp = namesMcp || isMcpToolName(entry);
    }
    // What an MCP server's tool does is unknown, so it may change anything: where calls with effects are
    // asked for and no MCP tool is named, it is too (as a Claude Code tool without a Warren counterpart is,
    // ClaudePermissions).
    if (!namesMcp && !approvalTools.empty())
        return tool + " is an MCP server's tool, and approval_tools asks for approvals";
    return {};
}

CallRunner::Approval CallRunner::askApproval(const protocol::ToolCall& call, const std::string& warning) {
    auto& events = m_context.events;
    protocol::ApprovalRequestParams request{call.name, call.arguments, approvalReason(call.name), call.id};
    if (m_state.askedCall != call.id)
        events.emit(protocol::ApprovalRequestedData{call.id, call.arguments, request.reason},
                    {call.name, std::nullopt, std::nullopt});
    protocol::ApprovalResult decision{false, "no approver: the call was denied"};
    if (m_context.approver) {
        const auto asked = Clock::now();
        auto answer = m_context.approver(request, &m_context.cancellation);
        decision =
            answer ? *answer : protocol::ApprovalResult{false, "approval failed: " + answer.error().message};
        // Waiting for the user is not working: the step's time starts again where it was when asked.
        if (m_stepDeadline != Deadline::max())
            m_stepDeadline += Clock::now() - asked;
    }
    const StopRequest stop = m_context.cancellation.requested();
    if (!decision.approved && (stop == StopRequest::Pause || stop == StopRequest::HostGone)) {
        // A pause cut the wait short: the question stays open (no approval_resolved), and the call stays
        // first in line for the resumed run, which asks it again.
        m_state.askedCall = call.id;
        m_state.pendingCalls.insert(m_state.pendingCalls.begin(), call);
        return Approval::Interrupted;
    }
    m_state.askedCall.reset();
    events.emit(protocol::ApprovalResolvedData{call.id, decision.approved, decision.note, std::nullopt},
                {call.name, std::nullopt, std::nullopt});
    if (decision.approved)
        return Approval::Approved;
    if (stop != StopRequest::None) { // cancelled: the question is closed, the call not run
        m_state.pendingCalls.insert(m_state.pendingCalls.begin(), call);
        return Approval::Interrupted;
    }
    m_host.record(call,
                  "Denied: the user did not approve this call." +
                      (decision.note ? " Their note: " + *decision.note : std::string()) + warning,
                  deniedResult(), std::nullopt);
    return Approval::Denied;
}

void CallRunner::recordRun(const protocol::ToolCall& call, ToolOutcome outcome, bool cached,
                           std::uint64_t durationMs, const std::string& warning) {
    m_state.counters.bytesWritten += outcome.bytesWritten;
    protocol::ToolResultData data = toolResultWith(outcome.exitCode);
    data.truncated = outcome.truncated;
    data.cached = cached;
    data.timedOut = outcome.timedOut;
    if (outcome.timedOut && Clock::now() >= m_stepDeadline)
        m_context.events.emit(protocol::GuardData{"timeout_per_step_sec", protocol::GuardAction::Warn,
                                                  call.name + " was stopped at the step's deadline of " +
                                                      std::to_string(m_context.config.timeoutPerStepSec) +
                                                      " s"});
    if (outcome.cancelled) {
        // Stopped by cancel or pause: like a kill, the model hears it was interrupted.
        m_state.counters.interruptedCalls++;
        data.interrupted = true;
        m_host.record(call,
                      std::string(kInterruptedResult) +
                          " The task was stopped while this call ran; it was killed and not run again. Its "
                          "effects, if any, are unknown.",
                      std::move(data), durationMs);
        return;
    }
    // The model reads the output within its token budget; tool_output events carry all a process printed.
    FittedOutput fitted =
        fitToBudget(outcome.output, m_context.config.toolOutputLimitTokens, narrowingHint(call.name));
    data.truncated = data.truncated || fitted.cut;
    m_host.record(call, std::move(fitted.text) + warning, std::move(data), durationMs);
}

std::optional<std::string> CallRunner::claimPaths(const protocol::ToolCall& call,
                                                  std::vector<std::string>& claimed) {
    const auto& workspace = m_context.paths.workspace;
    for (const std::string& path : pathsWrittenBy(call)) {
        auto resolved = resolveInWorkspace(workspace, path);
        if (!resolved)
            continue; // the tool says what is wrong
        const std::string relative = relativeToWorkspace(workspace, *resolved);
        const auto holder = m_claims.claim(m_seat.id, relative);
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

void CallRunner::releaseCallClaims(const std::vector<std::string>& claimed) {
    if (m_rules.holdsClaimsUntilEnd)
        return; // the team releases them when the agent ends
    for (const std::string& path : claimed)
        m_claims.release(m_seat.id, path);
}

Tool* CallRunner::readAheadTool(const protocol::ToolCall& call) {
    if (call.name == "finish" || checkToolCall(call, offeredTools(m_tools)) || needsApproval(call.name))
        return nullptr;
    std::string unavailable;
    Tool* tool = m_tools.find(call.name, unavailable);
    return tool && tool->readOnly() && tool->concurrencySafe() ? tool : nullptr;
}

void CallRunner::startReadAhead() {
    m_readAhead.reset();
    m_readAheadKeys.clear();
    std::vector<ConcurrentCalls::Call> calls;
    std::map<std::string, std::string> keys;
    for (const auto& call : m_state.pendingCalls) {
        Tool* tool = readAheadTool(call);
        if (!tool)
            break; // a call with effects, or one the loop answers itself, keeps its place in the order
        const auto sameId = [&](const ConcurrentCalls::Call& ahead) {
            return ahead.id == call.id;
        };
        if (keys.contains(call.id) || std::any_of(calls.begin(), calls.end(), sameId))
            break; // the id names what is handed back: a model that repeats one gets those calls in turn
        ConcurrentCalls::Call ahead{call.id, tool, call.arguments, toolEnv(call.id)};
        if (m_context.config.executionCache) {
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

ToolEnv CallRunner::toolEnv(const std::string& callId) const {
    ToolEnv env;
    env.workspace = m_context.paths.workspace;
    env.deadline = m_stepDeadline;
    env.outputLimitBytes = m_context.config.toolOutputLimitBytes;
    env.shellTimeoutSec = m_context.config.shellTimeoutSec;
    env.cancellation = &m_context.cancellation;
    env.callId = callId;
    return env;
}

ToolEnv CallRunner::reportingEnv(const protocol::ToolCall& call) {
    ToolEnv env = toolEnv(call.id);
    env.onOutput = [this, id = call.id, name = call.name](std::string_view stream, std::string_view text) {
        const auto which =
            stream == "stderr" ? protocol::OutputStream::Stderr : protocol::OutputStream::Stdout;
        m_context.events.emit(protocol::ToolOutputData{id, which, std::string(text)},
                              {name, std::nullopt, std::nullopt});
    };
    env.onFileChanged = [this, name = call.name](const std::string& path, FileChange change,
                                                 const FileDiff* diff) {
        m_filesChanged.insert(path);
        m_context.events.emit(fileChangedData(path, change, diff), {name, std::nullopt, std::nullopt});
    };
    env.onPlanUpdated = [this, name = call.name](const protocol::PlanUpdatedData& plan) {
        m_context.events.emit(plan, {name, std::nullopt, std::nullopt});
    };
    return env;
}

ToolOutcome CallRunner::executeTool(Tool& tool, const protocol::ToolCall& call, bool& cached,
                                    std::optional<std::uint64_t>& ranAheadMs) {
    ToolEnv env = reportingEnv(call);
    if (m_readAhead && m_readAhead->has(call.id)) {
        // Run ahead beside the others of its run: what it reported is told now, in its turn.
        auto taken = m_readAhead->take(call.id, env);
        if (const auto key = m_readAheadKeys.find(call.id); key != m_readAheadKeys.end())
            m_cache.store(key->second, taken.outcome);
        ranAheadMs = taken.ranMs;
        return std::move(taken.outcome);
    }

    std::optional<std::string> key;
    if (m_context.config.executionCache && tool.readOnly()) {
        if (auto content = tool.contentKey(call.arguments, env)) {
            key = cacheKey(call.name, call.arguments, *content);
            if (const ToolOutcome* hit = m_cache.find(*key)) {
                m_context.events.log(LogLevel::Debug,
                                     call.name + " " + call.arguments.dump() +
                                         ": unchanged since an earlier call, served from the cache");
                cached = true;
                m_state.counters.cacheHits++;
                return *hit;
            }
        }
    }

    // Only a process can change files behind the tool's back (a command, an MCP server); the file tools
    // report their own changes.
    const bool watchFiles = call.name == "shell" || isMcpToolName(call.name);
    std::optional<WorkspaceSnapshot> before;
    if (watchFiles)
        before = takeSnapshot(m_context.paths.workspace);
    ToolOutcome outcome = tool.run(call.arguments, env);
    if (before) {
        for (const auto& [path, change] : diffSnapshots(*before, takeSnapshot(m_context.paths.workspace)))
            env.onFileChanged(path, change, nullptr); // no content before it to diff against
    }
    if (key)
        m_cache.store(*key, outcome);
    return outcome;
}

} // namespace warren::agent
