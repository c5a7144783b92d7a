#pragma once
// The agent's settings: every key of DESIGN §4's presets, with its default. Settings come from the
// built-in defaults, then the presets in the order given (resources/presets/*.json, later wins), then
// overrides key by key (--set KEY=VALUE, task.start overrides). An unknown preset or key, or a value of the
// wrong type or range, is an error naming it. docs/AGENT.md lists what each key does.

#include "Result.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

enum class MemoryBackendKind { InMemory, Filesystem, Host };
enum class LogLevel { Debug, Info, Warn, Error };
enum class LogFormat { Text, Json };

struct AgentConfig {
    // Loop and guards
    std::uint64_t maxSteps = 100;          // max_steps: the task stops (guard) before step max_steps + 1
    std::uint64_t timeoutPerStepSec = 0;   // timeout_per_step_sec: 0 = none; a tool running at the
                                           // deadline is killed and reported as timed out
    std::uint64_t tokenBudget = 0;         // token_budget: input + output tokens; 0 = none
    bool loopDetection = false;            // loop_detection: the same call with the same arguments
    std::uint64_t loopThreshold = 3;       // loop_threshold: ...this many times in a row warns the model;
                                           // one more repeat stops the task
    std::uint64_t memoryThresholdMb = 0;   // memory_threshold_mb: RSS above it fires on_low_memory and
                                           // sheds caches and history; 0 = off
    std::uint64_t maxMemoryMb = 0;         // max_memory_mb: RSS still above it after shedding stops the
                                           // task (guard); 0 = off
    // Context
    std::uint64_t contextWindowLimit = 32000; // context_window_limit: estimated tokens sent per model call
    std::uint64_t keepRecentMessages = 8;     // keep_recent_messages: kept verbatim when compacting
    bool compressHistory = false;             // compress_history: older tool results shortened to a line
    // Tools
    std::vector<std::string> tools;          // tools: enabled tool names; "finish" is always enabled
    bool lazyTools = false;                  // lazy_tools: a tool is constructed on its first call
    std::uint64_t shellTimeoutSec = 120;     // shell_timeout_sec: shell's default timeout
    std::uint64_t toolOutputLimitBytes = 16384; // tool_output_limit_bytes: output the model reads per call
    std::vector<std::string> approvalTools;  // approval_tools: calls of these tools need approval
    bool executionCache = true;              // execution_cache: cache read-only tool results
    // Memory
    MemoryBackendKind memoryBackend = MemoryBackendKind::Filesystem; // memory_backend
    std::string memoryDir = "/memories";     // memory_dir: the filesystem backend's root
    std::string memoryPrefix;                // memory_prefix: injected by the control plane
    std::uint64_t autoSaveIntervalSec = 0;   // auto_save_interval: 0 = every save is written at once
    bool semanticIndex = false;              // semantic_index: ranked full-text memory_search
    // Logging
    LogLevel logLevel = LogLevel::Info;      // log_level
    LogFormat logFormat = LogFormat::Text;   // log_format: text = diagnostics on stderr; json = as log
                                             // events on stdout, nothing on stderr
    // Hooks: keys on_task_start, on_step, on_task_complete, on_low_memory, on_error, each a shell command
    // run in the workspace ("" = none). Only the configured ones are in the map.
    std::map<std::string, std::string> hooks;
};

// All tool names, in the order the model is told about them.
const std::vector<std::string>& allToolNames();

// Names of the built-in presets, sorted.
std::vector<std::string> presetNames();

// defaults < presets (in order) < overrides. The result's json form (configToJson) is what task_started
// reports. Errors: "unknown preset \"x\" (known: ...)", "--set max_steps: must be a non-negative integer".
Result<AgentConfig> resolveConfig(const std::vector<std::string>& presets, const nlohmann::json& overrides);

// "KEY=VALUE" from the command line into overrides: VALUE is read as JSON when it parses (numbers,
// booleans, arrays), else as a string. Error names the argument.
Status addOverride(nlohmann::json& overrides, std::string_view keyEqualsValue);

nlohmann::json configToJson(const AgentConfig& config);

} // namespace warren::agent
