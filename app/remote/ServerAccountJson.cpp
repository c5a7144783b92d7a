#include "app/remote/ServerAccountJson.h"

#include "app/wire/ServerAnswers.h"

namespace warren::remote {

using nlohmann::json;

Result<control::ServerAccount> serverAccountFromJson(const std::string& server, const json& serverInfo,
                                                     const json& me) {
    const auto info = wire::ServerInfo::fromJson(serverInfo);
    if (info.name != "warrend")
        return makeError(ErrorCode::InvalidArgument, server + " answers, but it is not a warrend; check the URL");
    if (!me.is_object())
        return makeError(ErrorCode::System, "the warrend at " + server +
                                                " answered /v1/me with something that is not an account");
    const auto caller = wire::Me::fromJson(me);
    control::ServerAccount account;
    account.server = server;
    account.version = info.version;
    account.sandbox = info.sandbox;
    account.user = caller.user;
    account.tenant = caller.tenant;
    account.quotas = caller.quotas;
    account.activeTasks = caller.activeTasks;
    account.tokensThisMonth = caller.tokensThisMonth;
    return account;
}

} // namespace warren::remote
