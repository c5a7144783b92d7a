// AccountStore: requests passed between replicas (schema version 12), each call one statement; a notify
// inside it is sent when it commits.

#include "app/store/postgres/PgQuery.h"
#include "server/accounts/AccountSql.h"
#include "server/accounts/AccountStore.h"

namespace warren::accounts {

using control::PgRow;

Result<std::int64_t> AccountStore::addTaskRequest(const std::string& taskId, const std::string& request) {
    const std::string insert = std::string("WITH added AS (INSERT INTO task_requests (task_id, request) VALUES ($1, $2) "
                                           "RETURNING id, task_id) SELECT id, pg_notify('") +
                               kTaskRequestsChannel + "', task_id) FROM added";
    auto added = control::pgOne(m_db.exec("pass a request on for task " + taskId, insert.c_str(), {taskId, request}),
                                [](const PgRow& row) { return static_cast<std::int64_t>(row.uint(0)); });
    if (!added)
        return added.error();
    if (!*added)
        return makeError(ErrorCode::System, "passing a request on for task " + taskId + " stored nothing");
    return **added;
}

Result<std::vector<TaskRequestRow>> AccountStore::openTaskRequests(const std::vector<std::string>& taskIds) {
    auto array = control::pgTextArray(std::vector<control::PgParam>(taskIds.begin(), taskIds.end()));
    if (!array)
        return array.error();
    return control::pgAll(m_db.exec("read the requests for this replica's tasks",
                                    "SELECT id, task_id, request FROM task_requests "
                                    "WHERE answer IS NULL AND task_id = ANY($1::text[]) ORDER BY id",
                                    {*array}),
                          [](const PgRow& row) {
                              return TaskRequestRow{static_cast<std::int64_t>(row.uint(0)), row.text(1), row.text(2)};
                          });
}

Status AccountStore::answerTaskRequest(std::int64_t id, const std::string& answer) {
    const std::string update = std::string("WITH done AS (UPDATE task_requests SET answer = $2 WHERE id = $1::bigint "
                                           "AND answer IS NULL RETURNING id) SELECT pg_notify('") +
                               kTaskAnswersChannel + "', id::text) FROM done";
    return control::pgRun(m_db.exec("answer request " + std::to_string(id), update.c_str(), {sql::num(id), answer}));
}

Result<std::optional<std::string>> AccountStore::takeTaskRequestAnswer(std::int64_t id) {
    return control::pgOne(m_db.exec("read the answer to request " + std::to_string(id),
                                    "DELETE FROM task_requests WHERE id = $1::bigint AND answer IS NOT NULL "
                                    "RETURNING answer",
                                    {sql::num(id)}),
                          [](const PgRow& row) { return row.text(0); });
}

Status AccountStore::forgetTaskRequests(std::chrono::seconds age) {
    return control::pgRun(m_db.exec("forget old requests between replicas",
                                    "DELETE FROM task_requests WHERE created_at < clock_timestamp() - "
                                    "$1::bigint * interval '1 second'",
                                    {std::to_string(age.count())}));
}

} // namespace warren::accounts
