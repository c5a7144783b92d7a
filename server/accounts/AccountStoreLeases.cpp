// AccountStore: task leases (schema version 11), each call one statement. Every time is the database's
// (clock_timestamp()), never a replica's.

#include "app/store/postgres/PgQuery.h"
#include "server/accounts/AccountSchema.h"
#include "server/accounts/AccountStore.h"

namespace warren::accounts {

using control::PgRow;

namespace {

std::string milliseconds(std::chrono::milliseconds ttl) {
    return std::to_string(ttl.count());
}

std::string firstColumn(const PgRow& row) {
    return row.text(0);
}

} // namespace

Status AccountStore::fenceEventWrites() {
    return accounts::fenceEventWrites(m_db);
}

// ON CONFLICT's WHERE is checked against the row as it is once locked: of two replicas taking an expired
// lease at once, the second sees the first's, alive, and gets nothing back.
Result<bool> AccountStore::takeLease(const std::string& taskId, const std::string& holder,
                                     std::chrono::milliseconds ttl, const std::string& goneHolder) {
    auto taken = m_db.exec("take the lease of task " + taskId,
                           "INSERT INTO task_leases (task_id, holder, expires_at) "
                           "VALUES ($1, $2, clock_timestamp() + $3::bigint * interval '1 millisecond') "
                           "ON CONFLICT (task_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at "
                           "WHERE task_leases.holder = excluded.holder OR task_leases.expires_at < clock_timestamp() "
                           "OR task_leases.holder = $4 "
                           "RETURNING task_id",
                           {taskId, holder, milliseconds(ttl), goneHolder.empty() ? control::PgParam() : goneHolder});
    if (!taken)
        return taken.error();
    return !taken->rows.empty();
}

// Each lease is taken as takeLease takes one: also one of holder's that expired or is gone (a replica that
// found this one alive, by its lock, may have taken the expired lease and let it go), but never one another
// holder holds alive: that task was taken over.
Result<std::vector<std::string>> AccountStore::renewLeases(const std::string& holder,
                                                           const std::vector<std::string>& taskIds,
                                                           std::chrono::milliseconds ttl) {
    std::vector<control::PgParam> ids(taskIds.begin(), taskIds.end());
    auto array = control::pgTextArray(ids);
    if (!array)
        return array.error();
    return control::pgAll(
        m_db.exec("renew the task leases of " + holder,
                  "WITH dropped AS (DELETE FROM task_leases WHERE holder = $1 AND NOT (task_id = ANY($2::text[]))) "
                  "INSERT INTO task_leases (task_id, holder, expires_at) "
                  "SELECT id, $1, clock_timestamp() + $3::bigint * interval '1 millisecond' FROM unnest($2::text[]) AS id "
                  "ON CONFLICT (task_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at "
                  "WHERE task_leases.holder = excluded.holder OR task_leases.expires_at < clock_timestamp() "
                  "RETURNING task_id",
                  {holder, *array, milliseconds(ttl)}),
        firstColumn);
}

Status AccountStore::releaseLease(const std::string& taskId, const std::string& holder) {
    return control::pgRun(m_db.exec("release the lease of task " + taskId,
                                    "DELETE FROM task_leases WHERE task_id = $1 AND holder = $2", {taskId, holder}));
}

Result<bool> AccountStore::heldElsewhere(const std::string& taskId, const std::string& holder) {
    auto held = m_db.exec("look up the lease of task " + taskId,
                          "SELECT 1 FROM task_leases WHERE task_id = $1 AND holder <> $2 "
                          "AND expires_at > clock_timestamp()",
                          {taskId, holder});
    if (!held)
        return held.error();
    return !held->rows.empty();
}

Result<std::vector<std::pair<std::string, std::string>>> AccountStore::liveLeases() {
    return control::pgAll(m_db.exec("list the live task leases",
                                    "SELECT task_id, holder FROM task_leases WHERE expires_at > clock_timestamp()"),
                          [](const PgRow& row) { return std::pair(row.text(0), row.text(1)); });
}

} // namespace warren::accounts
