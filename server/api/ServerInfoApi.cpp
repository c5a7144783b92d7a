#include "server/api/ServerInfoApi.h"

#include "app/wire/ServerAnswers.h"
#include "sandbox/Backend.h"
#include "server/accounts/AccountStore.h"
#include "server/api/Authentication.h"
#include "server/api/HttpErrors.h"
#include "server/api/ServerParts.h"

namespace warren::server {

using nlohmann::json;

namespace {

void me(ServerParts& parts, const accounts::Account& caller, http::HttpReply reply) {
    auto quotas = parts.accounts.quotas(caller.userId);
    auto active = parts.accounts.activeTasks(caller.userId);
    auto tokens = parts.accounts.tokensUsed(caller.userId);
    if (!quotas || !active || !tokens)
        return reply.send(errorResponse(!quotas   ? quotas.error()
                                        : !active ? active.error()
                                                  : tokens.error()));
    const wire::Me answer{caller.userName, caller.tenantName,
                          {{"user", accounts::limitsToJson(quotas->user)},
                           {"tenant", accounts::limitsToJson(quotas->tenant)}},
                          *active, *tokens};
    reply.send(jsonResponse(200, answer.toJson()));
}

} // namespace

void addServerInfoRoutes(http::Router& router, ServerParts& parts) {
    router.add("GET", "/v1/server", [&parts](const http::HttpRequest&, http::HttpReply reply) {
        const wire::ServerInfo info{"warrend", WARREN_VERSION, kApiVersion, sandbox::backendName(parts.options.backend)};
        reply.send(jsonResponse(200, info.toJson()));
    });
    // For a load balancer or a readiness probe: this replica can reach the database (every request needs it).
    router.add("GET", "/v1/ready", [&parts](const http::HttpRequest&, http::HttpReply reply) {
        auto version = parts.accounts.schemaVersion();
        if (!version)
            return reply.send(errorResponse(version.error()));
        reply.send(jsonResponse(200, {{"ready", true}}));
    });
    router.add("GET", "/v1/me",
               authenticated(parts.accounts,
                             [&parts](const accounts::Account& caller, const http::HttpRequest&,
                                      http::HttpReply reply) { me(parts, caller, std::move(reply)); }));
}

} // namespace warren::server
