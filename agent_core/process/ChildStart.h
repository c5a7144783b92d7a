#pragma once
// How the agent starts a process of its own (DESIGN §4): in its own process group (its pid names it), with
// stdin from a descriptor the caller gives (or /dev/null) and stdout/stderr on pipes of their own (the
// agent's fd 1 is the protocol channel), nothing else of the agent's inherited, signals at their defaults,
// and SIGKILLed should the agent die first. A tool's process (ProcessRunner) and an MCP server
// (agent_core/mcp/McpConnection) are started so.

#include "common/Result.h"
#include "common/UniqueFd.h"

#include <filesystem>
#include <string>
#include <sys/types.h>
#include <vector>

namespace warren::agent {

struct ChildCommand {
    std::vector<std::string> argv;        // argv[0] looked up in PATH if it has no '/'
    std::filesystem::path workdir;        // empty = the agent's
    std::vector<std::string> environment; // "NAME=VALUE"; empty = inherit the agent's
};

// The started process: its pid names its process group too. The parent's ends of the pipes do not block.
struct StartedChild {
    pid_t pid = -1;
    UniqueFd pidfd; // readable once it exits; invalid on a kernel without pidfd_open
    UniqueFd stdoutPipe;
    UniqueFd stderrPipe;
};

// input: the child's stdin, closed here once the child has it; invalid = /dev/null. An error only when the
// process could not start (no such program, not executable, no such workdir, no fork); the message names
// argv[0] and the reason. The death signal follows the calling thread: start a long-lived child from a
// thread that lives as long as it.
Result<StartedChild> startChild(const ChildCommand& command, UniqueFd input);

} // namespace warren::agent
