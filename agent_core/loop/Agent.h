#pragma once
// The framework's API for programs that embed it (warren-agent is one):
//
//   auto agent = createAgent({"safe-mode"}, {{"max_steps", 20}});
//   agent.value()->onStep([](const HookContext& c) { ... });
//   agent.value()->setModel(std::make_unique<ScriptedLlm>(script));
//   TaskOutcome outcome = agent.value()->run(paths, "t-1", "Make the tests pass", events, cancellation);
//
// The agent knows nothing of users or deployment: whatever differs (memory prefix, limits) comes in the
// settings, the model and the approver are injected.

#include "agent_core/config/AgentConfig.h"
#include "agent_core/host/HostCall.h"
#include "agent_core/llm/Llm.h"
#include "agent_core/loop/EventLog.h"
#include "agent_core/loop/Hooks.h"
#include "agent_core/prompt/SystemPrompt.h"
#include "agent_core/tools/Cancellation.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warren::agent {

struct AgentPaths {
    std::filesystem::path workspace;             // /workspace in the sandbox
    std::optional<std::filesystem::path> state;  // /state: checkpoints; none = the task cannot resume
    std::optional<std::filesystem::path> output; // /output: resource_report.json; none = no report
};

// How a run ended, as task_finished says it (protocol::toString). Waiting: the model replied to the user in
// an attended run (RunFacts::attended); a reply continues it.
using ExitReason = protocol::FinishReason;

struct TaskOutcome {
    ExitReason reason = ExitReason::Failed;
    std::string summary; // finish's summary, or what went wrong
};

// Decides a call that needs approval (approval_tools). An error counts as a denial.
// stop: the asking agent's own stop request (a sub-agent's, which close_agent raises): the wait ends with it.
using Approver = std::function<Result<protocol::ApprovalResult>(const protocol::ApprovalRequestParams&,
                                                                const Cancellation* stop)>;

// What the settings were resolved from, kept with the task (task_started, the checkpoint).
struct AgentSettings {
    std::vector<std::string> presets;
    nlohmann::json overrides = nlohmann::json::object();
};

class Agent {
public:
    Agent(AgentConfig config, AgentSettings settings);

    const AgentConfig& config() const { return m_config; }

    void onTaskStart(HookCallback callback) { m_hooks.setCallback(hook::kOnTaskStart, std::move(callback)); }
    void onStep(HookCallback callback) { m_hooks.setCallback(hook::kOnStep, std::move(callback)); }
    void onTaskComplete(HookCallback callback) {
        m_hooks.setCallback(hook::kOnTaskComplete, std::move(callback));
    }
    void onLowMemory(HookCallback callback) { m_hooks.setCallback(hook::kOnLowMemory, std::move(callback)); }
    void onError(HookCallback callback) { m_hooks.setCallback(hook::kOnError, std::move(callback)); }

    void setModel(std::unique_ptr<Llm> model) { m_model = std::move(model); }
    void setApprover(Approver approver) { m_approver = std::move(approver); }
    // The control plane, for memory_backend host (HostChannel::call).
    void setHostCall(HostCall call) { m_hostCall = std::move(call); }
    // What the control plane says of the run (sandbox, network, provider, model), for the system prompt.
    void setRunFacts(RunFacts facts) { m_facts = std::move(facts); }

    // Runs the task to its end, or resumes it from the checkpoint in paths.state, reporting through events.
    // reply: the user's message to a task whose run ended (finished, waiting, failed, cancelled or paused), added to
    // the checkpoint's conversation before the loop goes on; a task without a checkpoint is refused.
    TaskOutcome run(const AgentPaths& paths, const std::string& taskId, const std::string& prompt,
                    EventLog& events, Cancellation& cancellation,
                    const std::optional<std::string>& reply = std::nullopt);

private:
    AgentConfig m_config;
    AgentSettings m_settings;
    RunFacts m_facts;
    Hooks m_hooks;
    std::unique_ptr<Llm> m_model;
    Approver m_approver;
    HostCall m_hostCall;
};

// Resolves presets (in order) and overrides into an agent; errors name the unknown preset or bad key.
Result<std::unique_ptr<Agent>> createAgent(const std::vector<std::string>& presets,
                                           const nlohmann::json& overrides);

} // namespace warren::agent
