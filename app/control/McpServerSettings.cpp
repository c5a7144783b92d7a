#include "app/control/McpServerSettings.h"

#include "agent_core/mcp/McpServers.h"
#include "common/JsonFields.h"

namespace warren::control {

namespace {

using nlohmann::json;

// The agent's reason reads "server \"NAME\" skipped: WHY"; here nothing is skipped, the entry is refused.
std::string refusal(std::string message) {
    constexpr std::string_view kSkipped = " skipped: ";
    if (const auto at = message.find(kSkipped); message.starts_with("server ") && at != std::string::npos)
        message.replace(at, kSkipped.size(), ": ");
    return "MCP " + message;
}

Status invalid(std::string message) {
    return makeError(ErrorCode::InvalidArgument, std::move(message));
}

// Text that is not UTF-8 (it cannot come from the window or a file the agent's reader took) is replaced
// rather than thrown over.
std::string dumped(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace

Status checkMcpServer(const std::string& name, const json& entry) {
    auto list = agent::checkMcpServers(dumped(json{{"mcpServers", {{name, entry}}}}));
    if (!list)
        return invalid("MCP server \"" + name + "\": " + list.error().message);
    if (!list->skipped.empty())
        return invalid(refusal(list->skipped.front()));
    return Ok{};
}

Status checkMcpServerSettings(const json& servers) {
    if (!servers.is_object())
        return invalid("MCP servers: expected an object of servers by name");
    if (servers.size() > agent::kMaxMcpServers)
        return invalid("MCP servers: " + std::to_string(servers.size()) + " servers, more than " +
                       std::to_string(agent::kMaxMcpServers) + "; remove some");
    if (dumped(servers).size() > kMaxMcpServerSettingsBytes)
        return invalid("MCP servers: more than " + std::to_string(kMaxMcpServerSettingsBytes / 1024) +
                       " KiB in all; remove some");
    for (const auto& [name, entry] : servers.items())
        if (auto valid = checkMcpServer(name, entry); !valid)
            return valid;
    return Ok{};
}

Result<McpImport> readMcpImport(std::string_view document) {
    if (document.size() > kMaxMcpServerSettingsBytes)
        return makeError(ErrorCode::InvalidArgument,
                         "larger than " + std::to_string(kMaxMcpServerSettingsBytes / 1024) + " KiB");
    auto list = agent::checkMcpServers(document);
    if (!list)
        return list.error();
    McpImport imported;
    imported.refused.reserve(list->skipped.size());
    for (auto& message : list->skipped)
        imported.refused.push_back(refusal(std::move(message)));
    auto parsed = json_fields::parseJson(document); // the agent's reader read it just now
    if (!parsed)
        return parsed.error();
    const json& declared = parsed->at("mcpServers");
    for (const auto& server : list->servers)
        imported.servers[server.name] = declared.at(server.name);
    return imported;
}

json withUsersMcpServers(const json& users, const json& tasks) {
    json servers = users.is_object() ? users : json::object();
    if (tasks.is_object())
        for (const auto& [name, entry] : tasks.items())
            servers[name] = entry;
    return servers;
}

std::string describeMcpServer(const json& entry) {
    if (!entry.is_object())
        return {};
    const auto declared = entry.find("type");
    const std::string type =
        declared != entry.end() && declared->is_string() ? declared->get<std::string>() : "stdio";
    if (type != "stdio") {
        const auto url = entry.find("url");
        return type + " \xC2\xB7 " + (url != entry.end() && url->is_string() ? url->get<std::string>() : "");
    }
    std::string line = type + " \xC2\xB7 ";
    if (const auto command = entry.find("command"); command != entry.end() && command->is_string())
        line += command->get<std::string>();
    if (const auto args = entry.find("args"); args != entry.end() && args->is_array())
        for (const auto& arg : *args)
            if (arg.is_string())
                line += " " + arg.get<std::string>();
    return line;
}

} // namespace warren::control
