#include "app/remote/ServerAccountJson.h"

#include "common/JsonFields.h"

namespace warren::remote {

using json_fields::memberString;
using json_fields::memberUint;
using nlohmann::json;

Result<control::ServerAccount> serverAccountFromJson(const std::string& server, const json& serverInfo,
                                                     const json& me) {
    if (!serverInfo.is_object() || memberString(serverInfo, "name") != "warrend")
        return makeError(ErrorCode::InvalidArgument, server + " answers, but it is not a warrend; check the URL");
    if (!me.is_object())
        return makeError(ErrorCode::System, "the warrend at " + server +
                                                " answered /v1/me with something that is not an account");
    control::ServerAccount account;
    account.server = server;
    account.version = memberString(serverInfo, "version");
    account.sandbox = memberString(serverInfo, "sandbox");
    account.user = memberString(me, "user");
    account.tenant = memberString(me, "tenant");
    const auto quotas = me.find("quotas");
    account.quotas = quotas != me.end() && quotas->is_object() ? *quotas : json::object();
    if (const auto usage = me.find("usage"); usage != me.end()) {
        account.activeTasks = memberUint(*usage, "active_tasks");
        account.tokensThisMonth = memberUint(*usage, "tokens_this_month");
    }
    return account;
}

} // namespace warren::remote
