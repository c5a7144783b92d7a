#include "app/remote/ServerProbe.h"

namespace warren::remote {

using nlohmann::json;

namespace {

std::string text(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::uint64_t count(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

} // namespace

Result<control::ServerAccount> probeServer(RemoteClient& client) {
    auto server = client.callJson("GET", "/v1/server");
    if (!server)
        return server.error();
    if (!server->is_object() || text(*server, "name") != "warrend")
        return makeError(ErrorCode::InvalidArgument, client.server().toStdString() +
                                                         " answers, but it is not a warrend; check the URL");
    auto me = client.callJson("GET", "/v1/me");
    if (!me)
        return me.error();
    control::ServerAccount account;
    account.server = client.server().toStdString();
    account.version = text(*server, "version");
    account.sandbox = text(*server, "sandbox");
    account.user = text(*me, "user");
    account.tenant = text(*me, "tenant");
    account.quotas = me->value("quotas", json::object());
    const json usage = me->value("usage", json::object());
    account.activeTasks = count(usage, "active_tasks");
    account.tokensThisMonth = count(usage, "tokens_this_month");
    return account;
}

} // namespace warren::remote
