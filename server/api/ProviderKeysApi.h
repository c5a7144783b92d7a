#pragma once
// A user's own model API keys (docs/SERVER.md): PUT /v1/me/provider-keys/{provider} stores one (sealed with
// the operator's --provider-key-secret), DELETE removes it, GET /v1/me/provider-keys lists the providers
// and when, never a key. Every route is the caller's own namespace: no user names another's keys.

#include "server/http/Router.h"

#include <string>

namespace warren::server {

struct ServerParts;

// secret: the operator's kSealKeyBytes, kept alive by the caller; empty: warrend stores no user's key and
// PUT says which flag the operator has to set.
void addProviderKeyRoutes(http::Router& router, ServerParts& parts, const std::string& secret);

} // namespace warren::server
