#include "app/remote/ServerProbe.h"

#include "app/remote/ServerAccountJson.h"

namespace warren::remote {

void probeServer(RemoteClient& client, QObject* context, control::Done<control::ServerAccount> done) {
    const std::string server = client.server().toStdString();
    client.sendJson("GET", "/v1/server", nullptr, {}, context,
                    [&client, context, server, done = std::move(done)](Result<nlohmann::json> info, int) {
                        if (!info)
                            return done(info.error());
                        // Not a warrend: said before its /v1/me is asked with the key.
                        if (auto notWarrend = serverAccountFromJson(server, *info, nlohmann::json::object()); !notWarrend)
                            return done(notWarrend.error());
                        client.sendJson("GET", "/v1/me", nullptr, {}, context,
                                        [server, info = *info, done](Result<nlohmann::json> me, int) {
                                            if (!me)
                                                return done(me.error());
                                            done(serverAccountFromJson(server, info, *me));
                                        });
                    });
}

} // namespace warren::remote
