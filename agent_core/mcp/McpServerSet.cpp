#include "agent_core/mcp/McpServerSet.h"

#include "agent_core/mcp/McpHttpConnection.h"
#include "agent_core/mcp/McpStdioConnection.h"
#include "agent_core/mcp/McpTool.h"
#include "agent_core/protocol/SetupNotices.h"
#include "common/FileText.h"

#include <algorithm>
#include <utility>

extern char** environ;

namespace warren::agent {

namespace {

std::vector<std::string> asEntries(const Environment& environment) {
    std::vector<std::string> entries;
    for (const auto& [name, value] : environment)
        entries.push_back(name + "=" + value);
    return entries;
}

std::string described(const McpServerInfo& info) {
    std::string server = info.name.empty()
                             ? std::string()
                             : info.name + (info.version.empty() ? "" : " " + info.version) + ", ";
    return "(" + server + "MCP " + info.protocolVersion + ")";
}

// A stdio server started as the agent's child; a remote one reached the way the sandbox's requests go.
Result<std::unique_ptr<McpConnection>> connect(const McpServer& server, const std::vector<std::string>& environment,
                                               const std::filesystem::path& workdir) {
    if (server.transport == McpTransport::Stdio) {
        auto started = McpStdioConnection::launch(server, environment, workdir);
        if (!started)
            return started.error();
        return std::unique_ptr<McpConnection>(std::move(started).value());
    }
    auto opened = McpHttpConnection::open(server, egressSocketFromEnvironment());
    if (!opened)
        return opened.error();
    return std::unique_ptr<McpConnection>(std::move(opened).value());
}

} // namespace

Environment processEnvironment() {
    Environment environment;
    for (char** entry = environ; entry && *entry; ++entry) {
        const std::string_view text(*entry);
        const std::size_t equals = text.find('=');
        if (equals != std::string_view::npos && equals > 0)
            environment.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
    }
    return environment;
}

McpServerSet::McpServerSet(const nlohmann::json& configured, const std::filesystem::path& workspace,
                           const Environment& environment, Deadline deadline, const Cancellation* stop) {
    McpServerList all;
    const auto add = [&](const std::string& where, const Result<McpServerList>& list) {
        if (!list) {
            m_notices.push_back({McpNotice::Kind::Failed, "MCP servers: " + where + ": " + list.error().message +
                                                              "; none of its servers was started"});
            return;
        }
        for (const auto& message : list->skipped)
            m_notices.push_back({McpNotice::Kind::Skipped, "MCP servers: " + where + ": " + message});
        for (const McpServer& server : list->servers) {
            const bool taken = std::any_of(all.servers.begin(), all.servers.end(),
                                           [&](const McpServer& kept) { return kept.name == server.name; });
            if (taken)
                m_notices.push_back({McpNotice::Kind::Skipped, "MCP servers: " + where + ": server \"" + server.name +
                                                                   "\" skipped: the user's mcp_servers (Settings, "
                                                                   "--mcp-config) has one of that name, which is used"});
            else if (all.servers.size() < kMaxMcpServers)
                all.servers.push_back(server);
        }
    };
    if (!configured.empty())
        add("mcp_servers", parseMcpServers(nlohmann::json{{"mcpServers", configured}}.dump(), environment));
    const auto path = workspace / kMcpConfigFile;
    if (auto text = readFileText(path))
        add(path.string(), parseMcpServers(*text, environment));
    else if (text.error().code != ErrorCode::NotFound)
        m_notices.push_back({McpNotice::Kind::Failed, "MCP servers: " + text.error().message});
    if (!all.servers.empty())
        start(all, environment, workspace, deadline, stop);
}

McpServerSet::~McpServerSet() {
    for (auto& server : m_servers)
        server.connection->endInput();
    // The entries' tools refer to the connections: gone with them.
    m_servers.clear();
}

void McpServerSet::start(const McpServerList& list, const Environment& environment,
                         const std::filesystem::path& workdir, Deadline deadline, const Cancellation* stop) {
    const auto entries = asEntries(environment);
    for (const auto& server : list.servers) {
        auto connection = connect(server, entries, workdir);
        if (!connection) {
            m_notices.push_back({McpNotice::Kind::Failed, connection.error().message});
            continue;
        }
        m_servers.push_back({std::move(connection).value(), {}, false});
    }
    // Started together, each is asked in turn: their start-up times overlap.
    std::vector<bool> failed;
    for (auto& server : m_servers) {
        auto info = server.connection->initialize(deadline, stop);
        if (!info) {
            m_notices.push_back({McpNotice::Kind::Failed, info.error().message});
            failed.push_back(true);
            continue;
        }
        const std::string label = protocol::mcpServerLabel(server.connection->name()) + " " + described(*info);
        if (!info->offersTools) {
            m_notices.push_back({McpNotice::Kind::Info, label + " started; it offers no tools"});
            failed.push_back(false);
            continue;
        }
        const bool listed = listTools(server, deadline, stop);
        if (listed)
            m_notices.push_back(
                {McpNotice::Kind::Info,
                 label + " started with " + std::to_string(server.entries.size()) + " tools"});
        failed.push_back(!listed);
    }
    std::vector<Server> started;
    for (std::size_t i = 0; i < m_servers.size(); ++i)
        if (!failed[i])
            started.push_back(std::move(m_servers[i]));
    m_servers = std::move(started); // those that failed are closed
}

bool McpServerSet::listTools(Server& server, Deadline deadline, const Cancellation* stop) {
    McpConnection& connection = *server.connection;
    const std::string label = protocol::mcpServerLabel(connection.name());
    auto listing = connection.listTools(deadline, stop);
    if (!listing) {
        m_notices.push_back(
            {McpNotice::Kind::Failed, label + ": its tools could not be listed: " + listing.error().message});
        return false;
    }
    for (const auto& message : listing->skipped())
        m_notices.push_back({McpNotice::Kind::Skipped, label + ": " + message});
    const auto takenByAnother = [&](const std::string& name) {
        return std::any_of(m_servers.begin(), m_servers.end(), [&](const Server& other) {
            return &other != &server &&
                   std::any_of(other.entries.begin(), other.entries.end(),
                               [&](const ToolEntry& entry) { return entry.spec.name == name; });
        });
    };
    server.entries.clear();
    for (const auto& tool : listing->tools()) {
        auto name = mcpToolName(connection.name(), tool.name);
        if (!name) {
            m_notices.push_back({McpNotice::Kind::Skipped, label + ": " + name.error().message});
            continue;
        }
        if (takenByAnother(*name)) {
            m_notices.push_back({McpNotice::Kind::Skipped, label + ": tool \"" + tool.name + "\" skipped: " +
                                                               *name + " is already another server's tool"});
            continue;
        }
        protocol::ToolSpec spec{*name,
                                tool.description.empty()
                                    ? "Tool " + tool.name + " of the MCP server " + connection.name() + "."
                                    : tool.description,
                                tool.inputSchema};
        server.entries.push_back({std::move(spec), [&connection, tool = tool.name, name = *name] {
                                      return std::make_unique<McpTool>(connection, tool, name);
                                  }});
    }
    return true;
}

std::vector<ToolEntry> McpServerSet::toolEntries() const {
    std::vector<ToolEntry> entries;
    for (const auto& server : m_servers)
        entries.insert(entries.end(), server.entries.begin(), server.entries.end());
    return entries;
}

std::vector<McpServerSet::Change> McpServerSet::refresh(Deadline deadline, const Cancellation* stop) {
    std::vector<Change> changes;
    for (auto& server : m_servers) {
        McpConnection& connection = *server.connection;
        connection.pollIdle();
        if (!connection.isOpen()) {
            // Its tools stay offered: a call says what became of it, so the model does not look for them.
            if (!server.stopReported)
                m_notices.push_back({McpNotice::Kind::Failed, connection.closedReason()});
            server.stopReported = true;
            continue;
        }
        if (!connection.toolsChanged())
            continue;
        std::vector<std::string> before;
        for (const auto& entry : server.entries)
            before.push_back(entry.spec.name);
        if (!listTools(server, deadline, stop))
            continue;
        m_notices.push_back({McpNotice::Kind::Info, protocol::mcpServerLabel(connection.name()) +
                                                        " changed its tools: now " +
                                                        std::to_string(server.entries.size())});
        changes.push_back({std::move(before), server.entries});
    }
    return changes;
}

std::vector<McpNotice> McpServerSet::takeNotices() {
    return std::exchange(m_notices, {});
}

} // namespace warren::agent
