#pragma once
// The task's MCP servers (DESIGN §13): those its workspace's .mcp.json declares, started when the task's
// run starts (all at once, then each asked for its tools), their tools offered as mcp__SERVER__TOOL, their
// lists read again when a server says they changed, all closed when the run ends: stdio servers as the
// agent's children, remote ones (http, sse) through the sandbox's way out. Nothing here fails the task: a file that cannot
// be read, an entry or a tool left out, a server that does not start or that stops are notices the loop
// reports (a non-fatal error event for what failed, a warning for what was left out, an info line for what
// started: log events whatever log_format says), and the task goes on with the tools it has.

#include "agent_core/mcp/McpConnection.h"
#include "agent_core/mcp/McpServers.h"
#include "agent_core/tools/Tool.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace warren::agent {

inline constexpr const char* kMcpConfigFile = ".mcp.json"; // in the workspace's root
// How long the servers have to start and list their tools (an npx download among them).
inline constexpr std::chrono::seconds kMcpStartTimeout{60};

struct McpNotice {
    enum class Kind {
        Info,    // a server started, its tools changed
        Skipped, // an entry, a remote server or a tool left out, and why
        Failed,  // the file could not be read, a server did not start or stopped
    };
    Kind kind = Kind::Info;
    std::string message;
};

// This process's environment, NAME -> VALUE: what ${VAR} reads and what a server starts with.
Environment processEnvironment();

class McpServerSet {
public:
    using Deadline = std::chrono::steady_clock::time_point;

    // configured (the mcp_servers setting: the user's) and workspace/.mcp.json's (none there: none), a name
    // in both the configured one's; starts their stdio servers in the workspace with environment and lists
    // their tools, by deadline (a stop gives up on what is not done).
    McpServerSet(const nlohmann::json& configured, const std::filesystem::path& workspace,
                 const Environment& environment, Deadline deadline, const Cancellation* stop);
    ~McpServerSet(); // closes every server: stdin closed on all first, so they exit together
    McpServerSet(const McpServerSet&) = delete;
    McpServerSet& operator=(const McpServerSet&) = delete;

    // The tools of the servers that started, as the registry takes them.
    std::vector<ToolEntry> toolEntries() const;

    // The tools of one server, read again: those named before are replaced by entries.
    struct Change {
        std::vector<std::string> before;
        std::vector<ToolEntry> entries;
    };
    // Looks at each server without waiting: answers what it asked, notes one that stopped (a notice), and
    // reads again the list of each that said its tools changed.
    std::vector<Change> refresh(Deadline deadline, const Cancellation* stop);

    std::vector<McpNotice> takeNotices();

private:
    struct Server {
        std::unique_ptr<McpConnection> connection;
        std::vector<ToolEntry> entries;
        bool stopReported = false;
    };

    void start(const McpServerList& list, const Environment& environment,
               const std::filesystem::path& workdir, Deadline deadline, const Cancellation* stop);
    // The server's tools as entries; false when its list could not be read (a notice says why).
    bool listTools(Server& server, Deadline deadline, const Cancellation* stop);

    std::vector<Server> m_servers;
    std::vector<McpNotice> m_notices;
};

} // namespace warren::agent
