#pragma once
// warren-agent's supervisor of a coding-agent CLI (task.start's cli; docs/AGENT.md "A CLI agent"): the CLI
// runs in the task's sandbox in its structured mode, talks to the model through a forwarder from
// 127.0.0.1 to the control plane's model proxy socket with the task token as its key, and its stream
// becomes Warren's events (ClaudeStream, CodexStream; CodexAppServer for a Codex task that asks). Its session
// is kept in the state directory, so a later start (after a kill, or with the user's reply) continues it. A
// call the task's approval_tools name waits for the approver (approval_requested, approval_resolved), as
// Warren's own agent's do. A stop from
// the control plane kills the CLI's process group at once.

#include "agent_core/loop/Agent.h"
#include "agent_core/loop/EventLog.h"
#include "agent_core/net/ControlConnection.h"
#include "agent_core/protocol/Methods.h"
#include "agent_core/tools/Cancellation.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warren::agent {

struct CliTask {
    std::string taskId;
    std::string prompt;
    std::vector<std::string> presets;        // recorded in task_started; the CLI's own settings rule its run
    std::optional<std::string> reply;        // the user's reply to a run that ended: continues the session
    std::string token;                       // the CLI's API key
    std::optional<std::uint16_t> egressPort; // the egress forwarder's port, when there is one
    // The address the agent connected to its control plane at (--connect tcp:...): where a cluster's pod
    // reaches the model proxy when task.start names no model socket. nullopt: stdin, or a Unix socket.
    std::optional<ControlAddress> controlPlane;
    // Answers the CLI's asks to run a call that approval_tools names (cli.approvalTools); null: each is
    // denied.
    Approver approver;
};

// Runs the CLI to its end and emits the task's events through events (begun here: the seq mark is the
// state directory's). Ends with task_finished whatever happens; the outcome says how.
TaskOutcome runCliAgent(const protocol::CliAgentParams& cli, const CliTask& task, const AgentPaths& paths,
                        EventLog& events, Cancellation& cancellation);

} // namespace warren::agent
