#include "agent_core/protocol/EventTypes.h"

#include <algorithm>
#include <array>

namespace warren::protocol {

namespace {

using namespace event_type;

constexpr std::array kCatalog = {
    EventTypeInfo{kTaskStarted, "the task began: prompt, presets, config"},
    EventTypeInfo{kProjectInstructions, "a project instructions file (AGENTS.md and the like) the model was given"},
    EventTypeInfo{kTaskResumed, "started from a checkpoint: the step it resumes at"},
    EventTypeInfo{kUserMessage, "the user's reply to a task whose run ended, added to the conversation"},
    EventTypeInfo{kStepStarted, "a new step of the loop begins"},
    EventTypeInfo{kModelDelta, "a streamed piece of the model's reply"},
    EventTypeInfo{kModelResponse, "the model's complete reply of a step"},
    EventTypeInfo{kToolCall, "a tool is called with these arguments"},
    EventTypeInfo{kToolOutput, "a chunk of a running tool's stdout or stderr"},
    EventTypeInfo{kToolResult, "a tool ended: exit code, whether its output was truncated"},
    EventTypeInfo{kFileChanged, "a tool wrote or deleted a workspace file"},
    EventTypeInfo{kApprovalRequested, "a risky tool call waits for the user"},
    EventTypeInfo{kApprovalResolved, "the user or the policy decided on an approval"},
    EventTypeInfo{kCheckpoint, "state written to /state after a step"},
    EventTypeInfo{kResourceSample, "the agent's resident memory and CPU time"},
    EventTypeInfo{kHook, "a lifecycle hook ran, and its outcome"},
    EventTypeInfo{kPlanUpdated, "the model's plan for the task, each step pending, in progress or completed"},
    EventTypeInfo{kGuard, "a self-protection limit warned or stopped the task"},
    EventTypeInfo{kError, "something failed; the task may go on"},
    EventTypeInfo{kLog, "a diagnostic message with a level"},
    EventTypeInfo{kNetworkRequest, "the egress proxy let a request through to a listed host, or refused it"},
    EventTypeInfo{kLimitsApplied, "the sandbox limits a server task runs with, and which quota decided each"},
    EventTypeInfo{kModelCall, "a CLI agent's call through the model proxy: model, status, tokens, timings"},
    EventTypeInfo{kTaskSlept, "the task waited for its user's answer long enough that its sandbox went; an answer wakes it"},
    EventTypeInfo{kAgentStarted, "a sub-agent began in the task's sandbox: who started it, its role and brief"},
    EventTypeInfo{kAgentFinished, "a sub-agent ended: reason, its final message, the files it changed"},
    EventTypeInfo{kTaskFinished, "the task ended: reason and summary"},
};

} // namespace

std::span<const EventTypeInfo> eventTypeCatalog() {
    return kCatalog;
}

bool isKnownEventType(std::string_view type) {
    return std::any_of(kCatalog.begin(), kCatalog.end(),
                       [type](const EventTypeInfo& info) { return info.name == type; });
}

bool isControlPlaneEventType(std::string_view type) {
    return type == kNetworkRequest || type == kLimitsApplied || type == kModelCall || type == kTaskSlept;
}

} // namespace warren::protocol
