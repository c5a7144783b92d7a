// SqliteStore: the tasks table.

#include "app/store/TaskColumns.h"
#include "app/store/sqlite/SqliteStore.h"

#include <sqlite3.h>
#include <string_view>

namespace warren::control {

namespace {

constexpr const char* kInsertTask =
    "INSERT INTO tasks (prompt, workspace, spec, status, started_at, "
    "finished_at, finish_reason, summary, error, "
    "steps, tokens_in, tokens_out, runs, removed_at, moved_to, moved_as, id, created_at) VALUES (?1, "
    "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";
// removed_at is written once: an update with it empty keeps what is there.
constexpr const char* kUpdateTask = "UPDATE tasks SET prompt = ?1, workspace = ?2, spec = ?3, status = ?4, "
                                    "started_at = ?5, finished_at = ?6, "
                                    "finish_reason = ?7, summary = ?8, error = ?9, steps = ?10, tokens_in = "
                                    "?11, tokens_out = ?12, runs = ?13, removed_at = max(removed_at, ?14), "
                                    "moved_to = ?15, moved_as = ?16 WHERE id = ?17";
#define WARREN_TASK_COLUMNS                                                                                  \
    "SELECT id, prompt, workspace, spec, status, created_at, started_at, finished_at, finish_reason, "       \
    "summary, error, steps, tokens_in, tokens_out, runs, removed_at, moved_to, moved_as FROM tasks "
constexpr const char* kSelectTask = WARREN_TASK_COLUMNS "WHERE id = ?1";
// Newest first; rowid breaks ties between tasks created in the same millisecond.
constexpr const char* kSelectTasks = WARREN_TASK_COLUMNS "ORDER BY created_at DESC, rowid DESC";
constexpr const char* kSelectTasksWithStatus =
    WARREN_TASK_COLUMNS "WHERE status = ?1 ORDER BY created_at DESC, rowid DESC";
#undef WARREN_TASK_COLUMNS
constexpr const char* kSelectTaskIdsWithStatus =
    "SELECT id FROM tasks WHERE status = ?1 ORDER BY created_at DESC, rowid DESC";

// Every column but id and created_at as ?1 to ?16, then id (?17): insert binds created_at after it (?18).
Query& bindTask(Query& query, const TaskRecord& task) {
    return query.bind(task.prompt, task.workspace, task.spec, std::string_view(taskStatusName(task.status)),
                      task.startedAt, task.finishedAt, task.finishReason, task.summary, task.error,
                      task.steps, task.tokensIn, task.tokensOut, task.runs, task.removedAt, task.movedTo,
                      task.movedAs, task.id);
}

} // namespace

Status SqliteStore::insertTask(const TaskRecord& task) {
    auto insert = m_db.query(kInsertTask);
    bindTask(insert, task);
    return insert.bind(task.createdAt).runOr([&](int code) {
        if (code == SQLITE_CONSTRAINT_PRIMARYKEY)
            return makeError(ErrorCode::InvalidArgument,
                             "cannot add task " + task.id + ": a task with that id already exists");
        return m_db.failure("add task " + task.id);
    });
}

Status SqliteStore::updateTask(const TaskRecord& task) {
    auto update = m_db.query(kUpdateTask);
    auto changed = bindTask(update, task).changes("update task " + task.id);
    if (!changed)
        return changed.error();
    if (*changed == 0)
        return makeError(ErrorCode::NotFound,
                         "cannot update task " + task.id + ": no such task in " + m_db.path());
    return Ok{};
}

Result<std::optional<TaskRecord>> SqliteStore::task(const std::string& id) {
    return m_db.query(kSelectTask).bind(id).one("read task " + id, readTaskColumns<Statement>);
}

Result<std::vector<TaskRecord>> SqliteStore::tasks() {
    return m_db.query(kSelectTasks).all("list the tasks", readTaskColumns<Statement>);
}

Result<std::vector<TaskRecord>> SqliteStore::tasksWithStatus(TaskStatus status) {
    return m_db.query(kSelectTasksWithStatus)
        .bind(std::string_view(taskStatusName(status)))
        .all(std::string("list the ") + taskStatusName(status) + " tasks", readTaskColumns<Statement>);
}

Result<std::vector<std::string>> SqliteStore::taskIdsWithStatus(TaskStatus status) {
    return m_db.query(kSelectTaskIdsWithStatus)
        .bind(std::string_view(taskStatusName(status)))
        .all(std::string("list the ") + taskStatusName(status) + " tasks' ids",
             [](const Statement& row) { return row.text(0); });
}

Result<std::map<TaskStatus, std::uint64_t>> SqliteStore::taskCountsByStatus() {
    auto rows = m_db.query(kCountTasksByStatus).all("count the tasks by status", readStatusCount<Statement>);
    if (!rows)
        return rows.error();
    return statusCounts(*rows);
}

} // namespace warren::control
