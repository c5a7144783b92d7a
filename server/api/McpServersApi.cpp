#include "server/api/McpServersApi.h"

#include "app/wire/McpServerList.h"
#include "server/accounts/AccountStore.h"
#include "server/accounts/TenantMcpServers.h"
#include "server/api/Authentication.h"
#include "server/api/HttpErrors.h"
#include "server/api/ServerParts.h"

namespace warren::server {

using accounts::Account;
using http::HttpReply;
using http::HttpRequest;

void addMcpServerRoutes(http::Router& router, ServerParts& parts) {
    addCallerRoute(router, parts.accounts, "GET", "/v1/me/mcp-servers",
                   [&parts](const Account& caller, const HttpRequest&, HttpReply reply) {
                       auto servers = parts.accounts.usersTenantMcpServers(caller.userId);
                       if (!servers)
                           return reply.send(errorResponse(servers.error()));
                       wire::McpServerList answer;
                       for (const auto& server : accounts::summarizeMcpServers(*servers))
                           answer.servers.push_back({server.name, server.transport, "tenant"});
                       reply.send(jsonResponse(200, answer.toJson()));
                   });
}

} // namespace warren::server
