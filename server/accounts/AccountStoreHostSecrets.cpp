// AccountStore's fourth part: the secrets bound to hosts users store, and those the operator sets for every
// user of a tenant (DESIGN §12), sealed with the operator's secret. The value in clear is in this process
// only; the database gets the nonce and the ciphertext of the value with its binding, and no message names
// the value.

#include "server/accounts/AccountSql.h"
#include "server/accounts/AccountStore.h"
#include "server/accounts/SealedSecret.h"

#include <QByteArray>

namespace warren::accounts {

using control::PgRow;
using namespace sql;

namespace {

// Whose secrets a query is about: a user's (user_secrets) or a tenant's (tenant_secrets).
struct Owner {
    const char* kind; // "user", "tenant"
    std::int64_t id;

    std::string table() const { return std::string(kind) + "_secrets"; }
    std::string column() const { return std::string(kind) + "_id"; }
    // What a sealed secret is bound to: the ids cannot run together (a secret's name has no ':'), and a
    // user's row copied to a tenant (or back) does not open.
    std::string binding(const std::string& name) const {
        return "warrend host secret:" + std::string(kind) + " " + num(id) + ":name " + name;
    }
};

std::string listedColumns(const std::string& alias) {
    return alias + "name, " + alias + "hosts, " + alias + "header, to_char(" + alias + "updated_at AT TIME ZONE 'UTC', " +
           std::string(kIsoTime) + "), " + alias + "in_body";
}

// A row of (name, hosts, header, updated_at, in_body[, scope]).
HostSecretInfo info(const PgRow& row) {
    return HostSecretInfo{row.text(0), row.text(1), row.text(2), row.text(3), row.optionalBool(4).value_or(false),
                          row.size() > 5 && row.text(5) == "tenant"};
}

Result<HostSecretInfo> storeSealed(control::PgConnection& db, const Owner& owner, const control::HostSecret& hostSecret,
                                   std::string_view secret) {
    const std::string what = "store " + std::string(owner.kind) + " " + num(owner.id) + "'s secret " + hostSecret.name;
    auto sealed = seal(secret, owner.binding(hostSecret.name), control::storedHostSecret(hostSecret));
    if (!sealed)
        return makeError(sealed.error().code, "cannot " + what + ": " + sealed.error().message);
    auto stored = db.exec(what,
                          ("INSERT INTO " + owner.table() + " (" + owner.column() +
                           ", name, hosts, header, nonce, ciphertext, in_body) "
                           "VALUES ($1::bigint, $2, $3, $4, decode($5, 'hex'), decode($6, 'hex'), $7::boolean) "
                           "ON CONFLICT (" + owner.column() + ", name) DO UPDATE SET hosts = EXCLUDED.hosts, "
                           "header = EXCLUDED.header, nonce = EXCLUDED.nonce, ciphertext = EXCLUDED.ciphertext, "
                           "in_body = EXCLUDED.in_body, updated_at = now() RETURNING " + listedColumns(""))
                              .c_str(),
                          {num(owner.id), hostSecret.name, hostSecret.hostsText, hostSecret.header,
                           hex(sealed->nonce), hex(sealed->ciphertext), hostSecret.inBody ? "true" : "false"});
    if (!stored)
        return stored.error();
    HostSecretInfo listed = info(stored->rows.at(0));
    listed.tenants = std::string_view(owner.kind) == "tenant";
    return listed;
}

Result<bool> removeSealed(control::PgConnection& db, const Owner& owner, const std::string& name) {
    auto deleted = db.exec("remove " + std::string(owner.kind) + " " + num(owner.id) + "'s secret " + name,
                           ("DELETE FROM " + owner.table() + " WHERE " + owner.column() + " = $1::bigint AND name = $2")
                               .c_str(),
                           {num(owner.id), name});
    if (!deleted)
        return deleted.error();
    return deleted->affected > 0;
}

Result<std::vector<HostSecretInfo>> listed(Result<control::PgReply> reply) {
    if (!reply)
        return reply.error();
    std::vector<HostSecretInfo> secrets;
    for (const PgRow& row : reply->rows)
        secrets.push_back(info(row));
    return secrets;
}

} // namespace

Result<HostSecretInfo> AccountStore::setHostSecret(std::int64_t userId, const control::HostSecret& hostSecret,
                                                   std::string_view secret) {
    return storeSealed(m_db, Owner{"user", userId}, hostSecret, secret);
}

Result<bool> AccountStore::removeHostSecret(std::int64_t userId, const std::string& name) {
    return removeSealed(m_db, Owner{"user", userId}, name);
}

Result<std::vector<HostSecretInfo>> AccountStore::hostSecrets(std::int64_t userId) {
    return listed(m_db.exec("list user " + num(userId) + "'s secrets",
                            ("SELECT " + listedColumns("") + ", 'user' AS scope FROM user_secrets "
                             "WHERE user_id = $1::bigint UNION ALL SELECT " + listedColumns("s.") +
                             ", 'tenant' FROM tenant_secrets s JOIN users u ON u.tenant_id = s.tenant_id "
                             "WHERE u.id = $1::bigint ORDER BY 1, 6 DESC")
                                .c_str(),
                            {num(userId)}));
}

Result<HostSecretInfo> AccountStore::setTenantHostSecret(const std::string& tenant,
                                                         const control::HostSecret& hostSecret,
                                                         std::string_view secret) {
    auto id = tenantId(m_db, tenant);
    if (!id)
        return id.error();
    return storeSealed(m_db, Owner{"tenant", *id}, hostSecret, secret);
}

Result<bool> AccountStore::removeTenantHostSecret(const std::string& tenant, const std::string& name) {
    auto id = tenantId(m_db, tenant);
    if (!id)
        return id.error();
    return removeSealed(m_db, Owner{"tenant", *id}, name);
}

Result<std::vector<HostSecretInfo>> AccountStore::tenantHostSecrets(const std::string& tenant) {
    auto id = tenantId(m_db, tenant);
    if (!id)
        return id.error();
    return listed(m_db.exec("list tenant " + tenant + "'s secrets",
                            ("SELECT " + listedColumns("") + ", 'tenant' FROM tenant_secrets "
                             "WHERE tenant_id = $1::bigint ORDER BY name")
                                .c_str(),
                            {num(*id)}));
}

Result<control::HostSecret> AccountStore::taskOwnersHostSecret(const std::string& taskId, const std::string& name,
                                                               std::string_view secret) {
    // The owner's own before their tenant's: 'user' sorts after 'tenant'.
    auto reply = m_db.exec("read the secret " + name + " of task " + taskId + "'s owner",
                           "SELECT 'user' AS scope, o.user_id, encode(s.nonce, 'hex'), encode(s.ciphertext, 'hex') "
                           "FROM task_owners o JOIN user_secrets s ON s.user_id = o.user_id "
                           "WHERE o.task_id = $1 AND s.name = $2 "
                           "UNION ALL SELECT 'tenant', u.tenant_id, encode(s.nonce, 'hex'), encode(s.ciphertext, 'hex') "
                           "FROM task_owners o JOIN users u ON u.id = o.user_id "
                           "JOIN tenant_secrets s ON s.tenant_id = u.tenant_id WHERE o.task_id = $1 AND s.name = $2 "
                           "ORDER BY 1 DESC LIMIT 1",
                           {taskId, name});
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return makeError(ErrorCode::NotFound, "no secret " + name + " of yours or your tenant's: store it with "
                                              "PUT /v1/me/secrets/" + name + " ({\"value\", \"hosts\"})");
    const PgRow& row = reply->rows.front();
    const bool tenants = row.text(0) == "tenant";
    const Owner owner{tenants ? "tenant" : "user", static_cast<std::int64_t>(row.uint(1))};
    const auto opened = secret.empty() ? Result<std::string>(makeError(ErrorCode::InvalidArgument, ""))
                                       : unseal(secret, owner.binding(name), Sealed{unhex(row.text(2)), unhex(row.text(3))});
    if (!opened)
        return makeError(ErrorCode::InvalidArgument,
                         "the secret " + name + (tenants ? " set for your tenant" : " its owner stored") +
                             " cannot be decrypted with this warrend's --provider-key-secret; " +
                             (tenants ? "its operator sets it again (warrend admin set-secret)"
                                      : "store it again (PUT /v1/me/secrets/" + name + ")"));
    return control::readHostSecret(name, *opened);
}

} // namespace warren::accounts
