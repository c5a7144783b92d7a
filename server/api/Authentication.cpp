#include "server/api/Authentication.h"

#include "server/accounts/AccountStore.h"
#include "server/accounts/ApiKey.h"
#include "server/api/HttpErrors.h"

namespace warren::server {

http::Handler authenticated(accounts::AccountStore& accounts, CallerHandler handler) {
    return
        [&accounts, handler = std::move(handler)](const http::HttpRequest& request, http::HttpReply reply) {
            const auto header = request.header("Authorization");
            const auto key =
                header ? accounts::api_key::fromAuthorizationHeader(header->toStdString()) : std::nullopt;
            std::optional<accounts::Account> account;
            if (key) {
                auto found = accounts.authenticate(*key);
                if (!found)
                    return reply.send(errorResponse(found.error()));
                account = *found;
            }
            if (!account)
                return reply.send(
                    http::HttpResponse::error(401, "unauthorized",
                                              "send a valid API key as \"Authorization: Bearer wrn_...\"; "
                                              "an operator creates one with `warrend admin add-user`")
                        .withHeader("WWW-Authenticate", "Bearer"));
            handler(*account, request, std::move(reply));
        };
}

void addCallerRoute(http::Router& router, accounts::AccountStore& accounts, const char* method, const char* pattern,
                    CallerHandler handler, http::RouteOptions options) {
    router.add(method, QString::fromLatin1(pattern), authenticated(accounts, std::move(handler)), options);
}

} // namespace warren::server
