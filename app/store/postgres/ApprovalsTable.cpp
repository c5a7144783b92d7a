// PgStore: the approvals table, a row per tool call that needed one, inserted when asked and updated when
// decided.

#include "app/store/postgres/PgQuery.h"
#include "app/store/postgres/PgStore.h"

namespace warren::control {

namespace {

constexpr const char* kInsertApproval =
    "INSERT INTO approvals (task_id, call_id, tool, arguments, reason, requested_at, approved, decided_by, "
    "note, "
    "decided_at) VALUES ($1, $2, $3, $4, $5, $6, $7::boolean, $8, $9, $10)";
constexpr const char* kUpdateApproval =
    "UPDATE approvals SET tool = $3, arguments = $4, reason = $5, requested_at = $6, approved = $7::boolean, "
    "decided_by = $8, note = $9, decided_at = $10 WHERE task_id = $1 AND call_id = $2";
constexpr const char* kSelectApprovals =
    "SELECT task_id, call_id, tool, arguments, reason, requested_at, approved, decided_by, note, decided_at "
    "FROM approvals WHERE task_id = $1 ORDER BY requested_at, ord";

std::vector<PgParam> approvalParams(const ApprovalRecord& approval) {
    return pgParams(approval.taskId, approval.callId, approval.tool, approval.arguments, approval.reason,
                    approval.requestedAt, approval.approved, approval.decidedBy, approval.note,
                    approval.decidedAt);
}

ApprovalRecord readApproval(const PgRow& row) {
    return ApprovalRecord{row.text(0), row.text(1),         row.text(2), row.text(3), row.text(4),
                          row.text(5), row.optionalBool(6), row.text(7), row.text(8), row.text(9)};
}

std::string which(const ApprovalRecord& approval) {
    return "the approval of call " + approval.callId + " of task " + approval.taskId;
}

} // namespace

Status PgStore::insertApproval(const ApprovalRecord& approval) {
    return pgRun(
        m_db.exec("record " + which(approval), kInsertApproval, approvalParams(approval),
                  [&](const PgRefused& refused) -> std::optional<Error> {
                      if (refused.sqlstate == "23505")
                          return makeError(ErrorCode::InvalidArgument,
                                           "cannot record " + which(approval) + ": it is already recorded");
                      if (refused.sqlstate == "23503")
                          return makeError(ErrorCode::InvalidArgument,
                                           "cannot record " + which(approval) +
                                               ": the task is not in the database; add the task first");
                      return std::nullopt;
                  }));
}

Status PgStore::updateApproval(const ApprovalRecord& approval) {
    auto updated = m_db.exec("update " + which(approval), kUpdateApproval, approvalParams(approval));
    if (!updated)
        return updated.error();
    if (updated->affected == 0)
        return makeError(ErrorCode::NotFound,
                         "cannot update " + which(approval) + ": it was never requested");
    return Ok{};
}

Result<std::vector<ApprovalRecord>> PgStore::approvals(const std::string& taskId) {
    return pgAll(m_db.exec("read the approvals of task " + taskId, kSelectApprovals, pgParams(taskId)),
                 readApproval);
}

} // namespace warren::control
