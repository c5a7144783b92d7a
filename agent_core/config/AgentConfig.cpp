#include "agent_core/config/AgentConfig.h"

#include "agent_core/protocol/McpToolName.h"
#include "common/EditDistance.h"
#include "common/JsonFields.h"
#include "common/Utf8.h"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>

// The built-in presets, embedded from resources/presets by config/CMakeLists.txt.
namespace warren::resources {
extern const std::string_view presetLongTermMemoryJson;
extern const std::string_view presetLocalLightJson;
extern const std::string_view presetMemoryOptimizedJson;
extern const std::string_view presetProductionLogJson;
extern const std::string_view presetSafeModeJson;
extern const std::string_view presetTeamJson;
} // namespace warren::resources

namespace warren::agent {

using nlohmann::json;

namespace {

struct BuiltInPreset {
    std::string_view name;
    std::string_view text;
};

// Sorted by name. A preset is parsed and checked by applySettings each time it is used, so a broken file
// is reported like any other bad setting (and the tests resolve every one).
std::array<BuiltInPreset, 6> builtInPresets() {
    return {{{"local-light", resources::presetLocalLightJson},
             {"long-term-memory", resources::presetLongTermMemoryJson},
             {"memory-optimized", resources::presetMemoryOptimizedJson},
             {"production-log", resources::presetProductionLogJson},
             {"safe-mode", resources::presetSafeModeJson},
             {"team", resources::presetTeamJson}}};
}

Error invalid(std::string message) {
    return makeError(ErrorCode::InvalidArgument, std::move(message));
}

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

// A value as the user wrote it, short enough for one line of an error message.
std::string shown(const json& value) {
    constexpr std::size_t kMaxShown = 60;
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > kMaxShown)
        text = text.substr(0, kMaxShown) + "...";
    return text;
}

// One key of the table: its JSON name, the type as an error message says it ("an integer >= 2"), what it
// does, and how it is read from and written to the struct. `where` is "<source> <key>".
struct Key {
    std::string_view name;
    std::string type;
    std::string_view meaning;
    std::function<Status(AgentConfig&, const json&, const std::string& where)> set;
    std::function<json(const AgentConfig&)> get;
};

Error mustBe(const std::string& where, const std::string& type, const json& value) {
    return invalid(where + ": must be " + type + ", got " + shown(value));
}

Key uintKey(std::string_view name, std::uint64_t AgentConfig::*field, std::uint64_t min,
            std::string_view meaning) {
    std::string type = min == 0 ? "a non-negative integer" : "an integer >= " + std::to_string(min);
    auto set = [field, min, type](AgentConfig& config, const json& value,
                                  const std::string& where) -> Status {
        const auto number = json_fields::asUint(value);
        if (!number || *number < min)
            return mustBe(where, type, value);
        config.*field = *number;
        return Ok{};
    };
    return {name, type, meaning, set, [field](const AgentConfig& config) {
                return json(config.*field);
            }};
}

Key boolKey(std::string_view name, bool AgentConfig::*field, std::string_view meaning) {
    auto set = [field](AgentConfig& config, const json& value, const std::string& where) -> Status {
        if (!value.is_boolean())
            return mustBe(where, "true or false", value);
        config.*field = value.get<bool>();
        return Ok{};
    };
    return {name, "true or false", meaning, set, [field](const AgentConfig& config) {
                return json(config.*field);
            }};
}

template <typename E>
Key choiceKey(std::string_view name, E AgentConfig::*field, std::vector<E> choices,
              std::string_view meaning) {
    std::string type = "one of";
    for (const E choice : choices)
        type += std::string(type == "one of" ? " \"" : ", \"") + std::string(toString(choice)) + "\"";
    auto set = [field, choices, type](AgentConfig& config, const json& value,
                                      const std::string& where) -> Status {
        if (value.is_string()) {
            for (const E choice : choices) {
                if (toString(choice) == value.get<std::string>()) {
                    config.*field = choice;
                    return Ok{};
                }
            }
        }
        return mustBe(where, type, value);
    };
    return {name, type, meaning, set, [field](const AgentConfig& config) {
                return json(std::string(toString(config.*field)));
            }};
}

// A string whose form `valid` checks; `type` says the form in messages.
Key stringKey(std::string_view name, std::string AgentConfig::*field, std::string type,
              bool (*valid)(const std::string&), std::string_view meaning) {
    auto set = [field, type, valid](AgentConfig& config, const json& value,
                                    const std::string& where) -> Status {
        if (!value.is_string() || !valid(value.get<std::string>()))
            return mustBe(where, type, value);
        config.*field = value.get<std::string>();
        return Ok{};
    };
    return {name, type, meaning, set, [field](const AgentConfig& config) {
                return json(config.*field);
            }};
}

Key toolListKey(std::string_view name, std::vector<std::string> AgentConfig::*field, bool alwaysFinish,
                std::string_view meaning, bool mcpNames = false) {
    std::string type = mcpNames ? "an array of tool names (mcp__SERVER__TOOL, mcp__SERVER__* and mcp__* for MCP "
                                  "servers' tools)"
                                : "an array of tool names";
    auto set = [field, alwaysFinish, type, mcpNames](AgentConfig& config, const json& value,
                                                     const std::string& where) -> Status {
        if (!value.is_array())
            return mustBe(where, type, value);
        std::vector<std::string> tools;
        for (const auto& item : value) {
            if (!item.is_string())
                return mustBe(where, type, value);
            const auto tool = item.get<std::string>();
            const auto& known = allToolNames();
            if (std::find(known.begin(), known.end(), tool) == known.end() && !(mcpNames && protocol::isMcpToolPattern(tool)))
                return invalid(where + ": unknown tool \"" + tool + "\" (known: " + joinNames(known) +
                               (mcpNames ? "; an MCP server's: mcp__SERVER__TOOL, mcp__SERVER__*, mcp__*)" : ")"));
            if (std::find(tools.begin(), tools.end(), tool) != tools.end())
                return invalid(where + ": \"" + tool + "\" is listed twice");
            tools.push_back(tool);
        }
        // The model ends a task by calling finish; without it every task would end at max_steps.
        if (alwaysFinish && std::find(tools.begin(), tools.end(), "finish") == tools.end())
            tools.push_back("finish");
        config.*field = std::move(tools);
        return Ok{};
    };
    return {name, type, meaning, set, [field](const AgentConfig& config) {
                return json(config.*field);
            }};
}

// MCP servers by name (DESIGN §13), each as .mcp.json declares one; what an entry holds is the agent's to
// judge when it starts them (an entry it cannot use is skipped with the reason, as in .mcp.json).
Key mcpServersKey(std::string_view name, std::string_view meaning) {
    static constexpr std::size_t kMaxBytes = 256 * 1024; // static: the lambda reads them without a capture
    static constexpr std::size_t kMaxServers = 32;
    const std::string type = "an object of MCP servers by name, each {\"command\", \"args\"?, \"env\"?} or "
                             "{\"type\": \"http\"|\"sse\", \"url\", \"headers\"?}, at most 32 and 256 KiB";
    auto set = [type](AgentConfig& config, const json& value, const std::string& where) -> Status {
        if (!value.is_object() || value.size() > kMaxServers || value.dump().size() > kMaxBytes)
            return mustBe(where, type, value);
        for (const auto& [server, entry] : value.items())
            if (!entry.is_object())
                return invalid(where + ": the server \"" + server + "\" must be an object, got " + shown(entry));
        config.mcpServers = value;
        return Ok{};
    };
    return {name, type, meaning, set, [](const AgentConfig& config) { return config.mcpServers; }};
}

Key hookKey(std::string_view name, std::string_view meaning) {
    const std::string hook(name);
    auto set = [hook](AgentConfig& config, const json& value, const std::string& where) -> Status {
        if (!value.is_string())
            return mustBe(where, "a shell command (\"\" = none)", value);
        if (value.get<std::string>().empty())
            config.hooks.erase(hook);
        else
            config.hooks[hook] = value.get<std::string>();
        return Ok{};
    };
    auto get = [hook](const AgentConfig& config) {
        const auto found = config.hooks.find(hook);
        return json(found == config.hooks.end() ? std::string() : found->second);
    };
    return {name, "a shell command (\"\" = none)", meaning, set, get};
}

bool isAbsolutePath(const std::string& path) {
    return !path.empty() && path.front() == '/';
}

constexpr std::size_t kMaxPathList = 16;

// Absolute paths, none twice, at most kMaxPathList.
Key pathListKey(std::string_view name, std::vector<std::string> AgentConfig::*field,
                std::string_view meaning) {
    const std::string type = "an array of at most " + std::to_string(kMaxPathList) + " absolute paths";
    auto set = [field, type](AgentConfig& config, const json& value, const std::string& where) -> Status {
        if (!value.is_array() || value.size() > kMaxPathList)
            return mustBe(where, type, value);
        std::vector<std::string> paths;
        for (const auto& item : value) {
            if (!item.is_string() || !isAbsolutePath(item.get<std::string>()) ||
                item.get<std::string>().find('\0') != std::string::npos)
                return mustBe(where, type, value);
            if (std::find(paths.begin(), paths.end(), item.get<std::string>()) != paths.end())
                return invalid(where + ": \"" + item.get<std::string>() + "\" is listed twice");
            paths.push_back(item.get<std::string>());
        }
        config.*field = std::move(paths);
        return Ok{};
    };
    return {name, type, meaning, set, [field](const AgentConfig& config) {
                return json(config.*field);
            }};
}

// The control plane stores memories under this prefix; a ".." or an empty segment would let one task's
// prefix reach another's.
bool isMemoryPrefix(const std::string& prefix) {
    if (prefix.empty())
        return true;
    std::size_t start = 0;
    while (true) {
        const auto end = std::min(prefix.find('/', start), prefix.size());
        const auto segment = std::string_view(prefix).substr(start, end - start);
        if (segment.empty() || segment == "." || segment == "..")
            return false;
        for (const char c : segment) {
            const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                 c == '.' || c == '_' || c == '-';
            if (!allowed)
                return false;
        }
        if (end == prefix.size())
            return true;
        start = end + 1;
    }
}

const std::vector<Key>& keys() {
    using C = AgentConfig;
    static const std::vector<Key> table = {
        uintKey("max_steps", &C::maxSteps, 1, "the task stops before step max_steps + 1"),
        uintKey("timeout_per_step_sec", &C::timeoutPerStepSec, 0,
                "a tool still running this long into a step is killed and reported as timed out; 0 = none"),
        uintKey("token_budget", &C::tokenBudget, 0,
                "input + output tokens the task may use; reaching it stops the task; 0 = none"),
        uintKey("idle_sleep_sec", &C::idleSleepSec, 0,
                "a run that has only waited for its user's answer this long sleeps: its sandbox goes until the "
                "answer wakes it (the control plane's; a server's own time, if shorter, wins); 0 = the "
                "control plane's own (the desktop's: never)"),
        uintKey("max_bad_calls", &C::maxBadCalls, 1,
                "tool calls in a row the model gets wrong (arguments not JSON, no such tool, a missing, unknown "
                "or mistyped argument) that stop the task; each is answered with what was wrong"),
        uintKey("max_nudges", &C::maxNudges, 0,
                "replies without a tool call answered with a nudge to go on or call finish before such a reply "
                "ends the task"),
        boolKey("loop_detection", &C::loopDetection, "watch for the same tool call repeated in a row"),
        uintKey("loop_threshold", &C::loopThreshold, 2,
                "that many identical calls in a row warn the model; one more stops the task"),
        uintKey("memory_threshold_mb", &C::memoryThresholdMb, 0,
                "RSS above it fires on_low_memory and sheds caches and history; 0 = off"),
        uintKey("max_memory_mb", &C::maxMemoryMb, 0,
                "RSS still above it after shedding stops the task; 0 = off"),
        uintKey("context_window_limit", &C::contextWindowLimit, 1000,
                "estimated tokens sent per model call; older turns are compacted to stay under it"),
        uintKey("keep_recent_messages", &C::keepRecentMessages, 2,
                "latest messages compaction keeps verbatim"),
        boolKey("compress_history", &C::compressHistory,
                "tool results older than the recent messages are shortened to their first line"),
        choiceKey("compaction_summary", &C::compactionSummary,
                  {CompactionSummary::Model, CompactionSummary::Mechanical},
                  "what replaces the turns compaction cuts: model = a handoff summary the model writes (goal, "
                  "done, pending, state of the code and tests; the mechanical one when that call fails), "
                  "mechanical = the calls made and the first line of each result"),
        uintKey("max_output_tokens", &C::maxOutputTokens, 0,
                "output tokens one model reply may use (reasoning included); 0 = the provider's default"),
        choiceKey("reasoning_effort", &C::reasoningEffort,
                  {ReasoningEffort::Default, ReasoningEffort::Minimal, ReasoningEffort::Low, ReasoningEffort::Medium,
                   ReasoningEffort::High},
                  "how hard the model reasons: OpenAI's reasoning_effort, Anthropic's extended thinking budget; "
                  "default = the model's own (thinking off)"),
        toolListKey("tools", &C::tools, true, "the tools the model may call; finish is always enabled"),
        boolKey("lazy_tools", &C::lazyTools, "a tool is constructed on its first call"),
        uintKey("shell_timeout_sec", &C::shellTimeoutSec, 1, "shell's timeout when a call gives none"),
        uintKey("tool_output_limit_bytes", &C::toolOutputLimitBytes, 256,
                "output one tool call collects (head and tail kept): its memory bound"),
        uintKey("tool_output_limit_tokens", &C::toolOutputLimitTokens, 64,
                "estimated tokens of one tool call's output the model reads (head and tail kept, the cut "
                "marked with how to narrow it)"),
        uintKey("max_subagents", &C::maxSubagents, 0,
                "sub-agents open at once in the task's sandbox (spawn_agent, wait_agents, send_agent, close_agent "
                "are offered when > 0); 0 = none"),
        uintKey("max_agent_depth", &C::maxAgentDepth, 1,
                "how deep sub-agents nest: 1 = only the task's own agent starts them"),
        toolListKey("approval_tools", &C::approvalTools, false,
                    "calls of these tools wait for approval; an MCP server's tool waits when named here, with its "
                    "server (mcp__SERVER__*) or all (mcp__*), and when this names none of them but others",
                    true),
        mcpServersKey("mcp_servers", "MCP servers the task starts besides the workspace's .mcp.json (the same "
                                     "name: this one), as `warren run --mcp-config FILE` gives them"),
        boolKey("execution_cache", &C::executionCache, "results of read-only tool calls are cached"),
        pathListKey("skills_dirs", &C::skillsDirs,
                    "folders of skills (each a folder with a SKILL.md) read after the workspace's "
                    ".warren/skills, .claude/skills and .agents/skills; the control plane mounts the user's "
                    "skills there"),
        choiceKey("memory_backend", &C::memoryBackend,
                  {MemoryBackendKind::InMemory, MemoryBackendKind::Filesystem, MemoryBackendKind::Host},
                  "where memory_save keeps memories: the process, memory_dir, or the control plane"),
        stringKey("memory_dir", &C::memoryDir, "an absolute path", isAbsolutePath,
                  "the filesystem memory backend's root"),
        stringKey("memory_prefix", &C::memoryPrefix,
                  "\"\" or segments of [A-Za-z0-9._-] separated by '/', without \".\" or \"..\"",
                  isMemoryPrefix, "the namespace of this task's memories in the control plane's store"),
        uintKey("auto_save_interval", &C::autoSaveIntervalSec, 0,
                "seconds between writes of saved memories (and at exit); 0 = each save at once"),
        boolKey("semantic_index", &C::semanticIndex, "memory_search ranks full-text matches"),
        choiceKey("log_level", &C::logLevel,
                  {LogLevel::Debug, LogLevel::Info, LogLevel::Warn, LogLevel::Error},
                  "the least severe diagnostics reported"),
        choiceKey("log_format", &C::logFormat, {LogFormat::Text, LogFormat::Json},
                  "text: diagnostics on stderr; json: log events on stdout, nothing on stderr"),
        hookKey("on_task_start", "shell command run in the workspace when the task starts"),
        hookKey("on_step", "shell command run in the workspace after each step"),
        hookKey("on_task_complete", "shell command run in the workspace when the task ends"),
        hookKey("on_low_memory", "shell command run in the workspace when RSS passes memory_threshold_mb"),
        hookKey("on_error", "shell command run in the workspace when the task fails"),
    };
    return table;
}

const Key* findKey(std::string_view name) {
    for (const auto& key : keys()) {
        if (key.name == name)
            return &key;
    }
    return nullptr;
}

Error unknownKey(const std::string& source, const std::string& name) {
    constexpr std::size_t kMaxTypo = 2;
    const Key* closest = nullptr;
    std::size_t best = kMaxTypo + 1;
    for (const auto& key : keys()) {
        const auto distance = editDistance(name, key.name);
        if (distance < best) {
            best = distance;
            closest = &key;
        }
    }
    std::string message = source + ": unknown key \"" + name + "\"";
    if (closest) {
        message += " (did you mean " + std::string(closest->name) + "?)";
    } else {
        std::vector<std::string> names;
        for (const auto& key : keys())
            names.emplace_back(key.name);
        message += " (known: " + joinNames(names) + ")";
    }
    return invalid(message);
}

Status applySettings(AgentConfig& config, const json& settings, const std::string& source) {
    if (settings.is_null())
        return Ok{};
    if (!settings.is_object())
        return invalid(source + ": must be an object of key -> value, got " + shown(settings));
    for (const auto& [name, value] : settings.items()) {
        const Key* key = findKey(name);
        if (!key)
            return unknownKey(source, name);
        if (auto status = key->set(config, value, source + " " + name); !status)
            return status;
    }
    return Ok{};
}

Status applyPreset(AgentConfig& config, const BuiltInPreset& preset) {
    const std::string source = "preset " + std::string(preset.name);
    auto document = json_fields::parseJson(preset.text);
    if (!document)
        return invalid(source + ": not valid JSON: " + document.error().message);
    Error error;
    using json_fields::take;
    std::string description;
    json settings;
    if (!take(json_fields::requireObject(*document, source), error) ||
        !take(json_fields::checkKeys(*document, {"description", "settings"}, source), error) ||
        !take(json_fields::getString(*document, "description", source), description, error) ||
        !take(json_fields::getObject(*document, "settings", source), settings, error))
        return error;
    return applySettings(config, settings, source);
}

} // namespace

std::string_view toString(MemoryBackendKind kind) {
    switch (kind) {
    case MemoryBackendKind::InMemory:
        return "in-memory";
    case MemoryBackendKind::Filesystem:
        return "filesystem";
    case MemoryBackendKind::Host:
        return "host";
    }
    return "filesystem";
}

std::string_view toString(LogFormat format) {
    switch (format) {
    case LogFormat::Text:
        return "text";
    case LogFormat::Json:
        return "json";
    }
    return "text";
}

std::string_view toString(ReasoningEffort effort) {
    switch (effort) {
    case ReasoningEffort::Default:
        return "default";
    case ReasoningEffort::Minimal:
        return "minimal";
    case ReasoningEffort::Low:
        return "low";
    case ReasoningEffort::Medium:
        return "medium";
    case ReasoningEffort::High:
        return "high";
    }
    return "default";
}

std::string_view toString(CompactionSummary summary) {
    return summary == CompactionSummary::Mechanical ? "mechanical" : "model";
}

const std::vector<std::string>& allToolNames() {
    static const std::vector<std::string> names = {"shell",       "read_file",     "write_file",  "edit_file",
                                                   "apply_patch", "list_files",    "search",      "update_plan",
                                                   "memory_save", "memory_load",   "memory_search", "skill",
                                                   "finish"};
    return names;
}

const std::vector<std::string>& hookNames() {
    static const std::vector<std::string> names = {"on_task_start", "on_step", "on_task_complete",
                                                   "on_low_memory", "on_error"};
    return names;
}

std::vector<std::string> presetNames() {
    std::vector<std::string> names;
    for (const auto& preset : builtInPresets())
        names.emplace_back(preset.name);
    std::sort(names.begin(), names.end());
    return names;
}

Result<AgentConfig> resolveConfig(const std::vector<std::string>& presets, const json& overrides) {
    return resolveConfig(presets, overrides, "--set");
}

Result<AgentConfig> resolveConfig(const std::vector<std::string>& presets, const json& overrides,
                                  const std::string& overridesSource) {
    AgentConfig config;
    const auto table = builtInPresets();
    for (const auto& name : presets) {
        const auto preset = std::find_if(table.begin(), table.end(), [&](const BuiltInPreset& candidate) {
            return candidate.name == name;
        });
        if (preset == table.end())
            return invalid("unknown preset \"" + name + "\" (known: " + joinNames(presetNames()) + ")");
        if (auto status = applyPreset(config, *preset); !status)
            return status.error();
    }
    if (auto status = applySettings(config, overrides, overridesSource); !status)
        return status.error();
    return config;
}

Status addOverride(json& overrides, std::string_view keyEqualsValue) {
    // Checked first: the argument is quoted in the other messages, and those must stay valid UTF-8.
    if (const auto bad = firstInvalidUtf8(keyEqualsValue))
        return invalid("--set: the argument is not valid UTF-8 (byte " + std::to_string(*bad + 1) + ")");
    const std::string argument = "--set \"" + std::string(keyEqualsValue) + "\"";
    const auto equals = keyEqualsValue.find('=');
    if (equals == std::string_view::npos)
        return invalid(argument + ": expected KEY=VALUE, e.g. --set max_steps=20");
    const std::string key(keyEqualsValue.substr(0, equals));
    const auto text = keyEqualsValue.substr(equals + 1);
    if (key.empty())
        return invalid(argument + ": the key before '=' is empty");
    if (overrides.is_null())
        overrides = json::object();
    if (!overrides.is_object())
        return invalid(argument + ": overrides must be an object");
    auto parsed = json_fields::parseJson(text);
    overrides[key] = parsed ? std::move(parsed).value() : json(std::string(text));
    return Ok{};
}

json configToJson(const AgentConfig& config) {
    json out = json::object();
    for (const auto& key : keys())
        out[std::string(key.name)] = key.get(config);
    return out;
}

json configForEvents(const AgentConfig& config) {
    json out = configToJson(config);
    for (auto& [name, server] : out["mcp_servers"].items())
        for (const char* variables : {"env", "headers"})
            if (server.is_object() && server.contains(variables) && server[variables].is_object())
                for (auto& [variable, value] : server[variables].items())
                    value = kHiddenSettingValue;
    return out;
}

std::vector<SettingInfo> settingInfos() {
    const AgentConfig defaults;
    std::vector<SettingInfo> infos;
    for (const auto& key : keys())
        infos.push_back({std::string(key.name), key.type, key.get(defaults), std::string(key.meaning)});
    return infos;
}

} // namespace warren::agent
