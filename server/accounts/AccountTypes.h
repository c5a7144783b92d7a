#pragma once
// What the account store answers: who a key belongs to, the quotas that apply to them, the outcome of a
// reservation or a token check, what a user owns, and what an Idempotency-Key stands for. Ids are the
// database's; names are what an operator types.

#include "server/accounts/Limits.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::accounts {

// The caller behind an API key.
struct Account {
    std::int64_t userId = 0;
    std::string userName;
    std::int64_t tenantId = 0;
    std::string tenantName;
};

struct KeyInfo {
    std::string displayPrefix; // "wrn_" and 8 characters: what names the key, never the key
    std::string createdAt;     // ISO 8601, UTC
    std::optional<std::string> revokedAt;
};

struct UserInfo {
    std::string name;
    std::string tenant;
    std::string createdAt;
    Limits quota; // the user's own override; unset where the tenant's applies
    std::vector<KeyInfo> keys;
};

struct TenantInfo {
    std::string name;
    std::string createdAt;
    Limits quota;
    std::uint64_t users = 0;
};

struct Quotas {
    Limits user;
    Limits tenant;
};

// A limit that refused: which level's, its value, and how much of it is in use.
struct OverQuota {
    LimitLevel level = LimitLevel::Tenant;
    LimitName limit = LimitName::MaxConcurrent;
    std::uint64_t value = 0;
    std::uint64_t used = 0;
    std::string message() const; // "the tenant's max_concurrent (2) is reached: 2 tasks are running"
};

// reserveTask: reserved (or already held by this task), or the limit that refused.
struct Reservation {
    std::optional<OverQuota> refused; // nullopt: the task holds a reservation now
    bool reserved() const { return !refused; }
};

// A task that waits for a concurrency slot of its owner's (and their tenant's).
struct WaitingTask {
    std::string taskId;
    std::int64_t userId = 0;
    std::int64_t tenantId = 0;
};

struct TaskOwnership {
    std::string taskId;
    std::optional<std::string> uploadId;
};

struct UploadOwnership {
    std::string uploadId;
    std::string directory;
};

// A provider key a user stored: its name and when, never the key.
// A secret bound to hosts a user stored, or the operator for all of a tenant's users, as listed: never its
// value.
struct HostSecretInfo {
    std::string name;
    std::string hosts;
    std::string header;
    std::string updatedAt; // ISO 8601, UTC
    bool inBody = false;
    bool tenants = false; // the tenant's (warrend admin set-secret), not the user's own
};

// A user's webhook (POST /v1/me/webhooks) as stored: events as "task.created,task.finished" (wire's
// joinWebhookEvents), the secret its deliveries are signed with.
struct WebhookRecord {
    std::string id; // "wh-" and 16 hex digits
    std::int64_t userId = 0;
    std::string url;
    std::string events;
    std::string secret;
    std::string createdAt; // ISO 8601, UTC; set by the database
};

// A webhook delivery waiting to be delivered: its id, its hook and the body it is sent (and signed) as.
struct WebhookDeliveryRecord {
    std::string id;
    std::string hookId;
    std::string body;
};

// A tenant's MCP servers (warrend admin set-mcp-servers): the "mcpServers" object as stored.
struct TenantMcpServers {
    std::string tenant;
    nlohmann::json servers = nlohmann::json::object();
    std::string updatedAt; // ISO 8601, UTC
};

struct ProviderKeyInfo {
    std::string provider;  // "openai", "anthropic", ...
    std::string updatedAt; // ISO 8601, UTC
};

// claimIdempotencyKey: what the server does with the request.
struct IdempotencyClaim {
    enum class Outcome {
        Claimed,  // the key is new: create the task under the id given
        Replay,   // the same key with the same body: answer with taskId, create nothing
        Conflict, // the same key with another body: refuse (422), create nothing
    };
    Outcome outcome = Outcome::Claimed;
    std::string taskId;    // the task the key stands for
    std::string claimedBy; // the replica that claimed it (for a replica that died before recording the task)
};

} // namespace warren::accounts
