#include "app/cli/McpConfigFile.h"

namespace warren::cli {

Status addMcpConfig(nlohmann::json& servers, std::string_view text, const std::string& where) {
    const auto bad = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument,
                         "--mcp-config " + where + ": " + why +
                             R"( (write {"mcpServers": {"NAME": {"command": "...", "args": [...]}}}))");
    };
    if (text.size() > kMaxMcpConfigFileBytes)
        return bad("larger than " + std::to_string(kMaxMcpConfigFileBytes / 1024) + " KiB");
    const auto document = nlohmann::json::parse(text, nullptr, false);
    if (document.is_discarded() || !document.is_object())
        return bad("not a JSON object");
    const auto declared = document.find("mcpServers");
    if (declared == document.end() || !declared->is_object())
        return bad("no \"mcpServers\" object");
    for (const auto& [name, server] : declared->items()) {
        if (!server.is_object())
            return bad("the server \"" + name + "\" is not an object");
        servers[name] = server;
    }
    return Ok{};
}

} // namespace warren::cli
