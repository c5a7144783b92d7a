#include "agent_core/loop/Agent.h"

#include "agent_core/loop/TaskRun.h"

namespace warren::agent {

Agent::Agent(AgentConfig config, AgentSettings settings)
    : m_config(std::move(config)), m_settings(std::move(settings)) {
    m_hooks.setCommands(m_config.hooks);
}

TaskOutcome Agent::run(const AgentPaths& paths, const std::string& taskId, const std::string& prompt,
                       EventLog& events, Cancellation& cancellation, const std::optional<std::string>& reply) {
    if (!m_model)
        return {ExitReason::Failed, "no model: call setModel before run"};
    TaskRun run(RunContext{m_config, m_settings, m_facts, m_hooks, *m_model, m_approver, m_hostCall, paths,
                           events, cancellation});
    return run.run(taskId, prompt, reply);
}

Result<std::unique_ptr<Agent>> createAgent(const std::vector<std::string>& presets,
                                           const nlohmann::json& overrides) {
    auto config = resolveConfig(presets, overrides);
    if (!config)
        return config.error();
    return std::make_unique<Agent>(std::move(config).value(), AgentSettings{presets, overrides});
}

} // namespace warren::agent
