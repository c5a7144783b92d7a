#include "server/api/WebhooksApi.h"

#include "app/wire/WebhookBody.h"
#include "server/accounts/AccountStore.h"
#include "server/api/Authentication.h"
#include "server/api/HttpErrors.h"
#include "server/api/OwnedTask.h"
#include "server/api/ServerIds.h"
#include "server/api/ServerParts.h"
#include "server/api/TaskWebhooks.h"
#include "server/webhooks/WebhookDispatcher.h"
#include "server/webhooks/WebhookPolicy.h"

namespace warren::server {

using accounts::Account;
using http::HttpReply;
using http::HttpRequest;

namespace {

wire::WebhookEntry entry(const accounts::WebhookRecord& hook, const WebhookDispatcher& dispatcher) {
    return {hook.id,        hook.url, wire::splitWebhookEvents(hook.events),
            hook.createdAt, "",       dispatcher.deliveries(hook.id)};
}

void list(ServerParts& parts, const Account& caller, HttpReply reply) {
    auto hooks = parts.accounts.webhooks(caller.userId);
    if (!hooks)
        return reply.send(errorResponse(hooks.error()));
    wire::WebhookList answer;
    for (const auto& hook : *hooks)
        answer.webhooks.push_back(entry(hook, parts.webhooks.dispatcher()));
    reply.send(jsonResponse(200, answer.toJson()));
}

void add(ServerParts& parts, const Account& caller, const HttpRequest& request, HttpReply reply) {
    auto body = wire::WebhookRequest::fromJson(
        std::string_view(request.body.constData(), static_cast<std::size_t>(request.body.size())));
    if (!body)
        return reply.send(errorResponse(body.error()));
    auto url = checkWebhookUrl(body->url, parts.webhooks.access());
    if (!url)
        return reply.send(errorResponse(url.error()));
    accounts::WebhookRecord hook{newWebhookId(),     caller.userId,
                                 body->url,          wire::joinWebhookEvents(body->events),
                                 newWebhookSecret(), ""};
    auto added = parts.accounts.addWebhook(hook, kMaxWebhooksPerUser);
    if (!added)
        return reply.send(errorResponse(added.error()));
    if (!*added)
        return reply.send(http::HttpResponse::error(
            409, "conflict",
            QString::fromStdString("you have " + std::to_string(kMaxWebhooksPerUser) +
                                   " webhooks already, the most one user may have: remove one first "
                                   "(DELETE /v1/me/webhooks/{id})")));
    hook.createdAt = **added;
    wire::WebhookEntry answer = entry(hook, parts.webhooks.dispatcher());
    answer.secret = hook.secret; // this once: it is never shown again
    reply.send(jsonResponse(201, answer.toJson())
                   .withHeader("Location", QByteArray::fromStdString("/v1/me/webhooks/" + hook.id)));
}

void remove(ServerParts& parts, const Account& caller, const HttpRequest& request, HttpReply reply) {
    const std::string id = pathParameter(request, "id");
    auto removed = parts.accounts.removeWebhook(caller.userId, id);
    if (!removed)
        return reply.send(errorResponse(removed.error()));
    if (!*removed)
        return reply.send(notFound("a webhook of yours with id " + id));
    parts.webhooks.dispatcher().forget(id);
    reply.send(noContent());
}

} // namespace

void addWebhookRoutes(http::Router& router, ServerParts& parts) {
    const auto route = [&](const char* method, const char* pattern, CallerHandler handler,
                           http::RouteOptions options = {}) {
        addCallerRoute(router, parts.accounts, method, pattern, std::move(handler), options);
    };
    route("GET", "/v1/me/webhooks", [&parts](const Account& caller, const HttpRequest&, HttpReply reply) {
        list(parts, caller, std::move(reply));
    });
    route(
        "POST", "/v1/me/webhooks",
        [&parts](const Account& caller, const HttpRequest& request, HttpReply reply) {
            add(parts, caller, request, std::move(reply));
        },
        http::RouteOptions{static_cast<qint64>(wire::kMaxWebhookBodyBytes), false});
    route("DELETE", "/v1/me/webhooks/{id}",
          [&parts](const Account& caller, const HttpRequest& request, HttpReply reply) {
              remove(parts, caller, request, std::move(reply));
          });
}

} // namespace warren::server
