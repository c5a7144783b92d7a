#pragma once
// GET /v1/server (no key needed): what this server is and speaks. GET /v1/me: the caller, their tenant,
// the quotas that apply to them (their own, the tenant's) and what they use now.

#include "server/http/Router.h"

namespace warren::server {

struct ServerParts;

inline constexpr int kApiVersion = 1;

void addServerInfoRoutes(http::Router& router, ServerParts& parts);

} // namespace warren::server
