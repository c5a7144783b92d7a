// AccountStore's fourth part: the secrets bound to hosts users store (DESIGN §12), sealed with the operator's
// secret. The value in clear is in this process only; the database gets the nonce and the ciphertext of the
// value with its binding, and no message names the value.

#include "server/accounts/AccountSql.h"
#include "server/accounts/AccountStore.h"
#include "server/accounts/SealedSecret.h"

#include <QByteArray>

namespace warren::accounts {

using control::PgRow;
using namespace sql;

namespace {

// What a sealed secret is bound to: the ids cannot run together (a secret's name has no ':').
std::string binding(std::int64_t userId, const std::string& name) {
    return "warrend host secret:user " + num(userId) + ":name " + name;
}

// A row of (name, hosts, header, updated_at, in_body).
HostSecretInfo info(const PgRow& row) {
    return HostSecretInfo{row.text(0), row.text(1), row.text(2), row.text(3), row.optionalBool(4).value_or(false)};
}

Error notStored(const std::string& name) {
    return makeError(ErrorCode::NotFound, "no secret " + name + " of yours: store it with PUT /v1/me/secrets/" +
                                              name + " ({\"value\", \"hosts\"})");
}

} // namespace

Result<HostSecretInfo> AccountStore::setHostSecret(std::int64_t userId, const control::HostSecret& hostSecret,
                                                   std::string_view secret) {
    const std::string what = "store user " + num(userId) + "'s secret " + hostSecret.name;
    auto sealed = seal(secret, binding(userId, hostSecret.name), control::storedHostSecret(hostSecret));
    if (!sealed)
        return makeError(sealed.error().code, "cannot " + what + ": " + sealed.error().message);
    auto stored = m_db.exec(what,
                            ("INSERT INTO user_secrets (user_id, name, hosts, header, nonce, ciphertext, in_body) "
                             "VALUES ($1::bigint, $2, $3, $4, decode($5, 'hex'), decode($6, 'hex'), $7::boolean) "
                             "ON CONFLICT (user_id, name) DO UPDATE SET hosts = EXCLUDED.hosts, "
                             "header = EXCLUDED.header, nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext, "
                             "in_body = EXCLUDED.in_body, updated_at = now() "
                             "RETURNING name, hosts, header, to_char(updated_at AT TIME ZONE 'UTC', " +
                             std::string(kIsoTime) + "), in_body")
                                .c_str(),
                            {num(userId), hostSecret.name, hostSecret.hostsText, hostSecret.header,
                             hex(sealed->nonce), hex(sealed->ciphertext), hostSecret.inBody ? "true" : "false"});
    if (!stored)
        return stored.error();
    return info(stored->rows.at(0));
}

Result<bool> AccountStore::removeHostSecret(std::int64_t userId, const std::string& name) {
    auto deleted = m_db.exec("remove user " + num(userId) + "'s secret " + name,
                             "DELETE FROM user_secrets WHERE user_id = $1::bigint AND name = $2", {num(userId), name});
    if (!deleted)
        return deleted.error();
    return deleted->affected > 0;
}

Result<std::vector<HostSecretInfo>> AccountStore::hostSecrets(std::int64_t userId) {
    auto reply = m_db.exec("list user " + num(userId) + "'s secrets",
                           ("SELECT name, hosts, header, to_char(updated_at AT TIME ZONE 'UTC', " +
                            std::string(kIsoTime) + "), in_body FROM user_secrets WHERE user_id = $1::bigint ORDER BY name")
                               .c_str(),
                           {num(userId)});
    if (!reply)
        return reply.error();
    std::vector<HostSecretInfo> secrets;
    for (const PgRow& row : reply->rows)
        secrets.push_back(info(row));
    return secrets;
}

Result<control::HostSecret> AccountStore::taskOwnersHostSecret(const std::string& taskId, const std::string& name,
                                                               std::string_view secret) {
    auto reply = m_db.exec("read the secret " + name + " of task " + taskId + "'s owner",
                           "SELECT o.user_id, encode(s.nonce, 'hex'), encode(s.ciphertext, 'hex') "
                           "FROM task_owners o JOIN user_secrets s ON s.user_id = o.user_id "
                           "WHERE o.task_id = $1 AND s.name = $2",
                           {taskId, name});
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return notStored(name);
    const PgRow& row = reply->rows.front();
    const auto opened = secret.empty() ? Result<std::string>(makeError(ErrorCode::InvalidArgument, ""))
                                       : unseal(secret, binding(static_cast<std::int64_t>(row.uint(0)), name),
                                                Sealed{unhex(row.text(1)), unhex(row.text(2))});
    if (!opened)
        return makeError(ErrorCode::InvalidArgument,
                         "the secret " + name + " its owner stored cannot be decrypted with this warrend's "
                         "--provider-key-secret; store it again (PUT /v1/me/secrets/" + name + ")");
    return control::readHostSecret(name, *opened);
}

} // namespace warren::accounts
