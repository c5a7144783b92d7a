#pragma once
// Every endpoint but GET /v1/server runs as its caller: the account behind the request's
// "Authorization: Bearer KEY". A missing, malformed, unknown or revoked key gets the same 401; the
// handler never runs without an account.

#include "server/accounts/AccountTypes.h"
#include "server/http/Router.h"

#include <functional>

namespace warren::accounts {
class AccountStore;
}

namespace warren::server {

using CallerHandler =
    std::function<void(const accounts::Account&, const http::HttpRequest&, http::HttpReply)>;

http::Handler authenticated(accounts::AccountStore& accounts, CallerHandler handler);

// router.add of handler, run as its caller.
void addCallerRoute(http::Router& router, accounts::AccountStore& accounts, const char* method, const char* pattern,
                    CallerHandler handler, http::RouteOptions options = {});

} // namespace warren::server
