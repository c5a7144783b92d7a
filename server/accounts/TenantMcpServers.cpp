#include "server/accounts/TenantMcpServers.h"

#include "agent_core/mcp/McpServers.h"

#include <functional>

namespace warren::accounts {

using nlohmann::json;

namespace {

Error invalid(const std::string& why) {
    return makeError(ErrorCode::InvalidArgument, why);
}

// Every ${NAME} the servers' strings refer to, standing for itself: the agent expands them in the sandbox
// from its own environment, which is not this process's. A reference is no reason to skip a server here.
agent::Environment referencedVariables(const json& value) {
    agent::Environment variables;
    const std::function<void(const json&)> visit = [&](const json& node) {
        if (node.is_string()) {
            for (const std::string& name : agent::expandVariables(node.get<std::string>(), {}).missing)
                variables.emplace(name, "${" + name + "}");
        } else if (node.is_structured()) {
            for (const auto& item : node)
                visit(item);
        }
    };
    visit(value);
    return variables;
}

} // namespace

Result<json> readTenantMcpServers(std::string_view document) {
    if (document.size() > agent::kMaxMcpConfigBytes)
        return invalid("the file has " + std::to_string(document.size()) + " bytes, more than " +
                       std::to_string(agent::kMaxMcpConfigBytes));
    const json parsed = json::parse(document, nullptr, false);
    const json servers =
        parsed.is_object() && parsed.contains("mcpServers") ? parsed["mcpServers"] : json(nullptr);
    auto list = agent::parseMcpServers(document, referencedVariables(servers));
    if (!list)
        return list.error();
    if (!list->skipped.empty()) {
        std::string skipped;
        for (const std::string& message : list->skipped)
            skipped += (skipped.empty() ? "" : "; ") + message;
        return invalid(skipped + " (the agent would leave it out: fix or remove it)");
    }
    if (list->servers.empty())
        return invalid("\"mcpServers\" declares no server (delete-mcp-servers removes the tenant's)");
    if (servers.dump().size() > kMaxTenantMcpServersBytes)
        return invalid("\"mcpServers\" takes " + std::to_string(servers.dump().size()) +
                       " bytes as JSON, more than " + std::to_string(kMaxTenantMcpServersBytes) +
                       " a task's mcp_servers setting holds");
    return servers;
}

std::vector<McpServerSummary> summarizeMcpServers(const json& servers) {
    std::vector<McpServerSummary> summaries;
    if (!servers.is_object())
        return summaries;
    for (const auto& [name, entry] : servers.items()) {
        const auto type = entry.is_object() ? entry.find("type") : entry.end();
        summaries.push_back({name, entry.is_object() && type != entry.end() && type->is_string()
                                       ? type->get<std::string>()
                                       : std::string("stdio")});
    }
    return summaries;
}

} // namespace warren::accounts
