// SqliteStore: the approvals table, a row per tool call that needed one, inserted when asked and updated
// when decided.

#include "app/store/sqlite/SqliteStore.h"

#include <sqlite3.h>

namespace warren::control {

namespace {

constexpr const char* kInsertApproval = "INSERT INTO approvals (task_id, call_id, tool, arguments, reason, "
                                        "requested_at, approved, decided_by, note, "
                                        "decided_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
constexpr const char* kUpdateApproval =
    "UPDATE approvals SET tool = ?3, arguments = ?4, reason = ?5, requested_at = ?6, approved = ?7, "
    "decided_by = ?8, note = ?9, decided_at = ?10 WHERE task_id = ?1 AND call_id = ?2";
constexpr const char* kSelectApprovals =
    "SELECT task_id, call_id, tool, arguments, reason, requested_at, approved, decided_by, note, decided_at "
    "FROM approvals WHERE task_id = ?1 ORDER BY requested_at, rowid";

Query& bindApproval(Query& query, const ApprovalRecord& approval) {
    return query.bind(approval.taskId, approval.callId, approval.tool, approval.arguments, approval.reason,
                      approval.requestedAt, approval.approved, approval.decidedBy, approval.note,
                      approval.decidedAt);
}

ApprovalRecord readApproval(const Statement& row) {
    return ApprovalRecord{row.text(0), row.text(1),         row.text(2), row.text(3), row.text(4),
                          row.text(5), row.optionalBool(6), row.text(7), row.text(8), row.text(9)};
}

std::string which(const ApprovalRecord& approval) {
    return "the approval of call " + approval.callId + " of task " + approval.taskId;
}

} // namespace

Status SqliteStore::insertApproval(const ApprovalRecord& approval) {
    auto insert = m_db.query(kInsertApproval);
    return bindApproval(insert, approval).runOr([&](int code) {
        if (code == SQLITE_CONSTRAINT_PRIMARYKEY)
            return makeError(ErrorCode::InvalidArgument,
                             "cannot record " + which(approval) + ": it is already recorded");
        if (code == SQLITE_CONSTRAINT_FOREIGNKEY)
            return makeError(ErrorCode::InvalidArgument,
                             "cannot record " + which(approval) +
                                 ": the task is not in the database; add the task first");
        return m_db.failure("record " + which(approval));
    });
}

Status SqliteStore::updateApproval(const ApprovalRecord& approval) {
    auto update = m_db.query(kUpdateApproval);
    auto changed = bindApproval(update, approval).changes("update " + which(approval));
    if (!changed)
        return changed.error();
    if (*changed == 0)
        return makeError(ErrorCode::NotFound,
                         "cannot update " + which(approval) + ": it was never requested");
    return Ok{};
}

Result<std::vector<ApprovalRecord>> SqliteStore::approvals(const std::string& taskId) {
    return m_db.query(kSelectApprovals)
        .bind(taskId)
        .all("read the approvals of task " + taskId, readApproval);
}

} // namespace warren::control
