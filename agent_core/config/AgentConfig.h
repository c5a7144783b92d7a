#pragma once
// The agent's settings: every key of DESIGN §4's presets, with its default. Settings come from the
// built-in defaults, then the presets in the order given (resources/presets/*.json, later wins), then
// overrides key by key (--set KEY=VALUE, task.start overrides). An unknown preset or key, or a value of the
// wrong type or range, is an error naming it and where it came from. One table of keys in AgentConfig.cpp
// drives validation, configToJson and settingInfos(); the defaults are the initialisers below.

#include "agent_core/protocol/EventEnums.h"
#include "common/Result.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

enum class MemoryBackendKind { InMemory, Filesystem, Host };
using LogLevel = protocol::LogLevel; // its names are the log events' (protocol::toString)
enum class LogFormat { Text, Json };
// How hard a reasoning model thinks before it answers: OpenAI's reasoning_effort, Anthropic's extended
// thinking budget. Default leaves it to the model (and Anthropic's thinking off).
enum class ReasoningEffort { Default, Minimal, Low, Medium, High };
// What replaces the turns compaction cuts: a handoff summary the model writes (the mechanical one when its
// answer fails), or the mechanical summary of the calls made.
enum class CompactionSummary { Model, Mechanical };

// The names the settings use: "in-memory"/"filesystem"/"host", "debug".."error", "text"/"json".
std::string_view toString(MemoryBackendKind kind);
std::string_view toString(LogFormat format);
std::string_view toString(ReasoningEffort effort); // "default", "minimal", "low", "medium", "high"
std::string_view toString(CompactionSummary summary); // "model", "mechanical"

// All tool names, in the order the model is told about them:
// shell, read_file, write_file, edit_file, apply_patch, list_files, search, update_plan, memory_save,
// memory_load, memory_search, skill, finish. Of edit_file and apply_patch a model is offered the one of its
// family (prompt/FamilyTools.h); skill only when the run has skills (agent_core/skills).
const std::vector<std::string>& allToolNames();

struct AgentConfig {
    // Loop and guards
    std::uint64_t maxSteps = 100;        // max_steps (>= 1): the task stops (guard) before step
                                         // max_steps + 1
    std::uint64_t timeoutPerStepSec = 0; // timeout_per_step_sec: 0 = none; a tool running at the
                                         // deadline is killed and reported as timed out
    std::uint64_t tokenBudget = 0;       // token_budget: input + output tokens; 0 = none
    std::uint64_t idleSleepSec = 0;      // idle_sleep_sec: read by the control plane, not the agent: a run
                                         // that only waits for its user this long sleeps (DESIGN §14),
                                         // never later than its face's own time; 0 = the face's
    std::uint64_t maxBadCalls = 5;       // max_bad_calls (>= 1): tool calls in a row the model gets wrong
                                         // (arguments not JSON, no such tool, a missing, unknown or
                                         // mistyped argument) that stop the task; fewer are answered
    std::uint64_t maxNudges = 2;         // max_nudges: replies without a tool call answered with a nudge
                                         // to go on (or call finish) before such a reply ends the task
    bool loopDetection = false;          // loop_detection: the same call with the same arguments
    std::uint64_t loopThreshold = 3;     // loop_threshold (>= 2): ...this many times in a row warns the
                                         // model; one more repeat stops the task
    std::uint64_t memoryThresholdMb = 0; // memory_threshold_mb: RSS above it fires on_low_memory and
                                         // sheds caches and history; 0 = off
    std::uint64_t maxMemoryMb = 0;       // max_memory_mb: RSS still above it after shedding stops the
                                         // task (guard); 0 = off
    // Context
    std::uint64_t contextWindowLimit = 32000; // context_window_limit (>= 1000): estimated tokens sent per
                                              // model call
    std::uint64_t keepRecentMessages = 8;     // keep_recent_messages (>= 2): kept verbatim when compacting
    bool compressHistory = false;             // compress_history: older tool results shortened to a line
    CompactionSummary compactionSummary = CompactionSummary::Model; // compaction_summary
    // Model
    std::uint64_t maxOutputTokens = 0; // max_output_tokens: the output token limit of one reply; 0 = the
                                       // provider's default (docs/ARCHITECTURE.md, "Model requests")
    ReasoningEffort reasoningEffort = ReasoningEffort::Default; // reasoning_effort
    // Tools
    std::vector<std::string> tools = allToolNames(); // tools: enabled tool names, no duplicates; "finish"
                                                     // is always enabled (added when missing)
    bool lazyTools = false;                          // lazy_tools: a tool is constructed on its first call
    std::uint64_t shellTimeoutSec = 120;             // shell_timeout_sec (>= 1): shell's default timeout
    std::uint64_t toolOutputLimitBytes = 16384; // tool_output_limit_bytes (>= 256): output a tool collects
                                                // per call (its memory bound)
    std::uint64_t toolOutputLimitTokens = 3000; // tool_output_limit_tokens (>= 64): estimated tokens of one
                                                // call's output the model reads (head and tail kept)
    std::uint64_t maxSubagents = 0;  // max_subagents: sub-agents open at once (spawn_agent and its tools
                                     // are offered only when > 0); 0 = none
    std::uint64_t maxAgentDepth = 1; // max_agent_depth (>= 1): 1 = only the task's own agent starts them
    std::vector<std::string> approvalTools;     // approval_tools: calls of these tools need approval
    nlohmann::json mcpServers = nlohmann::json::object(); // mcp_servers: MCP servers by name, as .mcp.json's
                                                          // "mcpServers" holds them (the user's: --mcp-config)
    bool executionCache = true;                 // execution_cache: cache read-only tool results
    // Skills
    std::vector<std::string> skillsDirs; // skills_dirs: absolute paths of folders of skills (the user's,
                                         // mounted read-only), read after the workspace's own
    // Memory
    MemoryBackendKind memoryBackend = MemoryBackendKind::Filesystem; // memory_backend
    std::string memoryDir = "/memories";   // memory_dir: the filesystem backend's root (absolute)
    std::string memoryPrefix;              // memory_prefix: injected by the control plane; segments of
                                           // [A-Za-z0-9._-] separated by '/', no "." or "..", may be ""
    std::uint64_t autoSaveIntervalSec = 0; // auto_save_interval: 0 = every save is written at once
    bool semanticIndex = false;            // semantic_index: ranked full-text memory_search
    // Logging
    LogLevel logLevel = LogLevel::Info;    // log_level
    LogFormat logFormat = LogFormat::Text; // log_format: text = diagnostics on stderr; json = as log
                                           // events on stdout, nothing on stderr
    // Hooks: keys on_task_start, on_step, on_task_complete, on_low_memory, on_error, each a shell command
    // run in the workspace ("" = none). Only the configured ones are in the map.
    std::map<std::string, std::string> hooks;

    friend bool operator==(const AgentConfig&, const AgentConfig&) = default;
};

// The hook keys, in the order of the task's life: on_task_start, on_step, on_task_complete, on_low_memory,
// on_error.
const std::vector<std::string>& hookNames();

// Names of the built-in presets, sorted.
std::vector<std::string> presetNames();

// defaults < presets (in order) < overrides. The result's json form (configToJson) is what task_started
// reports. Errors: "unknown preset \"x\" (known: ...)", "preset safe-mode: max_steps: ...",
// "--set loop_threshold: must be an integer >= 2, got 1", "--set: unknown key \"max_step\" (did you mean
// max_steps?)". overridesSource names the overrides in messages ("--set" in the first form).
Result<AgentConfig> resolveConfig(const std::vector<std::string>& presets, const nlohmann::json& overrides);
Result<AgentConfig> resolveConfig(const std::vector<std::string>& presets, const nlohmann::json& overrides,
                                  const std::string& overridesSource);

// "KEY=VALUE" from the command line into overrides: VALUE is read as JSON when it parses (numbers,
// booleans, arrays), else as a string (so memory_dir=/x needs no quotes). Error names the argument. The key
// itself is checked by resolveConfig.
Status addOverride(nlohmann::json& overrides, std::string_view keyEqualsValue);

// Every key with its value; hooks that are not configured are "". resolveConfig({}, configToJson(c)) == c.
nlohmann::json configToJson(const AgentConfig& config);
// configToJson as the events report it (task_started, the audit log every face and API shows): the values of
// the MCP servers' env and headers, which may be credentials (a tenant's on warrend, the user's own), each
// replaced by kHiddenSettingValue; their names stay.
inline constexpr const char* kHiddenSettingValue = "(hidden)";
nlohmann::json configForEvents(const AgentConfig& config);

// One row per key, for --help and the docs: "loop_threshold", "integer >= 2", default as JSON, the meaning.
struct SettingInfo {
    std::string name;
    std::string type;
    nlohmann::json defaultValue;
    std::string meaning;
};
std::vector<SettingInfo> settingInfos();

} // namespace warren::agent
