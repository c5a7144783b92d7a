// PgStore: the tasks table.

#include "app/store/TaskColumns.h"
#include "app/store/postgres/PgQuery.h"
#include "app/store/postgres/PgStore.h"

#include <string_view>

namespace warren::control {

namespace {

// Both notify the task's id on kTaskChangesChannel ($19, $18), delivered as the change commits; an update
// of no row notifies nothing and returns no row. removed_at is written once: an update with it empty keeps
// what is there.
constexpr const char* kInsertTask =
    "WITH added AS (INSERT INTO tasks (prompt, workspace, spec, status, started_at, finished_at, "
    "finish_reason, summary, error, steps, tokens_in, tokens_out, runs, removed_at, moved_to, moved_as, id, "
    "created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) "
    "RETURNING id) SELECT pg_notify($19, id) FROM added";
constexpr const char* kUpdateTask =
    "WITH changed AS (UPDATE tasks SET prompt = $1, workspace = $2, spec = $3, status = $4, started_at = $5, "
    "finished_at = $6, finish_reason = $7, summary = $8, error = $9, steps = $10, tokens_in = $11, "
    "tokens_out = $12, runs = $13, removed_at = greatest(removed_at, $14), moved_to = $15, moved_as = $16 "
    "WHERE id = $17 RETURNING id) SELECT pg_notify($18, id) FROM changed";
#define WARREN_TASK_COLUMNS                                                                                  \
    "SELECT id, prompt, workspace, spec, status, created_at, started_at, finished_at, finish_reason, "       \
    "summary, error, steps, tokens_in, tokens_out, runs, removed_at, moved_to, moved_as FROM tasks "
constexpr const char* kSelectTask = WARREN_TASK_COLUMNS "WHERE id = $1";
// Newest first; ord (insertion order) breaks ties between tasks created in the same millisecond.
constexpr const char* kSelectTasks = WARREN_TASK_COLUMNS "ORDER BY created_at DESC, ord DESC";
constexpr const char* kSelectTasksWithStatus =
    WARREN_TASK_COLUMNS "WHERE status = $1 ORDER BY created_at DESC, ord DESC";
#undef WARREN_TASK_COLUMNS
constexpr const char* kSelectTaskIdsWithStatus =
    "SELECT id FROM tasks WHERE status = $1 ORDER BY created_at DESC, ord DESC";

// Every column but id and created_at as $1 to $16, then id ($17): insert adds created_at after it ($18).
std::vector<PgParam> taskParams(const TaskRecord& task) {
    return pgParams(task.prompt, task.workspace, task.spec, std::string_view(taskStatusName(task.status)),
                    task.startedAt, task.finishedAt, task.finishReason, task.summary, task.error, task.steps,
                    task.tokensIn, task.tokensOut, task.runs, task.removedAt, task.movedTo, task.movedAs,
                    task.id);
}

} // namespace

Status PgStore::insertTask(const TaskRecord& task) {
    auto params = taskParams(task);
    params.push_back(task.createdAt);
    params.emplace_back(kTaskChangesChannel);
    return pgRun(m_db.exec("add task " + task.id, kInsertTask, params, [&](const PgRefused& refused) {
        return refused.sqlstate == "23505"
                   ? std::optional<Error>(
                         makeError(ErrorCode::InvalidArgument,
                                   "cannot add task " + task.id + ": a task with that id already exists"))
                   : std::nullopt;
    }));
}

Status PgStore::updateTask(const TaskRecord& task) {
    auto params = taskParams(task);
    params.emplace_back(kTaskChangesChannel);
    auto updated = m_db.exec("update task " + task.id, kUpdateTask, params);
    if (!updated)
        return updated.error();
    if (updated->rows.empty())
        return makeError(ErrorCode::NotFound,
                         "cannot update task " + task.id + ": no such task in " + m_db.where());
    return Ok{};
}

Result<std::optional<TaskRecord>> PgStore::task(const std::string& id) {
    return pgOne(m_db.exec("read task " + id, kSelectTask, pgParams(id)), readTaskColumns<PgRow>);
}

Result<std::vector<TaskRecord>> PgStore::tasks() {
    return pgAll(m_db.exec("list the tasks", kSelectTasks), readTaskColumns<PgRow>);
}

Result<std::vector<TaskRecord>> PgStore::tasksWithStatus(TaskStatus status) {
    return pgAll(m_db.exec(std::string("list the ") + taskStatusName(status) + " tasks",
                           kSelectTasksWithStatus, pgParams(std::string_view(taskStatusName(status)))),
                 readTaskColumns<PgRow>);
}

Result<std::vector<std::string>> PgStore::taskIdsWithStatus(TaskStatus status) {
    return pgAll(m_db.exec(std::string("list the ") + taskStatusName(status) + " tasks' ids",
                           kSelectTaskIdsWithStatus, pgParams(std::string_view(taskStatusName(status)))),
                 [](const PgRow& row) { return row.text(0); });
}

Result<std::map<TaskStatus, std::uint64_t>> PgStore::taskCountsByStatus() {
    auto rows = pgAll(m_db.exec("count the tasks by status", kCountTasksByStatus), readStatusCount<PgRow>);
    if (!rows)
        return rows.error();
    return statusCounts(*rows);
}

} // namespace warren::control
