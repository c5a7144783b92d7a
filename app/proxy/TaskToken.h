#pragma once
// Per-task tokens for the tool proxy: "<payload>.<mac>", payload = base64url(JSON {task, scopes, exp,
// nonce}), mac = base64url(HMAC-SHA256(secret, payload)). The secret is random per control plane process.
// verify() checks the MAC in constant time, the expiry, the scope, and that the token was not revoked.

#include "common/Result.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace warren::control {

namespace scope {
inline constexpr const char* kLlm = "llm";           // llm.chat
inline constexpr const char* kMemory = "memory";     // memory.*
inline constexpr const char* kApproval = "approval"; // approval.request
inline constexpr const char* kChannel = "channel";   // the agent's hello on a connection it opens
inline constexpr const char* kTrees = "trees";       // workspace.pull, workspace.push
} // namespace scope

struct TokenClaims {
    std::string taskId;
    std::vector<std::string> scopes;
    std::int64_t expiresAtMs = 0; // Unix ms
    std::string nonce;
};

class TaskTokens {
public:
    TaskTokens();                                // a fresh random secret
    explicit TaskTokens(std::string secret);     // tests
    std::string issue(const std::string& taskId, std::vector<std::string> scopes,
                      std::chrono::milliseconds lifetime);
    // What the token grants, or why it is refused ("expired", "revoked", "bad signature", "no scope X",
    // "malformed"). nowMs: Unix ms (tests pass their own clock).
    Result<TokenClaims> verify(const std::string& token, const std::string& requiredScope, std::int64_t nowMs) const;
    void revoke(const std::string& token);       // this token only
    // Every token issued for the task so far (its run ended). A later run of the task (resumed in the same
    // process, after a pause or a rewind) gets a new token, which this does not refuse.
    void revokeTask(const std::string& taskId);

private:
    // The claims of a well-formed token this instance signed; no expiry, scope or revocation check.
    Result<TokenClaims> decode(const std::string& token) const;

    std::string m_secret;
    std::set<std::string> m_revokedNonces;
    std::map<std::string, std::vector<std::string>> m_issuedNonces; // by task, until revokeTask
};

} // namespace warren::control
