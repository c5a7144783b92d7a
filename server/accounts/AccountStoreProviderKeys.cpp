// AccountStore's third part: the provider keys users store, sealed with the operator's secret. The key in
// clear is in this process only: the database gets the nonce and the ciphertext, and no message names it.

#include "server/accounts/AccountSql.h"
#include "server/accounts/AccountStore.h"
#include "server/accounts/SealedSecret.h"

#include <QByteArray>

namespace warren::accounts {

using control::PgRow;
using namespace sql;

namespace {

// What a sealed key is bound to: the ids cannot run together (a provider name has no ':').
std::string binding(std::int64_t userId, const std::string& provider) {
    return "warrend provider key:user " + num(userId) + ":provider " + provider;
}

Error unopenable(const std::string& provider, const std::string& why) {
    return makeError(ErrorCode::InvalidArgument,
                     "the API key its owner stored for " + provider + " cannot be decrypted: " + why +
                         "; store the key again (PUT /v1/me/provider-keys/" + provider +
                         ") or ask the operator to restore the secret it was sealed with");
}

} // namespace

Result<ProviderKeyInfo> AccountStore::setProviderKey(std::int64_t userId, const std::string& provider,
                                                     const std::string& key, std::string_view secret) {
    const std::string what = "store user " + num(userId) + "'s key for " + provider;
    auto sealed = seal(secret, binding(userId, provider), key);
    if (!sealed)
        return makeError(sealed.error().code, "cannot " + what + ": " + sealed.error().message);
    auto stored = m_db.exec(what,
                            ("INSERT INTO provider_keys (user_id, provider, nonce, ciphertext) "
                             "VALUES ($1::bigint, $2, decode($3, 'hex'), decode($4, 'hex')) "
                             "ON CONFLICT (user_id, provider) DO UPDATE SET nonce = EXCLUDED.nonce, "
                             "ciphertext = EXCLUDED.ciphertext, updated_at = now() "
                             "RETURNING provider, to_char(updated_at AT TIME ZONE 'UTC', " +
                             std::string(kIsoTime) + ")")
                                .c_str(),
                            {num(userId), provider, hex(sealed->nonce), hex(sealed->ciphertext)});
    if (!stored)
        return stored.error();
    const PgRow& row = stored->rows.at(0);
    return ProviderKeyInfo{row.text(0), row.text(1)};
}

Result<bool> AccountStore::removeProviderKey(std::int64_t userId, const std::string& provider) {
    auto deleted = m_db.exec("remove user " + num(userId) + "'s key for " + provider,
                             "DELETE FROM provider_keys WHERE user_id = $1::bigint AND provider = $2",
                             {num(userId), provider});
    if (!deleted)
        return deleted.error();
    return deleted->affected > 0;
}

Result<std::vector<ProviderKeyInfo>> AccountStore::providerKeys(std::int64_t userId) {
    auto reply =
        m_db.exec("list user " + num(userId) + "'s provider keys",
                  ("SELECT provider, to_char(updated_at AT TIME ZONE 'UTC', " + std::string(kIsoTime) +
                   ") FROM provider_keys WHERE user_id = $1::bigint ORDER BY provider")
                      .c_str(),
                  {num(userId)});
    if (!reply)
        return reply.error();
    std::vector<ProviderKeyInfo> keys;
    for (const PgRow& row : reply->rows)
        keys.push_back(ProviderKeyInfo{row.text(0), row.text(1)});
    return keys;
}

Result<std::optional<std::string>> AccountStore::taskOwnersProviderKey(const std::string& taskId,
                                                                       const std::string& provider,
                                                                       std::string_view secret) {
    auto reply = m_db.exec("read the key for " + provider + " of task " + taskId + "'s owner",
                           "SELECT o.user_id, encode(k.nonce, 'hex'), encode(k.ciphertext, 'hex') "
                           "FROM task_owners o JOIN provider_keys k ON k.user_id = o.user_id "
                           "WHERE o.task_id = $1 AND k.provider = $2",
                           {taskId, provider});
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return std::optional<std::string>();
    const PgRow& row = reply->rows.front();
    if (secret.empty())
        return unopenable(provider, "warrend runs without --provider-key-secret");
    auto key = unseal(secret, binding(static_cast<std::int64_t>(row.uint(0)), provider),
                      Sealed{unhex(row.text(1)), unhex(row.text(2))});
    if (!key)
        return unopenable(provider, "warrend's --provider-key-secret is not the one it was sealed with");
    return std::optional<std::string>(std::move(*key));
}

} // namespace warren::accounts
