#pragma once
// How a tool that loops (over lines, files or directory entries) notices it must stop: a stop request
// (cancel, pause, host gone) or the step's deadline. Checked between pieces of work, never mid-write.

#include "agent_core/tools/Tool.h"

#include <chrono>
#include <string>
#include <string_view>

namespace warren::agent {

enum class StopReason { None, Cancelled, TimedOut };

inline StopReason stopReason(const ToolEnv& env) {
    if (env.cancellation && env.cancellation->stopRequested())
        return StopReason::Cancelled;
    if (std::chrono::steady_clock::now() >= env.deadline)
        return StopReason::TimedOut;
    return StopReason::None;
}

// A failed outcome that keeps what was produced before the stop, with why it stopped after it.
inline ToolOutcome stoppedOutcome(std::string_view tool, StopReason why, std::string partialOutput) {
    ToolOutcome outcome = failure(std::move(partialOutput));
    outcome.cancelled = why == StopReason::Cancelled;
    outcome.timedOut = why == StopReason::TimedOut;
    if (!outcome.output.empty() && outcome.output.back() != '\n')
        outcome.output += '\n';
    outcome.output.append("[").append(tool).append(outcome.cancelled ? " stopped: a stop was requested]"
                                                                     : " stopped at the step's deadline]");
    return outcome;
}

} // namespace warren::agent
