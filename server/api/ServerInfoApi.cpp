#include "server/api/ServerInfoApi.h"

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
    reply.send(jsonResponse(200, {{"user", caller.userName},
                                  {"tenant", caller.tenantName},
                                  {"quotas",
                                   {{"user", accounts::limitsToJson(quotas->user)},
                                    {"tenant", accounts::limitsToJson(quotas->tenant)}}},
                                  {"usage", {{"active_tasks", *active}, {"tokens_this_month", *tokens}}}}));
}

} // namespace

void addServerInfoRoutes(http::Router& router, ServerParts& parts) {
    router.add("GET", "/v1/server", [&parts](const http::HttpRequest&, http::HttpReply reply) {
        reply.send(jsonResponse(200, {{"name", "warrend"},
                                      {"version", WARREN_VERSION},
                                      {"api_version", kApiVersion},
                                      {"sandbox", sandbox::backendName(parts.options.backend)}}));
    });
    router.add("GET", "/v1/me",
               authenticated(parts.accounts,
                             [&parts](const accounts::Account& caller, const http::HttpRequest&,
                                      http::HttpReply reply) { me(parts, caller, std::move(reply)); }));
}

} // namespace warren::server
