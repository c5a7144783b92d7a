#include "app/remote/ServerProbe.h"

#include "app/remote/ServerAccountJson.h"

namespace warren::remote {

Result<control::ServerAccount> probeServer(RemoteClient& client) {
    const std::string server = client.server().toStdString();
    auto info = client.callJson("GET", "/v1/server");
    if (!info)
        return info.error();
    // Not a warrend: said before its /v1/me is asked with the key.
    if (auto notWarrend = serverAccountFromJson(server, *info, nlohmann::json::object()); !notWarrend)
        return notWarrend.error();
    auto me = client.callJson("GET", "/v1/me");
    if (!me)
        return me.error();
    return serverAccountFromJson(server, *info, *me);
}

} // namespace warren::remote
