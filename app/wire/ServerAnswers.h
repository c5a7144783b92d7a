#pragma once
// Who a warrend is and who its caller is: GET /v1/server and GET /v1/me (docs/SERVER.md), written by the
// server and read by Settings' "Test connection" (ServerProbe). Pure; read leniently, as answers from
// whatever listens at the URL the user typed: a member missing or of another type reads as empty.
//
//   GET /v1/server   {"name": "warrend", "version", "api_version", "sandbox"}
//   GET /v1/me       {"user", "tenant", "quotas": {"user": LIMITS, "tenant": LIMITS},
//                     "usage": {"active_tasks", "tokens_this_month"}}

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace warren::wire {

struct ServerInfo {
    std::string name; // "warrend": anything else is not one
    std::string version;
    std::uint64_t apiVersion = 0;
    std::string sandbox; // the backend's name

    nlohmann::json toJson() const;
    static ServerInfo fromJson(const nlohmann::json& answer);
};

struct Me {
    std::string user;
    std::string tenant;
    nlohmann::json quotas = nlohmann::json::object(); // the server's limits, as accounts::limitsToJson writes them
    std::uint64_t activeTasks = 0;
    std::uint64_t tokensThisMonth = 0;

    nlohmann::json toJson() const;
    static Me fromJson(const nlohmann::json& answer);
};

} // namespace warren::wire
