#include "agent_core/prompt/SystemPrompt.h"

#include "agent_core/prompt/PromptText.h"
#include "agent_core/tools/WorkspacePath.h"

#include <algorithm>
#include <cctype>

// The prompt's parts, embedded from resources/prompts by prompt/CMakeLists.txt.
namespace warren::resources {
extern const std::string_view promptSystemMd;
extern const std::string_view promptOpenAiMd;
extern const std::string_view promptAnthropicMd;
extern const std::string_view promptGenericMd;
extern const std::string_view promptApplyPatchMd;
} // namespace warren::resources

namespace warren::agent {

namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

bool startsWithAny(const std::string& text, std::initializer_list<std::string_view> prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&](std::string_view prefix) { return std::string_view(text).starts_with(prefix); });
}

void replaceAll(std::string& text, std::string_view placeholder, std::string_view value) {
    for (auto at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
        text.replace(at, placeholder.size(), value);
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

std::string sandboxLine(const std::optional<std::string>& sandbox) {
    const std::string what = !sandbox                 ? std::string()
                             : *sandbox == "bwrap"    ? "bubblewrap with a seccomp filter"
                             : *sandbox == "podman"   ? "a Podman container with a seccomp filter"
                             : *sandbox == "docker"   ? "a Docker container with a seccomp filter"
                                                      : *sandbox;
    if (what.empty())
        return "- Sandbox: not stated for this run; treat the machine as the developer's own and be as careful.";
    return "- Sandbox: " + what + ". You are an unprivileged user without root; only the workspace and /tmp "
           "(discarded at the end) are writable, and the rest of the system is read-only. You cannot install "
           "system packages; use what is there.";
}

std::string networkLine(const std::optional<std::string>& network) {
    if (!network)
        return "- Network: not stated; do not rely on it.";
    if (*network == "none" || *network == "loopback")
        return "- Network: none" + std::string(*network == "loopback" ? " (loopback only)" : "") +
               ". Commands cannot reach the internet: no package downloads, no git fetch; work offline with what "
               "is installed and in the workspace.";
    if (network->starts_with("allow:"))
        return "- Network: only these hosts, through a proxy the environment's HTTP(S)_PROXY points at: " +
               network->substr(6) + ". Anything else is refused.";
    return "- Network: " + *network + ".";
}

} // namespace

ModelFamily modelFamily(const RunFacts& facts) {
    const std::string provider = lower(facts.provider.value_or(""));
    std::string model = lower(facts.model.value_or(""));
    if (const auto slash = model.rfind('/'); slash != std::string::npos)
        model = model.substr(slash + 1); // OpenRouter's "anthropic/claude-sonnet-4", "openai/gpt-5"
    if (provider == "anthropic" || model.starts_with("claude"))
        return ModelFamily::Anthropic;
    if (provider == "openai" || startsWithAny(model, {"gpt-", "o1", "o3", "o4", "codex"}))
        return ModelFamily::OpenAi;
    return ModelFamily::Other;
}

std::string_view toString(ModelFamily family) {
    switch (family) {
    case ModelFamily::OpenAi:
        return "openai";
    case ModelFamily::Anthropic:
        return "anthropic";
    case ModelFamily::Other:
        return "other";
    }
    return "other";
}

std::string describeRun(const AgentConfig& config, const RunFacts& facts, const std::vector<std::string>& tools) {
    std::string out;
    out += "- Workspace: " + std::string(kSandboxWorkspace) +
           ", the developer's project. Relative paths resolve there and commands start there.\n";
    out += sandboxLine(facts.sandbox) + "\n";
    out += networkLine(facts.network) + "\n";
    out += "- Tools: " + joined(tools) + ".\n";
    if (facts.attended)
        out += "- User: the developer follows this run, so here a question does get an answer. A reply without "
               "a tool call ends your turn: it is shown to them and the task goes on with their answer. Ask only "
               "what you cannot decide or find out yourself; when the task is done and checked, call finish.\n";
    std::string limits = "at most " + std::to_string(config.maxSteps) +
                         " steps (a step is one reply of yours and its tool calls)";
    if (config.tokenBudget)
        limits += ", " + std::to_string(config.tokenBudget) + " tokens in all";
    if (config.timeoutPerStepSec)
        limits += ", " + std::to_string(config.timeoutPerStepSec) + " s per step";
    limits += "; a shell command is stopped after " + std::to_string(config.shellTimeoutSec) +
              " s unless its timeout_sec says otherwise (start nothing that never ends, such as a server or a "
              "watcher, without a timeout); the output of one call you read is cut at about " +
              std::to_string(config.toolOutputLimitTokens) + " tokens";
    out += "- Limits: " + limits + ".\n";
    if (!config.approvalTools.empty())
        out += "- Approval: calls of " + joined(config.approvalTools) +
               " wait for the developer's approval. A denied call comes back with their note: respect it and "
               "find another way.\n";
    out += "- Project instructions (AGENTS.md and the like), when the project has them, come in the next "
           "message. Follow them; a deeper directory's file wins over a higher one, and the task wins over both.";
    return out;
}

SystemPrompt renderSystemPrompt(const AgentConfig& config, const RunFacts& facts,
                                const std::vector<std::string>& tools) {
    SystemPrompt prompt;
    prompt.family = modelFamily(facts);
    prompt.version = versionOf(resources::promptSystemMd);
    const std::string_view section = prompt.family == ModelFamily::OpenAi      ? resources::promptOpenAiMd
                                     : prompt.family == ModelFamily::Anthropic ? resources::promptAnthropicMd
                                                                               : resources::promptGenericMd;
    prompt.text = std::string(withoutHeader(resources::promptSystemMd));
    replaceAll(prompt.text, "{{facts}}", describeRun(config, facts, tools));
    std::string family(withoutHeader(section));
    if (std::find(tools.begin(), tools.end(), "apply_patch") != tools.end()) {
        while (!family.empty() && family.back() == '\n')
            family.pop_back();
        family += "\n\n" + std::string(withoutHeader(resources::promptApplyPatchMd));
    }
    replaceAll(prompt.text, "{{family}}", family);
    while (!prompt.text.empty() && prompt.text.back() == '\n')
        prompt.text.pop_back();
    return prompt;
}

} // namespace warren::agent
