#include "server/api/ProviderKeysApi.h"

#include "app/wire/ProviderKeyBody.h"
#include "server/accounts/AccountStore.h"
#include "server/api/Authentication.h"
#include "server/api/HttpErrors.h"
#include "server/api/OwnedTask.h"
#include "server/api/ProviderKeyRequest.h"
#include "server/api/ServerParts.h"

namespace warren::server {

using accounts::Account;
using http::HttpReply;
using http::HttpRequest;
using nlohmann::json;

namespace {

wire::ProviderKeyList keyList(const std::vector<accounts::ProviderKeyInfo>& keys) {
    wire::ProviderKeyList list;
    for (const auto& key : keys)
        list.keys.push_back({key.provider, key.updatedAt});
    return list;
}

void list(ServerParts& parts, const Account& caller, HttpReply reply) {
    auto keys = parts.accounts.providerKeys(caller.userId);
    if (!keys)
        return reply.send(errorResponse(keys.error()));
    reply.send(jsonResponse(200, keyList(*keys).toJson()));
}

void put(ServerParts& parts, const std::string& secret, const Account& caller, const HttpRequest& request,
         HttpReply reply) {
    const std::string provider = pathParameter(request, "provider");
    if (auto known = checkProviderKeyName(provider); !known)
        return reply.send(errorResponse(known.error()));
    if (secret.empty())
        return reply.send(http::HttpResponse::error(
            409, "provider_keys_disabled",
            "this warrend keeps no user's provider key: its operator has to start it with "
            "--provider-key-secret FILE (docs/SERVER.md); until then tasks use the server-wide key"));
    auto key = wire::ProviderKeyBody::fromJson(
        std::string_view(request.body.constData(), static_cast<std::size_t>(request.body.size())));
    if (!key)
        return reply.send(errorResponse(key.error()));
    auto stored = parts.accounts.setProviderKey(caller.userId, provider, key->key, secret);
    if (!stored)
        return reply.send(errorResponse(stored.error()));
    reply.send(jsonResponse(200, {{"provider", stored->provider}, {"updated_at", stored->updatedAt}}));
}

void remove(ServerParts& parts, const Account& caller, const HttpRequest& request, HttpReply reply) {
    const std::string provider = pathParameter(request, "provider");
    auto removed = parts.accounts.removeProviderKey(caller.userId, provider);
    if (!removed)
        return reply.send(errorResponse(removed.error()));
    if (!*removed)
        return reply.send(notFound("a key of yours for " + provider));
    reply.send(noContent());
}

} // namespace

void addProviderKeyRoutes(http::Router& router, ServerParts& parts, const std::string& secret) {
    const auto route = [&](const char* method, const char* pattern, CallerHandler handler,
                           http::RouteOptions options = {}) {
        addCallerRoute(router, parts.accounts, method, pattern, std::move(handler), options);
    };
    route("GET", "/v1/me/provider-keys",
          [&parts](const Account& caller, const HttpRequest&, HttpReply reply) {
              list(parts, caller, std::move(reply));
          });
    // A body a little larger than the longest key's: anything larger is no key (413).
    route(
        "PUT", "/v1/me/provider-keys/{provider}",
        [&parts, &secret](const Account& caller, const HttpRequest& request, HttpReply reply) {
            put(parts, secret, caller, request, std::move(reply));
        },
        http::RouteOptions{static_cast<qint64>(wire::kMaxProviderKeyBytes) + 1024, false});
    route("DELETE", "/v1/me/provider-keys/{provider}",
          [&parts](const Account& caller, const HttpRequest& request, HttpReply reply) {
              remove(parts, caller, request, std::move(reply));
          });
}

} // namespace warren::server
