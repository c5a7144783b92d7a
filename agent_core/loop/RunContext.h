#pragma once
// What one agent's loop runs with, owned by whoever starts it and outliving the run: Agent::run for the
// task's own agent, AgentTeam for a sub-agent (the task's with its own config, paths, events and stop).
// One parameter where TaskRun, AgentTeam and CallRunner took these ten one by one.

#include "agent_core/loop/Agent.h"

namespace warren::agent {

struct RunContext {
    const AgentConfig& config;
    const AgentSettings& settings;
    const RunFacts& facts;
    const Hooks& hooks;
    Llm& model;
    const Approver& approver;
    const HostCall& hostCall;
    AgentPaths paths;
    EventLog& events;
    Cancellation& cancellation;
};

} // namespace warren::agent
