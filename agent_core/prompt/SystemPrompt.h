#pragma once
// The system prompt the model works under: how to work (resources/prompts/system.md), the section for its
// model family where families differ (openai.md, anthropic.md, generic.md), and the facts of this run
// the model cannot see from inside: where the workspace is, the sandbox, the network policy, its tools,
// limits and approvals. When the model is offered apply_patch, how to write a patch (apply_patch.md) follows
// the family's section. Pure: the loop renders it once when a task starts.

#include "agent_core/config/AgentConfig.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

// What the control plane knows of the run (task.start's sandbox, network, provider, model); nullopt: not
// known, as in a standalone run.
struct RunFacts {
    std::optional<std::string> sandbox;  // "bwrap", "podman", "docker", "kube", ...
    std::optional<std::string> network;  // "none", "loopback", "allow:HOST[,HOST...]"
    std::optional<std::string> provider; // "openai", "anthropic", "ollama", "scripted", ...
    std::optional<std::string> model;    // the model's name
    // A user follows the run (the window, `warren run` on a terminal): a reply without a tool call ends the
    // run and waits for theirs, instead of being nudged (max_nudges).
    bool attended = false;
    friend bool operator==(const RunFacts&, const RunFacts&) = default;
};

// Where the instructions differ: OpenAI's models (the openai provider, or gpt-*, o1..o4, codex* by any
// provider), Anthropic's (the anthropic provider, or claude*), and the rest (local and open-weight models).
enum class ModelFamily { OpenAi, Anthropic, Other };
ModelFamily modelFamily(const RunFacts& facts);
std::string_view toString(ModelFamily family); // "openai", "anthropic", "other"

struct SystemPrompt {
    std::string text;
    std::string version; // "1": from system.md's header, for the log
    ModelFamily family = ModelFamily::Other;
};

// tools: the names the model is offered, finish included, in order.
SystemPrompt renderSystemPrompt(const AgentConfig& config, const RunFacts& facts,
                                const std::vector<std::string>& tools);

// The "This run" section alone, one fact a line (what renderSystemPrompt puts in {{facts}}).
std::string describeRun(const AgentConfig& config, const RunFacts& facts, const std::vector<std::string>& tools);

} // namespace warren::agent
