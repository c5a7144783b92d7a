#pragma once
// The bodies of a user's secrets bound to hosts (DESIGN §12, docs/SERVER.md). Pure.
//
//   PUT /v1/me/secrets/{name}   {"value", "hosts", "header"?, "in_body"?}: written by the client, read strictly
//                               by the server
//   GET /v1/me/secrets          {"secrets": [{"name", "hosts", "header", "in_body", "updated_at", "scope"}, ...]},
//                               never a value; scope "user" (the caller's own) or "tenant" (the operator's,
//                               for every user of the caller's tenant)
//
// No message of the body's reader repeats the body: a refused body may well hold the value.

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace warren::wire {

inline constexpr std::size_t kMaxHostSecretBodyBytes = 16 * 1024;

struct HostSecretBody {
    std::string value;
    std::string hosts;  // "api.github.com,*.example.com", an allow-list's syntax
    std::string header; // "Authorization: Bearer {}"; empty: none
    bool inBody = false; // the placeholder is replaced in request bodies too

    nlohmann::json toJson() const;
    // JSON (UTF-8) of one object with "value" and "hosts" (strings), maybe "header" (a string) and "in_body"
    // (a boolean), nothing else. What they must hold is HostSecret's to check.
    static Result<HostSecretBody> fromJson(std::string_view body);
};

// Whose a listed secret is: a user's own, or set by the operator for every user of a tenant. A task uses
// its owner's own secret of a name before the tenant's.
enum class SecretScope { User, Tenant };
std::string_view secretScopeName(SecretScope scope); // "user", "tenant"

struct HostSecretEntry {
    std::string name;
    std::string hosts;
    std::string header;
    std::string updatedAt; // RFC 3339
    bool inBody = false;
    SecretScope scope = SecretScope::User;
};

struct HostSecretList {
    std::vector<HostSecretEntry> secrets;

    nlohmann::json toJson() const;
    // Leniently: an answer of another shape lists nothing, an entry without a name is skipped.
    static HostSecretList fromJson(const nlohmann::json& answer);
};

} // namespace warren::wire
