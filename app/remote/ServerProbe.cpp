#include "app/remote/ServerProbe.h"

namespace warren::remote {

using nlohmann::json;

namespace {

std::string text(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string count(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number_unsigned() ? std::to_string(it->get<std::uint64_t>()) : "0";
}

} // namespace

Result<ServerIdentity> probeServer(RemoteClient& client) {
    auto server = client.callJson("GET", "/v1/server");
    if (!server)
        return server.error();
    if (!server->is_object() || text(*server, "name") != "warrend")
        return makeError(ErrorCode::InvalidArgument, client.server().toStdString() +
                                                         " answers, but it is not a warrend; check the URL");
    auto me = client.callJson("GET", "/v1/me");
    if (!me)
        return me.error();
    ServerIdentity identity;
    identity.version = text(*server, "version");
    identity.apiVersion = server->contains("api_version") ? server->at("api_version").dump() : "";
    identity.sandbox = text(*server, "sandbox");
    identity.user = text(*me, "user");
    identity.tenant = text(*me, "tenant");
    identity.quotas = me->value("quotas", json::object());
    identity.usage = me->value("usage", json::object());
    return identity;
}

std::string describeIdentity(const ServerIdentity& identity) {
    const std::string active = count(identity.usage, "active_tasks");
    return identity.user + " (tenant " + identity.tenant + ") on warrend " + identity.version + ", " + active +
           (active == "1" ? " task" : " tasks") + " running, " + count(identity.usage, "tokens_this_month") +
           " tokens this month";
}

} // namespace warren::remote
