// AccountStore's second half: what users use and own (reservations, tokens, uploads, tasks, idempotency
// keys). Accounts, keys and quotas are in AccountStore.cpp.

#include "app/store/postgres/PgQuery.h"
#include "server/accounts/AccountSql.h"
#include "server/accounts/AccountStore.h"
#include "server/accounts/Sha256.h"

namespace warren::accounts {

using control::PgParam;
using control::PgRow;
using control::PgTransaction;
using namespace sql;

Result<Reservation> AccountStore::reserveTask(std::int64_t userId, const std::string& taskId) {
    const std::string what = "reserve a slot for task " + taskId;
    auto transaction = PgTransaction::begin(m_db, what);
    if (!transaction)
        return transaction.error();
    auto userRow =
        m_db.exec(what, "SELECT tenant_id, max_concurrent FROM users WHERE id = $1::bigint", {num(userId)});
    if (!userRow)
        return userRow.error();
    if (userRow->rows.empty())
        return notFound("there is no user with id " + num(userId));
    const PgRow& user = userRow->rows.front(); // tenant_id, max_concurrent
    const std::string tenantId = user.text(0);
    // The tenant's row lock orders every reservation of the tenant: the counts below cannot change until
    // this transaction ends. Reservations of other tenants are neither read nor waited for.
    auto tenantRow =
        m_db.exec(what, "SELECT max_concurrent FROM tenants WHERE id = $1::bigint FOR UPDATE", {tenantId});
    if (!tenantRow)
        return tenantRow.error();
    const PgRow& tenant = tenantRow->rows.at(0); // max_concurrent
    // Holding a slot, the task waits no more: in this transaction, so that it never does both.
    const auto reserved = [&]() -> Result<Reservation> {
        if (auto left = m_db.exec(what, "DELETE FROM waiting_tasks WHERE task_id = $1", {taskId}); !left)
            return left.error();
        if (auto committed = transaction->commit(what); !committed)
            return committed.error();
        return Reservation{};
    };
    auto held = m_db.exec(what, "SELECT user_id FROM task_reservations WHERE task_id = $1", {taskId});
    if (!held)
        return held.error();
    if (!held->rows.empty()) {
        if (held->rows.front().uint(0) != static_cast<std::uint64_t>(userId))
            return makeError(ErrorCode::InvalidArgument,
                             "task id " + taskId +
                                 " holds another user's reservation; give the task a new id");
        return reserved();
    }
    auto counts =
        m_db.exec(what,
                  "SELECT count(*), count(*) FILTER (WHERE user_id = $2::bigint) FROM task_reservations "
                  "WHERE tenant_id = $1::bigint",
                  {tenantId, num(userId)});
    if (!counts)
        return counts.error();
    const std::uint64_t tenantActive = counts->rows.at(0).uint(0);
    const std::uint64_t userActive = counts->rows.at(0).uint(1);
    if (user.at(1) && userActive >= user.uint(1))
        return Reservation{OverQuota{LimitLevel::User, LimitName::MaxConcurrent, user.uint(1), userActive}};
    if (tenant.at(0) && tenantActive >= tenant.uint(0))
        return Reservation{
            OverQuota{LimitLevel::Tenant, LimitName::MaxConcurrent, tenant.uint(0), tenantActive}};
    auto inserted = m_db.exec(
        what,
        "INSERT INTO task_reservations (task_id, user_id, tenant_id) VALUES ($1, $2::bigint, $3::bigint)",
        {taskId, num(userId), tenantId});
    if (!inserted)
        return inserted.error();
    return reserved();
}

Status AccountStore::releaseTask(const std::string& taskId) {
    auto deleted = m_db.exec("release the slot of task " + taskId,
                             "DELETE FROM task_reservations WHERE task_id = $1", {taskId});
    if (!deleted)
        return deleted.error();
    return Ok{};
}

Result<std::uint64_t> AccountStore::activeTasks(std::int64_t userId) {
    auto reply =
        m_db.exec("count the running tasks of user " + num(userId),
                  "SELECT count(*) FROM task_reservations WHERE user_id = $1::bigint", {num(userId)});
    if (!reply)
        return reply.error();
    return reply->rows.at(0).uint(0);
}

Result<std::vector<std::string>> AccountStore::reservedTasks() {
    auto reply = m_db.exec("list the reserved tasks",
                           "SELECT task_id FROM task_reservations ORDER BY created_at, task_id");
    if (!reply)
        return reply.error();
    std::vector<std::string> ids;
    for (const PgRow& row : reply->rows)
        ids.push_back(row.text(0));
    return ids;
}

Status AccountStore::addWaitingTask(std::int64_t userId, const std::string& taskId) {
    auto inserted = m_db.exec("put task " + taskId + " in the queue",
                              "INSERT INTO waiting_tasks (task_id, user_id) VALUES ($1, $2::bigint)",
                              {taskId, num(userId)});
    if (!inserted)
        return inserted.error();
    return Ok{};
}

Result<std::vector<WaitingTask>> AccountStore::waitingTasks() {
    auto rows =
        m_db.exec("read the queued tasks", "SELECT w.task_id, w.user_id, u.tenant_id FROM waiting_tasks w "
                                           "JOIN users u ON u.id = w.user_id ORDER BY w.position");
    if (!rows)
        return rows.error();
    std::vector<WaitingTask> waiting;
    for (const PgRow& row : rows->rows)
        waiting.push_back(
            {row.text(0), static_cast<std::int64_t>(row.uint(1)), static_cast<std::int64_t>(row.uint(2))});
    return waiting;
}

Status AccountStore::forgetWaitingTask(const std::string& taskId) {
    auto deleted = m_db.exec("take task " + taskId + " out of the queue",
                             "DELETE FROM waiting_tasks WHERE task_id = $1", {taskId});
    if (!deleted)
        return deleted.error();
    return Ok{};
}

Status AccountStore::addTokens(std::int64_t userId, std::uint64_t tokens, Clock::time_point at) {
    const std::string what = "count " + std::to_string(tokens) + " model tokens for user " + num(userId);
    if (tokens > kMaxLimitValue)
        return makeError(ErrorCode::InvalidArgument, what + ": more than can be counted");
    auto added = m_db.exec(
        what,
        "INSERT INTO token_usage (user_id, month, tokens) VALUES ($1::bigint, $2::date, $3::bigint) "
        "ON CONFLICT (user_id, month) DO UPDATE SET tokens = token_usage.tokens + EXCLUDED.tokens",
        {num(userId), monthOf(at), std::to_string(tokens)});
    if (!added)
        return added.error();
    return Ok{};
}

Status AccountStore::countTaskTokens(const std::string& taskId, std::uint64_t total, Clock::time_point at) {
    const std::string what = "count the model tokens of task " + taskId;
    if (total > kMaxLimitValue)
        return makeError(ErrorCode::InvalidArgument, what + ": more than can be counted");
    auto counted = m_db.exec(
        what,
        "WITH old AS (SELECT user_id, tokens_counted FROM task_owners WHERE task_id = $1 FOR UPDATE), "
        "moved AS (UPDATE task_owners t SET tokens_counted = greatest(old.tokens_counted, $2::bigint) FROM "
        "old "
        "  WHERE t.task_id = $1 RETURNING old.user_id, greatest(0, $2::bigint - old.tokens_counted) AS "
        "delta) "
        "INSERT INTO token_usage (user_id, month, tokens) SELECT user_id, $3::date, delta FROM moved "
        "WHERE delta > 0 "
        "ON CONFLICT (user_id, month) DO UPDATE SET tokens = token_usage.tokens + EXCLUDED.tokens",
        {taskId, std::to_string(total), monthOf(at)});
    if (!counted)
        return counted.error();
    return Ok{};
}

Result<std::uint64_t> AccountStore::tokensUsed(std::int64_t userId, Clock::time_point at) {
    auto reply = m_db.exec("read the model tokens of user " + num(userId),
                           "SELECT coalesce(sum(tokens), 0) FROM token_usage WHERE user_id = $1::bigint AND "
                           "month = $2::date",
                           {num(userId), monthOf(at)});
    if (!reply)
        return reply.error();
    return reply->rows.at(0).uint(0);
}

Result<std::optional<OverQuota>> AccountStore::wouldExceedTokens(std::int64_t userId, std::uint64_t tokens,
                                                                 Clock::time_point at) {
    auto reply = m_db.exec(
        "check the model tokens of user " + num(userId),
        "SELECT u.tokens_per_month, t.tokens_per_month, "
        "  (SELECT coalesce(sum(tokens), 0) FROM token_usage WHERE user_id = u.id AND month = $2::date), "
        "  (SELECT coalesce(sum(tu.tokens), 0) FROM token_usage tu JOIN users peer ON peer.id = tu.user_id "
        "   WHERE peer.tenant_id = u.tenant_id AND tu.month = $2::date) "
        "FROM users u JOIN tenants t ON t.id = u.tenant_id WHERE u.id = $1::bigint",
        {num(userId), monthOf(at)});
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return notFound("there is no user with id " + num(userId));
    const PgRow& row = reply->rows.front();
    const std::pair<LimitLevel, std::size_t> levels[] = {{LimitLevel::User, 0}, {LimitLevel::Tenant, 1}};
    for (const auto& [level, column] : levels) {
        const std::uint64_t used = row.uint(column + 2);
        if (row.at(column) && (tokens > row.uint(column) || used > row.uint(column) - tokens))
            return std::optional<OverQuota>(
                OverQuota{level, LimitName::TokensPerMonth, row.uint(column), used});
    }
    return std::optional<OverQuota>();
}

Status AccountStore::recordUpload(std::int64_t userId, const std::string& uploadId,
                                  const std::string& directory) {
    auto inserted =
        m_db.exec("record upload " + uploadId,
                  "INSERT INTO upload_owners (upload_id, user_id, directory) VALUES ($1, $2::bigint, $3)",
                  {uploadId, num(userId), directory},
                  refuseDuplicate("upload id " + uploadId + " is taken; give the upload a new id"));
    if (!inserted)
        return inserted.error();
    return Ok{};
}

Result<std::optional<UploadOwnership>> AccountStore::upload(std::int64_t userId,
                                                            const std::string& uploadId) {
    auto reply =
        m_db.exec("look up upload " + uploadId,
                  "SELECT directory FROM upload_owners WHERE upload_id = $1 AND user_id = $2::bigint",
                  {uploadId, num(userId)});
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return std::optional<UploadOwnership>();
    return std::optional<UploadOwnership>(UploadOwnership{uploadId, reply->rows.front().text(0)});
}

Status AccountStore::recordTask(std::int64_t userId, const std::string& taskId,
                                const std::optional<std::string>& uploadId) {
    // The upload must be this user's own: another user's upload id is as good as none.
    auto inserted =
        m_db.exec("record task " + taskId,
                  "INSERT INTO task_owners (task_id, user_id, upload_id) SELECT $1, $2::bigint, $3 "
                  "WHERE $3::text IS NULL OR EXISTS (SELECT 1 FROM upload_owners "
                  "WHERE upload_id = $3 AND user_id = $2::bigint)",
                  {taskId, num(userId), uploadId},
                  refuseDuplicate("task id " + taskId + " is taken; give the task a new id"));
    if (!inserted)
        return inserted.error();
    if (inserted->affected == 0)
        return notFound("there is no upload " + uploadId.value_or("") + "; upload the workspace first");
    return Ok{};
}

Result<std::optional<TaskOwnership>> AccountStore::task(std::int64_t userId, const std::string& taskId) {
    auto reply = m_db.exec("look up task " + taskId,
                           "SELECT upload_id FROM task_owners WHERE task_id = $1 AND user_id = $2::bigint",
                           {taskId, num(userId)});
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return std::optional<TaskOwnership>();
    return std::optional<TaskOwnership>(TaskOwnership{taskId, reply->rows.front().at(0)});
}

Result<std::optional<Account>> AccountStore::taskOwner(const std::string& taskId) {
    auto reply = m_db.exec("look up the owner of task " + taskId,
                           (std::string("SELECT ") + kAccountColumns +
                            " FROM task_owners o JOIN users u ON u.id = o.user_id "
                            "JOIN tenants t ON t.id = u.tenant_id WHERE o.task_id = $1")
                               .c_str(),
                           {taskId});
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return std::optional<Account>();
    return std::optional<Account>(accountFromRow(reply->rows.front()));
}

Result<std::vector<std::string>> AccountStore::taskIds(std::int64_t userId) {
    auto reply = m_db.exec("list the tasks of user " + num(userId),
                           "SELECT task_id FROM task_owners WHERE user_id = $1::bigint "
                           "ORDER BY created_at DESC, task_id DESC",
                           {num(userId)});
    if (!reply)
        return reply.error();
    std::vector<std::string> ids;
    for (const PgRow& row : reply->rows)
        ids.push_back(row.text(0));
    return ids;
}

Result<std::vector<std::string>> AccountStore::uploadDirectories(std::int64_t userId) {
    return control::pgAll(m_db.exec("list the uploads of user " + num(userId),
                                    "SELECT directory FROM upload_owners WHERE user_id = $1::bigint",
                                    {num(userId)}),
                          [](const PgRow& row) { return row.text(0); });
}

// LEAST ignores NULLs: a level that sets no period does not bind; none set, NULL, never due. finished_at is
// the store's own RFC 3339 text; one that does not read as such is never due (CASE: checked before the cast).
Result<std::vector<std::string>> AccountStore::tasksDueForRemoval(std::uint64_t serveDays,
                                                                  std::size_t limit) {
    return control::pgAll(
        m_db.exec(
            "list the tasks due for removal",
            "SELECT t.id FROM tasks t JOIN task_owners o ON o.task_id = t.id JOIN users u ON u.id = "
            "o.user_id "
            "JOIN tenants n ON n.id = u.tenant_id "
            "WHERE t.status IN ('succeeded', 'failed', 'cancelled') AND t.removed_at = '' "
            "AND CASE WHEN t.finished_at ~ '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' "
            "THEN t.finished_at::timestamptz END "
            "<= now() - make_interval(days => least(u.retention_days, n.retention_days, NULLIF($1::bigint, "
            "0))::int) "
            "ORDER BY t.finished_at LIMIT $2::bigint",
            {std::to_string(serveDays), std::to_string(limit)}),
        [](const PgRow& row) { return row.text(0); });
}

Result<IdempotencyClaim> AccountStore::claimIdempotencyKey(std::int64_t userId, const std::string& key,
                                                           const std::string& requestBody,
                                                           const std::string& newTaskId,
                                                           const std::string& claimer, Clock::time_point at) {
    if (auto status = checkIdempotencyKey(key); !status)
        return status.error();
    const std::string what = "claim the Idempotency-Key " + key;
    const std::string requestHash = sha256Hex(requestBody);
    const std::string now =
        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(at.time_since_epoch()).count());
    const std::string lifetime = std::to_string(std::chrono::seconds(kIdempotencyKeyLifetime).count());
    auto expired = m_db.exec(what,
                             "DELETE FROM idempotency_keys WHERE user_id = $1::bigint "
                             "AND created_at < to_timestamp($2::bigint - $3::bigint)",
                             {num(userId), now, lifetime});
    if (!expired)
        return expired.error();
    // A claim forgotten between the insert and the select (its task failed) is claimed again.
    for (int attempt = 0; attempt < 3; ++attempt) {
        auto claimed = m_db.exec(
            what,
            "INSERT INTO idempotency_keys (user_id, key, task_id, request_hash, created_at, claimed_by) "
            "VALUES ($1::bigint, $2, $3, $4, to_timestamp($5::bigint), $6) "
            "ON CONFLICT (user_id, key) DO NOTHING",
            {num(userId), key, newTaskId, requestHash, now, claimer});
        if (!claimed)
            return claimed.error();
        if (claimed->affected == 1)
            return IdempotencyClaim{IdempotencyClaim::Outcome::Claimed, newTaskId, claimer};
        auto earlier = m_db.exec(what,
                                 "SELECT task_id, request_hash, claimed_by FROM idempotency_keys "
                                 "WHERE user_id = $1::bigint AND key = $2",
                                 {num(userId), key});
        if (!earlier)
            return earlier.error();
        if (earlier->rows.empty())
            continue;
        const PgRow& row = earlier->rows.front();
        const bool sameBody = row.text(1) == requestHash;
        return IdempotencyClaim{sameBody ? IdempotencyClaim::Outcome::Replay
                                         : IdempotencyClaim::Outcome::Conflict,
                                row.text(0), row.text(2)};
    }
    return makeError(ErrorCode::Unavailable,
                     what + ": it was claimed and released repeatedly; retry the request");
}

Result<bool> AccountStore::takeOverIdempotencyKey(std::int64_t userId, const std::string& key,
                                                  const std::string& staleTaskId,
                                                  const std::string& newTaskId, const std::string& claimer) {
    auto taken = m_db.exec("take over the Idempotency-Key " + key,
                           "UPDATE idempotency_keys SET task_id = $4, claimed_by = $5, created_at = now() "
                           "WHERE user_id = $1::bigint AND key = $2 AND task_id = $3",
                           {num(userId), key, staleTaskId, newTaskId, claimer});
    if (!taken)
        return taken.error();
    return taken->affected == 1;
}

Status AccountStore::forgetIdempotencyKey(std::int64_t userId, const std::string& key,
                                          const std::string& taskId) {
    auto deleted =
        m_db.exec("forget the Idempotency-Key " + key,
                  "DELETE FROM idempotency_keys WHERE user_id = $1::bigint AND key = $2 AND task_id = $3",
                  {num(userId), key, taskId});
    if (!deleted)
        return deleted.error();
    return Ok{};
}

} // namespace warren::accounts
