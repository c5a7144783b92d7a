#pragma once
// A user's secrets bound to hosts (DESIGN §12, docs/SERVER.md): PUT /v1/me/secrets/{name} stores one (its
// value and binding sealed with the operator's --provider-key-secret), DELETE removes it, GET /v1/me/secrets
// lists the names, hosts and headers, never a value. A task names them ("secrets" in POST /v1/tasks); each
// route is the caller's own namespace: no user names another's secrets.

#include "server/http/Router.h"

#include <string>

namespace warren::server {

struct ServerParts;

// secret: the operator's kSealKeyBytes, kept alive by the caller; empty: warrend stores no user's secret and
// PUT says which flag the operator has to set.
void addHostSecretRoutes(http::Router& router, ServerParts& parts, const std::string& secret);

} // namespace warren::server
