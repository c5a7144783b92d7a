#pragma once
// Which agent of a task is writing which workspace file, so that two agents sharing the workspace never
// write the same path at once. The writing tools (write_file, edit_file, apply_patch: pathsWrittenBy) claim
// their paths before they run; a claim another agent holds makes the call a conflict the model reads (naming
// the holder), never a lost write. A sub-agent keeps its claims until it ends; the task's own agent (the
// coordinator) only for the call.
// Thread-safe: every agent's loop asks it.

#include "agent_core/protocol/ToolCall.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace warren::agent {

class PathClaims {
public:
    // The agent's claim on path (relative to the workspace, normalised): nullopt when it holds it now (it
    // did already, or nobody did), else the agent that holds it. Agent "" is the task's own agent.
    std::optional<std::string> claim(const std::string& agent, const std::string& path);
    void release(const std::string& agent, const std::string& path);
    void releaseAll(const std::string& agent);
    // The paths the agent holds, sorted.
    std::vector<std::string> heldBy(const std::string& agent) const;

private:
    mutable std::mutex m_mutex;
    std::map<std::string, std::string> m_holder; // path -> agent
};

// The workspace paths a tool call writes, as the model wrote them: write_file's and edit_file's path,
// apply_patch's files and the targets of its moves. None for other tools (shell's writes are not known
// beforehand) and for arguments the tool itself will refuse.
std::vector<std::string> pathsWrittenBy(const protocol::ToolCall& call);

} // namespace warren::agent
