#include "server/api/HostSecretsApi.h"

#include "app/egress/InsideDestinations.h"
#include "app/secretproxy/HostSecret.h"
#include "app/wire/HostSecretBody.h"
#include "server/accounts/AccountStore.h"
#include "server/api/Authentication.h"
#include "server/api/HttpErrors.h"
#include "server/api/OwnedTask.h"
#include "server/api/ServerParts.h"

#include <algorithm>

namespace warren::server {

using accounts::Account;
using http::HttpReply;
using http::HttpRequest;
using nlohmann::json;

namespace {

wire::HostSecretEntry entry(const accounts::HostSecretInfo& info) {
    return {info.name, info.hosts, info.header, info.updatedAt, info.inBody,
            info.tenants ? wire::SecretScope::Tenant : wire::SecretScope::User};
}

void list(ServerParts& parts, const Account& caller, HttpReply reply) {
    auto secrets = parts.accounts.hostSecrets(caller.userId);
    if (!secrets)
        return reply.send(errorResponse(secrets.error()));
    wire::HostSecretList answer;
    for (const auto& info : *secrets)
        answer.secrets.push_back(entry(info));
    reply.send(jsonResponse(200, answer.toJson()));
}

void put(ServerParts& parts, const std::string& secret, const Account& caller, const HttpRequest& request,
         HttpReply reply) {
    if (secret.empty())
        return reply.send(http::HttpResponse::error(
            409, "secrets_disabled",
            "this warrend keeps no user's secret: its operator has to start it with --provider-key-secret FILE "
            "(docs/SERVER.md)"));
    auto body = wire::HostSecretBody::fromJson(
        std::string_view(request.body.constData(), static_cast<std::size_t>(request.body.size())));
    if (!body)
        return reply.send(errorResponse(body.error()));
    auto hostSecret = control::makeHostSecret(pathParameter(request, "name"), body->hosts, body->header, body->value);
    if (!hostSecret)
        return reply.send(errorResponse(hostSecret.error()));
    hostSecret->inBody = body->inBody;
    // A secret for a host inside the server's own networks would take a task there: the operator's word only.
    const control::TaskNetwork hosts{control::TaskNetwork::Kind::Allow, hostSecret->hosts};
    if (auto inside = control::checkAllowListInside(hosts, parts.options.insideAccess()); !inside)
        return reply.send(errorResponse(inside.error()));
    auto stored = parts.accounts.setHostSecret(caller.userId, *hostSecret, secret);
    if (!stored)
        return reply.send(errorResponse(stored.error()));
    reply.send(jsonResponse(200, wire::HostSecretList{{entry(*stored)}}.toJson()["secrets"][0]));
}

void remove(ServerParts& parts, const Account& caller, const HttpRequest& request, HttpReply reply) {
    const std::string name = pathParameter(request, "name");
    auto removed = parts.accounts.removeHostSecret(caller.userId, name);
    if (!removed)
        return reply.send(errorResponse(removed.error()));
    if (!*removed) {
        // A name only the tenant has is the operator's to remove; the caller may see it, so may be told.
        auto secrets = parts.accounts.hostSecrets(caller.userId);
        if (secrets && std::any_of(secrets->begin(), secrets->end(), [&](const auto& info) { return info.name == name; }))
            return reply.send(http::HttpResponse::error(
                409, "tenant_secret",
                QString::fromStdString("the secret " + name + " is your tenant's, set by the server's operator: only "
                                       "they remove it (warrend admin delete-secret); a secret of yours of that "
                                       "name would be used before it")));
        return reply.send(notFound("a secret of yours named " + name));
    }
    reply.send(noContent());
}

} // namespace

void addHostSecretRoutes(http::Router& router, ServerParts& parts, const std::string& secret) {
    const auto route = [&](const char* method, const char* pattern, CallerHandler handler,
                           http::RouteOptions options = {}) {
        addCallerRoute(router, parts.accounts, method, pattern, std::move(handler), options);
    };
    route("GET", "/v1/me/secrets",
          [&parts](const Account& caller, const HttpRequest&, HttpReply reply) { list(parts, caller, std::move(reply)); });
    route(
        "PUT", "/v1/me/secrets/{name}",
        [&parts, &secret](const Account& caller, const HttpRequest& request, HttpReply reply) {
            put(parts, secret, caller, request, std::move(reply));
        },
        http::RouteOptions{static_cast<qint64>(wire::kMaxHostSecretBodyBytes), false});
    route("DELETE", "/v1/me/secrets/{name}", [&parts](const Account& caller, const HttpRequest& request, HttpReply reply) {
        remove(parts, caller, request, std::move(reply));
    });
}

} // namespace warren::server
