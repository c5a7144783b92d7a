#pragma once
// The agent's checkpoint: everything a run needs to continue where an earlier one stopped, and its JSON
// form in /state/checkpoint.json. Pure: CheckpointStore does the file. The reader is strict (unknown keys,
// wrong types and another format version are errors naming the key) so that a checkpoint from another
// agent version is refused rather than half-read.

#include "agent_core/protocol/Methods.h"
#include "agent_core/protocol/ToolCall.h"
#include "common/Result.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::agent {

// Bumped when a field changes meaning or a required one is added.
inline constexpr std::uint64_t kCheckpointFormat = 1;

// Cumulative over all runs of the task, for /output/resource_report.json.
struct RunCounters {
    std::uint64_t steps = 0, modelCalls = 0, tokensIn = 0, tokensOut = 0, cacheHits = 0, checkpoints = 0,
                  bytesWritten = 0, resumes = 0, interruptedCalls = 0, wallMs = 0, cpuMs = 0,
                  peakRssBytes = 0;
    std::uint64_t tokensReasoning = 0; // of tokensOut; optional in the checkpoint (older ones lack it)
    std::map<std::string, std::uint64_t> toolCalls; // by tool name
    friend bool operator==(const RunCounters&, const RunCounters&) = default;
};

struct AgentState {
    std::string taskId, prompt;
    std::vector<std::string> presets;
    nlohmann::json overrides = nlohmann::json::object();
    std::uint64_t step = 0;                        // steps completed or in progress
    std::uint64_t nextSeq = 1;                     // the seq of the next event
    std::vector<protocol::ChatMessage> messages;   // the conversation the model sees (after compaction)
    std::vector<protocol::ToolCall> pendingCalls;  // calls of the current step not yet started, in order
    std::optional<protocol::ToolCall> runningCall; // started, result not recorded: interrupted if resumed
    // The pending call whose approval was asked and cut short (a pause, the task put to sleep): its question
    // stays open, and the resumed run asks it again without showing the call or the question twice.
    std::optional<std::string> askedCall;
    std::vector<std::string> recentCallKeys;       // loop detection window
    bool loopWarned = false;
    RunCounters counters;
    nlohmann::json extra = nlohmann::json::object(); // opaque state of other parts (e.g. the scripted model)
    friend bool operator==(const AgentState&, const AgentState&) = default;
};

// Keys in snake_case: steps, model_calls, tokens_in, tokens_out, cache_hits, checkpoints, bytes_written,
// resumes, interrupted_calls, wall_ms, cpu_ms, peak_rss_bytes, tool_calls {name: count}; tokens_reasoning
// when not 0.
nlohmann::json toJson(const RunCounters& counters);
Result<RunCounters> runCountersFromJson(const nlohmann::json& value, const std::string& where);

// {"format": 1, "task_id", "prompt", "presets", "overrides", "step", "next_seq", "messages",
//  "pending_calls", "running_call" (null when none), "recent_call_keys", "loop_warned", "counters", "extra"},
//  and "asked_call" when there is one (older checkpoints lack it)
nlohmann::json toJson(const AgentState& state);
// Everything but "messages": the checkpoint store serializes the conversation itself, message by message,
// so that a step costs what it added rather than the whole conversation again.
nlohmann::json toJsonWithoutMessages(const AgentState& state);
// Every key is required; errors read "checkpoint.counters.steps: missing".
Result<AgentState> agentStateFromJson(const nlohmann::json& value);

} // namespace warren::agent
