#pragma once
// The scripted model (DESIGN §4): a JSON file of model turns served in order instead of a real model, for
// the offline demo, tests and benchmarks. One parser for warren-agent standalone and the control plane's
// scripted provider, so a script that works in one works in the other.
//
//   {"turns": [{"content": "...", "tool_calls": [{"name": "shell", "arguments": {"command": "ls"}}],
//               "usage": {"input": 120, "output": 14}}],
//    "agents": {"agent-1": [turns...]}, "pace_ms": 900}
// "agents" (optional) scripts sub-agents: each one's turns, by its id, served by the turns of its own
// conversation. "pace_ms" (optional, default 0) is how long each turn takes to arrive, its text streamed
// over that time: a script a person watches (the demo) shows an agent at work rather than ending at once.

#include "agent_core/protocol/TokenUsage.h"
#include "agent_core/protocol/ToolCall.h"
#include "common/Result.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::protocol {

struct ScriptTurn {
    std::string content;
    std::vector<ToolCall> toolCalls; // ids are "call_<turn>_<index>" unless the script gives one
    std::optional<TokenUsage> usage; // what the turn reports as consumed; nullopt: the script did not say
    friend bool operator==(const ScriptTurn&, const ScriptTurn&) = default;
};

struct Script {
    std::string origin; // the file it came from, for error messages
    std::vector<ScriptTurn> turns;
    std::map<std::string, std::vector<ScriptTurn>> agents; // a sub-agent's turns, by its id
    std::chrono::milliseconds pace{0};                     // how long each turn takes to arrive
    friend bool operator==(const Script&, const Script&) = default;

    // The turns of agent (nullopt: the task's own); null when the script has none for it.
    const std::vector<ScriptTurn>* turnsOf(const std::optional<std::string>& agent) const;
};

// Errors start with origin and name the turn and key: "demo.json: turns[2].tool_calls[0].arguments: ...".
Result<Script> parseScript(std::string_view json, std::string origin);

} // namespace warren::protocol
