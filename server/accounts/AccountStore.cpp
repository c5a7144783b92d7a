#include "server/accounts/AccountStore.h"

#include "server/accounts/AccountSchema.h"
#include "server/accounts/AccountSql.h"
#include "server/accounts/ApiKey.h"

#include <ctime>
#include <map>

namespace warren::accounts {

using control::PgConnection;
using control::PgParam;
using control::PgRow;
using control::PgTransaction;
using namespace sql;

namespace {

bool isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

} // namespace

std::string monthOf(Clock::time_point at) {
    const std::time_t seconds = Clock::to_time_t(at);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[16];
    std::strftime(text, sizeof text, "%Y-%m-01", &utc);
    return text;
}

Status checkAccountName(const std::string& kind, const std::string& name) {
    // Not "wrn_...": revoke-key reads that as a key's prefix.
    const bool shaped = !name.empty() && name.size() <= 64 && isNameChar(name.front()) &&
                        name.front() != '.' && name.front() != '_' && name.front() != '-' &&
                        !name.starts_with(kApiKeyPrefix);
    bool chars = true;
    for (const char c : name)
        chars = chars && isNameChar(c);
    if (!shaped || !chars)
        return makeError(
            ErrorCode::InvalidArgument,
            "\"" + name + "\" is not a " + kind +
                " name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit "
                "(and not with wrn_, which names keys)");
    return Ok{};
}

Status checkIdempotencyKey(const std::string& key) {
    bool visible = !key.empty() && key.size() <= 255;
    for (const char c : key)
        visible = visible && c > ' ' && c < 0x7f;
    if (!visible)
        return makeError(
            ErrorCode::InvalidArgument,
            "the Idempotency-Key header must be 1 to 255 visible ASCII characters (a UUID will do)");
    return Ok{};
}

std::string OverQuota::message() const {
    const std::string whose = level == LimitLevel::User ? "the user's" : "the tenant's";
    const std::string name(limitInfo(limit).key);
    if (limit == LimitName::MaxConcurrent)
        return whose + " " + name + " (" + std::to_string(value) + ") is reached: " + std::to_string(used) +
               " tasks are running; retry when one ends, or ask the operator to raise it";
    if (limit == LimitName::DiskMb)
        return whose + " " + name + " (" + std::to_string(value) +
               ") would be exceeded: " + std::to_string(used) +
               " MiB with this one; finished tasks' files go after their retention period, or ask the "
               "operator "
               "to raise it";
    return whose + " " + name + " (" + std::to_string(value) +
           ") would be exceeded: " + std::to_string(used) +
           " used this month; it starts again next month, or ask the operator to raise it";
}

Result<AccountStore> AccountStore::open(const std::string& databaseUrl) {
    auto connection = PgConnection::open(databaseUrl);
    if (!connection)
        return connection.error();
    return open(std::move(connection).value());
}

Result<AccountStore> AccountStore::open(PgConnection connection) {
    AccountStore store(std::move(connection));
    if (auto migrated = migrateAccountSchema(store.m_db); !migrated)
        return migrated.error();
    return store;
}

int AccountStore::currentSchemaVersion() {
    return accountSchemaVersion();
}

Result<int> AccountStore::schemaVersion() {
    return storedAccountSchemaVersion(m_db);
}

Result<std::string> AccountStore::insertKey(std::int64_t userId) {
    auto key = api_key::generate();
    if (!key)
        return key.error();
    auto inserted =
        m_db.exec("store the new API key",
                  "INSERT INTO api_keys (user_id, key_hash, display_prefix) VALUES ($1::bigint, $2, $3)",
                  {num(userId), api_key::hash(*key), api_key::displayPrefix(*key)});
    if (!inserted)
        return inserted.error();
    return key;
}

Result<NewUser> AccountStore::addUser(const std::string& name, const std::string& tenant) {
    if (auto status = checkAccountName("user", name); !status)
        return status.error();
    if (auto status = checkAccountName("tenant", tenant); !status)
        return status.error();
    const std::string what = "add user " + name;
    auto transaction = PgTransaction::begin(m_db, what);
    if (!transaction)
        return transaction.error();
    if (auto created =
            m_db.exec(what, "INSERT INTO tenants (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", {tenant});
        !created)
        return created.error();
    auto tenantRow = m_db.exec(what, "SELECT id FROM tenants WHERE name = $1", {tenant});
    if (!tenantRow)
        return tenantRow.error();
    NewUser added;
    added.account.tenantId = static_cast<std::int64_t>(tenantRow->rows.at(0).uint(0));
    added.account.tenantName = tenant;
    added.account.userName = name;
    auto userRow =
        m_db.exec(what, "INSERT INTO users (name, tenant_id) VALUES ($1, $2::bigint) RETURNING id",
                  {name, num(added.account.tenantId)},
                  refuseDuplicate("a user named \"" + name +
                                  "\" exists already; give them another key with add-key " + name));
    if (!userRow)
        return userRow.error();
    added.account.userId = static_cast<std::int64_t>(userRow->rows.at(0).uint(0));
    auto key = insertKey(added.account.userId);
    if (!key)
        return key.error();
    added.apiKey = std::move(key).value();
    if (auto committed = transaction->commit(what); !committed)
        return committed.error();
    return added;
}

Result<std::optional<Account>> AccountStore::user(const std::string& name) {
    auto reply =
        m_db.exec("look up user " + name,
                  (std::string("SELECT ") + kAccountColumns +
                   " FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE u.name = $1")
                      .c_str(),
                  {name});
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return std::optional<Account>();
    return std::optional<Account>(accountFromRow(reply->rows.front()));
}

Result<std::string> AccountStore::addKey(const std::string& userName) {
    auto account = user(userName);
    if (!account)
        return account.error();
    if (!*account)
        return notFound("there is no user named \"" + userName + "\"; add them with add-user " + userName);
    return insertKey((*account)->userId);
}

Result<std::uint64_t> AccountStore::revokeKeys(const std::string& userNameOrKeyPrefix) {
    const std::string& target = userNameOrKeyPrefix;
    const std::string what = "revoke " + target;
    if (target.starts_with(kApiKeyPrefix)) {
        // A whole key pasted by mistake is revoked too; it is looked up by hash, never stored.
        const bool wholeKey = api_key::isWellFormed(target);
        if (!wholeKey && target.size() != kApiKeyDisplayLength)
            return makeError(
                ErrorCode::InvalidArgument,
                "\"" + target +
                    "\" is neither a key nor a key's prefix: give the prefix list-users "
                    "shows (wrn_ and 8 characters), or the user's name to revoke all their keys");
        const std::string column = wholeKey ? "key_hash" : "display_prefix";
        const std::string match = wholeKey ? api_key::hash(target) : target;
        auto transaction = PgTransaction::begin(m_db, what);
        if (!transaction)
            return transaction.error();
        auto keys = m_db.exec(
            what,
            ("SELECT id, revoked_at IS NOT NULL FROM api_keys WHERE " + column + " = $1 FOR UPDATE").c_str(),
            {match});
        if (!keys)
            return keys.error();
        if (keys->rows.empty())
            return notFound("no API key starts with " + api_key::displayPrefix(target) +
                            "; list-users shows each user's keys");
        if (keys->rows.size() > 1)
            return makeError(ErrorCode::InvalidArgument, std::to_string(keys->rows.size()) +
                                                             " keys start with " + target +
                                                             "; revoke them by the user's name instead");
        auto revoked = m_db.exec(
            what, "UPDATE api_keys SET revoked_at = now() WHERE id = $1::bigint AND revoked_at IS NULL",
            {keys->rows.front().text(0)});
        if (!revoked)
            return revoked.error();
        if (auto committed = transaction->commit(what); !committed)
            return committed.error();
        return revoked->affected;
    }
    auto account = user(target);
    if (!account)
        return account.error();
    if (!*account)
        return notFound("there is no user named \"" + target + "\" and it is not a key prefix (wrn_...)");
    auto revoked = m_db.exec(
        what, "UPDATE api_keys SET revoked_at = now() WHERE user_id = $1::bigint AND revoked_at IS NULL",
        {num((*account)->userId)});
    if (!revoked)
        return revoked.error();
    return revoked->affected;
}

Result<std::vector<UserInfo>> AccountStore::users() {
    const std::string what = "list users";
    auto rows = m_db.exec(what, ("SELECT u.id, u.name, t.name, to_char(u.created_at AT TIME ZONE 'UTC', " +
                                 std::string(kIsoTime) + "), " + quotaColumns("u.") +
                                 " FROM users u JOIN tenants t ON t.id = u.tenant_id ORDER BY u.name")
                                    .c_str());
    if (!rows)
        return rows.error();
    auto keys = m_db.exec(what, ("SELECT user_id, display_prefix, to_char(created_at AT TIME ZONE 'UTC', " +
                                 std::string(kIsoTime) + "), to_char(revoked_at AT TIME ZONE 'UTC', " +
                                 std::string(kIsoTime) + ") FROM api_keys ORDER BY created_at, id")
                                    .c_str());
    if (!keys)
        return keys.error();
    std::map<std::uint64_t, std::vector<KeyInfo>> keysByUser;
    for (const PgRow& row : keys->rows)
        keysByUser[row.uint(0)].push_back(KeyInfo{row.text(1), row.text(2), row.at(3)});
    std::vector<UserInfo> users;
    for (const PgRow& row : rows->rows)
        users.push_back(UserInfo{row.text(1), row.text(2), row.text(3), limitsFromRow(row, 4),
                                 std::move(keysByUser[row.uint(0)])});
    return users;
}

Result<std::vector<TenantInfo>> AccountStore::tenants() {
    auto rows = m_db.exec("list tenants", ("SELECT t.name, to_char(t.created_at AT TIME ZONE 'UTC', " +
                                           std::string(kIsoTime) +
                                           "), (SELECT count(*) FROM users u WHERE u.tenant_id = t.id), " +
                                           quotaColumns("t.") + " FROM tenants t ORDER BY t.name")
                                              .c_str());
    if (!rows)
        return rows.error();
    std::vector<TenantInfo> tenants;
    for (const PgRow& row : rows->rows)
        tenants.push_back(TenantInfo{row.text(0), row.text(1), limitsFromRow(row, 3), row.uint(2)});
    return tenants;
}

Result<std::optional<Account>> AccountStore::authenticate(const std::string& apiKey) {
    if (!api_key::isWellFormed(apiKey))
        return std::optional<Account>();
    const std::string hashed = api_key::hash(apiKey);
    auto reply = m_db.exec("check an API key",
                           (std::string("SELECT k.key_hash, ") + kAccountColumns +
                            " FROM api_keys k JOIN users u ON u.id = k.user_id "
                            "JOIN tenants t ON t.id = u.tenant_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL")
                               .c_str(),
                           {hashed});
    if (!reply)
        return reply.error();
    if (reply->rows.empty() || !api_key::constantTimeEquals(reply->rows.front().text(0), hashed))
        return std::optional<Account>();
    return std::optional<Account>(accountFromRow(reply->rows.front(), 1));
}

Status AccountStore::setQuota(const char* table, const std::string& name,
                              const std::vector<QuotaChange>& changes) {
    const bool tenant = std::string_view(table) == "tenants";
    const std::string what = std::string("set the quota of ") + (tenant ? "tenant " : "user ") + name;
    if (changes.empty())
        return makeError(ErrorCode::InvalidArgument, what + ": no limit given; name at least one");
    std::string assignments;
    std::vector<PgParam> params{name};
    for (const QuotaChange& change : changes) {
        if (change.value)
            if (auto status = checkLimitValue(change.limit, *change.value, what); !status)
                return status.error();
        params.push_back(change.value ? PgParam(std::to_string(*change.value)) : PgParam());
        assignments += (assignments.empty() ? "" : ", ") + std::string(limitInfo(change.limit).key) + " = $" +
                       std::to_string(params.size()) + "::bigint";
    }
    auto updated = m_db.exec(
        what, ("UPDATE " + std::string(table) + " SET " + assignments + " WHERE name = $1").c_str(), params);
    if (!updated)
        return updated.error();
    if (updated->affected == 0)
        return notFound(tenant ? "there is no tenant named \"" + name + "\"; add-user --tenant " + name +
                                     " creates it"
                               : "there is no user named \"" + name + "\"; add them with add-user " + name);
    return Ok{};
}

Status AccountStore::setTenantQuota(const std::string& tenant, const std::vector<QuotaChange>& changes) {
    return setQuota("tenants", tenant, changes);
}

Status AccountStore::setUserQuota(const std::string& userName, const std::vector<QuotaChange>& changes) {
    return setQuota("users", userName, changes);
}

Result<Quotas> AccountStore::quotas(std::int64_t userId) {
    auto reply = m_db.exec("read the quotas of user " + num(userId),
                           ("SELECT " + quotaColumns("u.") + ", " + quotaColumns("t.") +
                            " FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE u.id = $1::bigint")
                               .c_str(),
                           {num(userId)});
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return notFound("there is no user with id " + num(userId));
    return Quotas{limitsFromRow(reply->rows.front(), 0), limitsFromRow(reply->rows.front(), kLimitCount)};
}

} // namespace warren::accounts
