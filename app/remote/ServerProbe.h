#pragma once
// Who a warrend says it is and who the key makes us: GET /v1/server and GET /v1/me. Settings' "Test
// connection" shows it, and RemoteControlPlane::open asks it before anything else, so a wrong URL, a
// server that does not answer, something that is not a warrend, and a refused key are each told apart.

#include "app/remote/RemoteClient.h"
#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>

namespace warren::remote {

struct ServerIdentity {
    std::string version;    // warrend's
    std::string apiVersion; // the API's
    std::string sandbox;    // where its agents run (bwrap, podman)
    std::string user, tenant;
    nlohmann::json quotas; // {"user": {...}, "tenant": {...}}: limits by name (docs/SERVER.md)
    nlohmann::json usage;  // {"active_tasks", "tokens_this_month"}
};

Result<ServerIdentity> probeServer(RemoteClient& client);

// One line for a person: "alice (tenant acme) on warrend 0.4.0, 1 task running, 1,234 tokens this month".
std::string describeIdentity(const ServerIdentity& identity);

} // namespace warren::remote
