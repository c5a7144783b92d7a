#pragma once
// Where the warren-agent binary is, which the control plane mounts read-only into each task's sandbox.

#include "common/Result.h"

#include <string>

namespace warren::control {

// The warren-agent binary: $WARREN_AGENT, else beside this program, else the build tree's
// agent_core/warren-agent, else <prefix>/lib/warren/warren-agent. An error says where it looked.
Result<std::string> findAgentBinary(const std::string& programDir);

// The agent's binary named by the user (relative paths from the current directory; namedBy: where it was
// named, for the error), as the absolute host path the sandbox mounts.
Result<std::string> namedAgentBinary(const std::string& path, const std::string& namedBy);

} // namespace warren::control
