#include "app/remote/ServerAccountJson.h"

#include "common/JsonFields.h"

namespace warren::remote {

using nlohmann::json;

namespace {

// find on a value that is not an object finds nothing; json::value would throw there.
std::string text(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::uint64_t count(const json& object, const char* key) {
    const auto it = object.find(key);
    return it == object.end() ? 0 : json_fields::asUint(*it).value_or(0);
}

} // namespace

Result<control::ServerAccount> serverAccountFromJson(const std::string& server, const json& serverInfo,
                                                     const json& me) {
    if (!serverInfo.is_object() || text(serverInfo, "name") != "warrend")
        return makeError(ErrorCode::InvalidArgument, server + " answers, but it is not a warrend; check the URL");
    if (!me.is_object())
        return makeError(ErrorCode::System, "the warrend at " + server +
                                                " answered /v1/me with something that is not an account");
    control::ServerAccount account;
    account.server = server;
    account.version = text(serverInfo, "version");
    account.sandbox = text(serverInfo, "sandbox");
    account.user = text(me, "user");
    account.tenant = text(me, "tenant");
    const auto quotas = me.find("quotas");
    account.quotas = quotas != me.end() && quotas->is_object() ? *quotas : json::object();
    if (const auto usage = me.find("usage"); usage != me.end()) {
        account.activeTasks = count(*usage, "active_tasks");
        account.tokensThisMonth = count(*usage, "tokens_this_month");
    }
    return account;
}

} // namespace warren::remote
