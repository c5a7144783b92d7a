#pragma once
// A user's webhooks (DESIGN §15, docs/SERVER.md "Webhooks"): POST /v1/me/webhooks registers a URL for some of
// the task lifecycle events (its URL checked by WebhookPolicy: http or https, never inside the server's host
// or networks without the operator's --allow-internal) and answers its secret, this once; GET lists the
// caller's hooks with what their deliveries did on this server, never a secret; DELETE removes one. Each user
// sees and removes only their own: another user's hook id answers 404.

#include "server/http/Router.h"

namespace warren::server {

struct ServerParts;

void addWebhookRoutes(http::Router& router, ServerParts& parts);

} // namespace warren::server
