#include "app/timeline/TimelineFold.h"

#include "app/egress/NetworkQuestion.h"

#include "app/timeline/CallDescription.h"
#include "app/timeline/CommandPrefix.h"
#include "app/timeline/LimitsDescription.h"
#include "app/timeline/SleepDescription.h"
#include "app/timeline/NetworkDescription.h"
#include "app/timeline/SetupDescription.h"

#include <cstdio>

namespace warren::timeline {

using nlohmann::json;
using namespace protocol;
using Kind = TimelineCard::Kind;
using State = TimelineCard::State;

namespace {

// "850 ms", "2.4 s", "3 min 5 s".
std::string cardDuration(std::uint64_t ms) {
    if (ms < 1000)
        return std::to_string(ms) + " ms";
    if (ms < 60000) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ms) / 1000.0);
        return text;
    }
    return std::to_string(ms / 60000) + " min " + std::to_string((ms % 60000) / 1000) + " s";
}

std::string callKey(const Event& e, const std::string& id) {
    return e.agent.value_or("") + '\n' + id;
}

std::string agentOf(const Event& e) {
    return e.agent.value_or("");
}

bool hasVisibleText(const std::string& text) {
    return text.find_first_not_of(" \t\r\n") != std::string::npos;
}

} // namespace

std::string_view planMark(PlanStatus status) {
    switch (status) {
    case PlanStatus::Completed:
        return "\xE2\x9C\x93";
    case PlanStatus::InProgress:
        return "\xE2\x96\xB8";
    case PlanStatus::Pending:
        break;
    }
    return "\xE2\x97\x8B";
}

Result<ReadEvent> readEvent(const json& event) {
    // 100,000s of events when a task opens: its data is read into the payload in place, not copied first.
    auto envelope = envelopeForDisplay(event);
    if (!envelope)
        return envelope.error();
    static const json kNoData = json::object();
    const auto data = event.find("data");
    auto payload = payloadFromJson(envelope->type, data == event.end() ? kNoData : *data);
    if (!payload)
        return payload.error();
    return ReadEvent{std::move(envelope).value(), std::move(payload).value()};
}

TimelineFold::TimelineFold(std::string prompt) {
    TimelineCard& task = m_cards.emplace_back();
    task.kind = Kind::Task;
    task.title = "Task";
    task.prose = std::move(prompt);
}

std::optional<std::size_t> TimelineFold::lastChangeOf(const std::string& path) const {
    const auto it = m_lastChange.find(path);
    return it == m_lastChange.end() ? std::nullopt : std::optional<std::size_t>(it->second);
}

std::vector<std::size_t> TimelineFold::apply(const ReadEvent& event) {
    m_changed.clear();
    const Event& envelope = event.envelope;
    m_counters.add(event.payload, envelope.step, envelope.tokenUsage,
                   envelope.ts ? static_cast<std::int64_t>(envelope.ts) : -1, envelope.agent.has_value());
    std::visit([&](const auto& data) { take(envelope, data); }, event.payload);
    return std::move(m_changed);
}

TimelineCard& TimelineFold::newCard(Kind kind, const Event& envelope) {
    TimelineCard& created = m_cards.emplace_back();
    created.kind = kind;
    created.step = envelope.step;
    created.firstSeq = envelope.seq;
    if (envelope.agent) {
        created.agent = *envelope.agent;
        const auto agent = m_agents.find(*envelope.agent);
        created.depth = agent == m_agents.end() ? 1 : m_cards[agent->second].depth;
        if (agent != m_agents.end())
            joinAgent(created, agent->second);
    }
    return created;
}

void TimelineFold::joinAgent(TimelineCard& card, std::size_t agentCard) {
    card.agentCard = agentCard;
    ++m_cards[agentCard].members;
    touch(agentCard);
}

void TimelineFold::showProgress(const std::string& agent) {
    const auto card = m_agents.find(agent);
    if (card == m_agents.end() || m_cards[card->second].state != State::Running)
        return;
    const AgentProgress& progress = m_progress[agent];
    std::string detail = "running";
    if (progress.step > 0)
        detail += " \xC2\xB7 step " + std::to_string(progress.step);
    if (progress.calls > 0)
        detail += " \xC2\xB7 " + std::to_string(progress.calls) + (progress.calls == 1 ? " call" : " calls") +
                  " \xC2\xB7 last: " + progress.lastCall;
    m_cards[card->second].detail = std::move(detail);
    touch(card->second);
}

TimelineCard& TimelineFold::notice(const Event& envelope, State state, std::string title,
                                   std::string detail) {
    TimelineCard& card = newCard(Kind::Notice, envelope);
    card.state = state;
    card.title = std::move(title);
    card.detail = std::move(detail);
    return card;
}

void TimelineFold::touch(std::size_t index) {
    if (m_changed.empty() || m_changed.back() != index)
        m_changed.push_back(index);
}

std::optional<std::size_t> TimelineFold::callCard(const std::string& key) const {
    const auto it = m_calls.find(key);
    return it == m_calls.end() ? std::nullopt : std::optional<std::size_t>(it->second);
}

std::size_t TimelineFold::callCardOrEarlier(const Event& e, const std::string& id) {
    if (const auto index = callCard(callKey(e, id)))
        return *index;
    // Its tool_call came before the fold's first event: the call's card starts here, so that its output
    // and result are shown, not dropped.
    TimelineCard& card = newCard(Kind::ToolCall, e);
    card.state = State::Running;
    card.callId = id;
    card.title = e.tool ? *e.tool + " (earlier call)" : "earlier call";
    card.bodyKind = TimelineCard::Body::Output;
    m_calls[callKey(e, id)] = m_cards.size() - 1;
    return m_cards.size() - 1;
}

void TimelineFold::take(const Event& e, const StepStartedData&) {
    m_streaming.erase(agentOf(e));
    newCard(Kind::Step, e).title = (e.agent ? *e.agent + " \xC2\xB7 " : std::string()) + "Step " + std::to_string(e.step);
    if (e.agent) {
        m_progress[*e.agent].step = e.step;
        showProgress(*e.agent);
    }
}

void TimelineFold::take(const Event& e, const ModelDeltaData& data) {
    auto streaming = m_streaming.find(agentOf(e));
    if (streaming == m_streaming.end()) {
        newCard(Kind::ModelText, e).state = State::Running;
        streaming = m_streaming.emplace(agentOf(e), m_cards.size() - 1).first;
    }
    m_cards[streaming->second].prose += data.text;
    touch(streaming->second);
}

void TimelineFold::take(const Event& e, const ModelResponseData& data) {
    // What the model thought comes whole with the reply (the streamed text is the answer only).
    if (hasVisibleText(data.reasoning)) {
        TimelineCard& thought = notice(e, State::Plain, "reasoning");
        thought.bodyKind = TimelineCard::Body::Plain;
        thought.body = data.reasoning;
    }
    std::optional<std::size_t> target;
    if (const auto streaming = m_streaming.find(agentOf(e)); streaming != m_streaming.end())
        target = streaming->second;
    if (!target && hasVisibleText(data.content)) {
        newCard(Kind::ModelText, e);
        target = m_cards.size() - 1;
    }
    if (target) {
        TimelineCard& card = m_cards[*target];
        if (!data.content.empty())
            card.prose = data.content; // the whole reply is the authority over its streamed pieces
        card.state = State::Plain;
        if (e.tokenUsage && e.tokenUsage->input > 0) {
            card.detail = std::to_string(e.tokenUsage->input) + " tokens in, " +
                          std::to_string(e.tokenUsage->output) + " out";
            if (e.tokenUsage->reasoning > 0)
                card.detail += " (" + std::to_string(e.tokenUsage->reasoning) + " reasoning)";
        }
        touch(*target);
    }
    m_streaming.erase(agentOf(e));
}

void TimelineFold::take(const Event& e, const ToolCallData& data) {
    const std::string tool = e.tool.value_or("");
    TimelineCard& card = newCard(Kind::ToolCall, e);
    card.state = State::Running;
    card.callId = data.id;
    CallDescription description = describeCall(tool, data.arguments);
    card.title = tool == "finish" ? "finish" : std::move(description.title);
    card.arguments = std::move(description.arguments);
    card.bodyKind = TimelineCard::Body::Output;
    if (tool == "shell") {
        const std::string command = stringArgument(data.arguments, "command");
        if (command.find('\n') != std::string::npos)
            card.detail = command;
    }
    m_calls[callKey(e, card.callId)] = m_cards.size() - 1;
    if (e.agent) {
        AgentProgress& progress = m_progress[*e.agent];
        ++progress.calls;
        progress.lastCall = card.title;
        showProgress(*e.agent);
    }
}

void TimelineFold::take(const Event& e, const ToolOutputData& data) {
    const std::size_t before = m_cards.size();
    const std::size_t index = callCardOrEarlier(e, data.id);
    m_cards[index].body += data.text;
    if (index < before)
        touch(index);
}

void TimelineFold::take(const Event& e, const ToolResultData& data) {
    const std::size_t before = m_cards.size();
    const std::size_t index = callCardOrEarlier(e, data.id);
    TimelineCard& card = m_cards[index];
    std::string facts;
    auto fact = [&facts](const std::string& text) {
        facts += (facts.empty() ? "" : " \xC2\xB7 ") + text;
    };
    if (data.denied)
        fact("denied");
    else if (data.interrupted)
        fact("interrupted");
    else if (data.timedOut)
        fact("timed out");
    else if (data.exitCode)
        fact("exit " + std::to_string(*data.exitCode));
    if (data.cached)
        fact("cached");
    if (e.durationMs)
        fact(cardDuration(*e.durationMs));
    card.detail = facts;
    card.state = data.exitCode && *data.exitCode == 0 && !data.denied ? State::Succeeded : State::Failed;
    // Tools that print nothing while they run (read_file, search, ...) show what the model read.
    if (card.body.empty())
        card.body = data.output;
    if (index < before)
        touch(index);
}

void TimelineFold::take(const Event& e, const FileChangedData& data) {
    TimelineCard& card = newCard(Kind::FileChange, e);
    card.path = data.path;
    card.title = (data.change == FileChange::Created   ? "created "
                  : data.change == FileChange::Deleted ? "deleted "
                                                       : "changed ") +
                 data.path;
    if (data.added || data.removed)
        card.detail = "+" + std::to_string(data.added.value_or(0)) + " \xE2\x88\x92" +
                      std::to_string(data.removed.value_or(0));
    if (data.binary)
        card.detail = "binary file";
    card.bodyKind = TimelineCard::Body::Diff;
    card.body = data.diff.value_or("");
    card.diffTruncated = data.diffTruncated;
    m_lastChange[data.path] = m_cards.size() - 1;
}

void TimelineFold::take(const Event& e, const ApprovalRequestedData& data) {
    const std::string tool = e.tool.value_or("");
    TimelineCard& card = newCard(Kind::Approval, e);
    card.state = State::Waiting;
    card.callId = data.id;
    CallDescription description = describeCall(tool, data.arguments);
    card.title = std::move(description.title);
    card.arguments = std::move(description.arguments);
    card.detail = data.reason;
    ApprovalPreview preview = approvalPreview(tool, data.arguments, {});
    card.prose = std::move(preview.where);
    card.bodyKind = preview.bodyKind;
    card.body = std::move(preview.body);
    card.commandPrefix = control::callCommandPrefix(tool, data.arguments).value_or("");
    if (const auto question = control::NetworkQuestion::fromApproval(tool, data.arguments))
        card.networkTarget = question->target();
    m_approvals[callKey(e, card.callId)] = m_cards.size() - 1;
    m_waitingCalls[callKey(e, card.callId)] = {tool, data.arguments};
}

std::vector<std::size_t> TimelineFold::previewWaitingApprovals(const FileReader& readFile) {
    std::vector<std::size_t> changed;
    if (!readFile)
        return changed;
    for (const auto& [key, call] : m_waitingCalls) {
        const auto card = m_approvals.find(key);
        if (card == m_approvals.end())
            continue;
        ApprovalPreview preview = approvalPreview(call.first, call.second, readFile);
        TimelineCard& shown = m_cards[card->second];
        if (shown.prose == preview.where && shown.body == preview.body)
            continue;
        shown.prose = std::move(preview.where);
        shown.bodyKind = preview.bodyKind;
        shown.body = std::move(preview.body);
        changed.push_back(card->second);
    }
    return changed;
}

void TimelineFold::take(const Event& e, const ApprovalResolvedData& data) {
    const std::size_t before = m_cards.size();
    auto it = m_approvals.find(callKey(e, data.id));
    if (it == m_approvals.end()) {
        // Its question came before the fold's first event: the answer is shown on a card of its own.
        TimelineCard& asked = newCard(Kind::Approval, e);
        asked.callId = data.id;
        asked.title = e.tool ? *e.tool + " (asked earlier)" : "asked earlier";
        it = m_approvals.emplace(callKey(e, data.id), m_cards.size() - 1).first;
    }
    TimelineCard& card = m_cards[it->second];
    card.state = data.approved ? State::Approved : State::Denied;
    m_waitingCalls.erase(it->first);
    const std::string note = data.note.value_or("");
    card.detail = (data.approved ? "approved" : "denied") + (note.empty() ? "" : " \xE2\x80\x94 " + note);
    if (it->second < before)
        touch(it->second);
}

void TimelineFold::take(const Event& e, const TaskResumedData& data) {
    notice(e, State::Plain, "Resumed from its checkpoint at step " + std::to_string(data.fromStep),
           data.interruptedToolCall ? "the call that was running (" + *data.interruptedToolCall +
                                          ") is reported to the model as interrupted"
                                    : std::string());
}

// The user's reply, shown as the prompt is: what the agent was told to do next.
void TimelineFold::take(const Event& e, const UserMessageData& data) {
    TimelineCard& card = newCard(Kind::Task, e);
    card.title = "Your reply";
    card.prose = data.text;
}

void TimelineFold::take(const Event& e, const ProjectInstructionsData& data) {
    TimelineCard& card = notice(e, State::Plain, "project instructions: " + data.path,
                                std::to_string(data.bytes) + " bytes" + (data.truncated ? ", cut to the cap" : ""));
    card.bodyKind = TimelineCard::Body::Plain;
    card.body = data.text;
}

void TimelineFold::take(const Event& e, const CheckpointData& data) {
    notice(e, State::Plain, "checkpoint saved", std::to_string(data.bytes) + " bytes");
}

void TimelineFold::take(const Event& e, const HookData& data) {
    TimelineCard& card = notice(e, State::Plain, "hook " + data.name, data.detail);
    card.bodyKind = TimelineCard::Body::Output;
    card.body = data.output.value_or("");
}

// Each update is a card of its own, where it happened: the timeline shows how the plan moved.
void TimelineFold::take(const Event& e, const PlanUpdatedData& data) {
    TimelineCard& card = newCard(Kind::Plan, e);
    std::size_t completed = 0;
    for (const PlanStep& step : data.steps) {
        completed += step.status == PlanStatus::Completed;
        card.body += std::string(planMark(step.status)) + " " + step.step + "\n";
    }
    if (!card.body.empty())
        card.body.pop_back();
    card.bodyKind = TimelineCard::Body::Plain;
    card.title = "Plan";
    card.detail = std::to_string(completed) + " of " + std::to_string(data.steps.size()) + " done";
    card.state = completed == data.steps.size() ? State::Succeeded : State::Running;
    card.prose = data.explanation;
}

void TimelineFold::take(const Event& e, const GuardData& data) {
    notice(e, State::Warning, "guard " + data.guard + ": " + std::string(toString(data.action)), data.detail);
}

void TimelineFold::take(const Event& e, const ErrorData& data) {
    if (const auto setup = describeSetup(data)) // an MCP server that failed: the task goes on
        return (void)notice(e, State::Warning, setup->title, setup->detail);
    notice(e, data.fatal ? State::Failed : State::Warning, data.message);
}

void TimelineFold::take(const Event& e, const LogData& data) {
    // The skills offered and their changes, the MCP servers started or left out: the task's setup, shown
    // whatever the level. Other info lines are the agent's diagnostics.
    if (const auto setup = describeSetup(data))
        return (void)notice(e, setup->warning ? State::Warning : State::Plain, setup->title, setup->detail);
    if (data.level == protocol::LogLevel::Warn || data.level == protocol::LogLevel::Error)
        notice(e, State::Warning, data.message);
}

void TimelineFold::take(const Event& e, const NetworkRequestData& data) {
    const NetworkDescription described = describeNetworkRequest(data);
    notice(e, described.warning ? State::Warning : State::Plain, described.title, described.detail);
}

void TimelineFold::take(const Event& e, const ModelCallData& data) {
    const std::string title = "model call: " + (data.model.empty() ? data.path : data.model) +
                              (data.status ? " (" + std::to_string(data.status) + ")" : "");
    if (data.error) {
        notice(e, State::Warning, title, *data.error);
        return;
    }
    notice(e, State::Plain, title,
           std::to_string(data.inputTokens) + " tokens in, " + std::to_string(data.outputTokens) + " out, " +
               std::to_string(data.durationMs) + " ms");
}

void TimelineFold::take(const Event& e, const LimitsAppliedData& data) {
    notice(e, State::Plain, "limits: " + describeLimits(data));
}

// The run ended paused for this: its end card says so rather than "Paused".
void TimelineFold::take(const Event& e, const TaskSleptData& data) {
    if (!m_cards.empty() && m_cards.back().kind == Kind::Finished && m_cards.back().title == "Paused") {
        m_cards.back().title = describeSleep(data);
        touch(m_cards.size() - 1);
        return;
    }
    notice(e, State::Plain, describeSleep(data));
}

void TimelineFold::take(const Event& e, const AgentStartedData& data) {
    const std::size_t before = m_cards.size();
    TimelineCard& card = newCard(Kind::Agent, e);
    card.state = State::Running;
    card.depth = data.depth;
    card.title = card.agent + " (" + data.role + ")";
    card.prose = data.brief;
    card.detail = "running";
    Event starter = e;
    starter.agent = data.parent;
    card.parentCard = callCard(callKey(starter, data.callId)).value_or(0);
    if (data.parent)
        if (const auto parent = m_agents.find(*data.parent); parent != m_agents.end())
            joinAgent(card, parent->second);
    m_agents[card.agent] = before;
}

void TimelineFold::take(const Event& e, const AgentFinishedData& data) {
    const std::size_t before = m_cards.size();
    auto it = m_agents.find(agentOf(e));
    if (it == m_agents.end()) { // started before the fold's first event
        TimelineCard& card = newCard(Kind::Agent, e);
        card.title = agentOf(e) + " (started earlier)";
        it = m_agents.emplace(agentOf(e), m_cards.size() - 1).first;
    }
    m_streaming.erase(agentOf(e));
    TimelineCard& card = m_cards[it->second];
    using protocol::FinishReason;
    card.state = data.reason == FinishReason::Finished ? State::Succeeded
                 : data.reason == FinishReason::Paused ? State::Plain
                                                       : State::Failed;
    card.detail = toString(data.reason);
    if (const std::uint64_t calls = m_progress[agentOf(e)].calls; calls > 0)
        card.detail += " \xC2\xB7 " + std::to_string(calls) + (calls == 1 ? " call" : " calls");
    if (!data.files.empty()) {
        card.detail += " \xC2\xB7 changed ";
        for (std::size_t i = 0; i < data.files.size(); ++i)
            card.detail += (i ? ", " : "") + data.files[i];
    }
    if (!data.summary.empty())
        card.prose += (card.prose.empty() ? "" : "\n\n") + data.summary;
    if (it->second < before)
        touch(it->second);
}

void TimelineFold::take(const Event& e, const TaskFinishedData& data) {
    m_streaming.clear();
    TimelineCard& card = newCard(Kind::Finished, e);
    using protocol::FinishReason;
    card.state = data.reason == FinishReason::Finished  ? State::Succeeded
                 : data.reason == FinishReason::Paused  ? State::Plain
                 : data.reason == FinishReason::Waiting ? State::Waiting
                                                        : State::Failed;
    card.title = data.reason == FinishReason::Finished    ? "Finished"
                 : data.reason == FinishReason::Paused    ? "Paused"
                 : data.reason == FinishReason::Waiting   ? "Waiting for your reply"
                 : data.reason == FinishReason::Cancelled ? "Cancelled"
                                                          : "Stopped: " + std::string(toString(data.reason));
    card.prose = data.summary.value_or("");
    // A call still marked running when its task ended did not come back.
    for (const auto& [id, index] : m_calls) {
        if (m_cards[index].state == State::Running) {
            m_cards[index].state = State::Failed;
            m_cards[index].detail = "did not finish";
            touch(index);
        }
    }
}

} // namespace warren::timeline
