#pragma once
// shell {command, timeout_sec?, workdir?} (DESIGN §4): runs /bin/sh -c COMMAND in the workspace, in its
// own process group, until it exits, times out (timeout_sec, else the agent's shell timeout, never past
// the step's deadline) or a stop is requested. The model reads stdout and stderr interleaved, capped with
// head and tail kept, then the exit code when it is not 0; the whole output streams through
// ToolEnv::onOutput while the command runs.

#include "agent_core/tools/Tool.h"

namespace warren::agent {

class ShellTool : public Tool {
public:
    static protocol::ToolSpec spec();

    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
};

} // namespace warren::agent
