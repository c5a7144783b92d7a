#include "Store.h"

#include "MemoryQuery.h"
#include "Migrations.h"
#include "Statement.h"
#include "Transaction.h"

#include <filesystem>
#include <sqlite3.h>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace warren::control {

struct Store::StatementCache {
    // Keyed by the SQL text's address: every query is a string literal of this file.
    std::unordered_map<const char*, Statement> statements;
};

namespace {

class ResetOnExit {
public:
    explicit ResetOnExit(Statement& statement) : m_statement(statement) {}
    ~ResetOnExit() { m_statement.reset(); }
    ResetOnExit(const ResetOnExit&) = delete;
    ResetOnExit& operator=(const ResetOnExit&) = delete;

private:
    Statement& m_statement;
};

// What to do about an error, by SQLite's primary result code.
std::string adviceFor(int code) {
    switch (code & 0xff) {
    case SQLITE_FULL:
        return "free disk space and try again";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "another program holds the database locked; close other Warren instances and try again";
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
        return "check that the data directory and warren.db are writable by you";
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return "the database is damaged: run `warren doctor`, or move warren.db aside to start afresh";
    case SQLITE_IOERR:
        return "the disk reported an error: check it (dmesg) and try again";
    default:
        return "report this with the output of `warren doctor`";
    }
}

Status openError(sqlite3* db, const std::string& path, const std::string& what) {
    const int code = db ? sqlite3_extended_errcode(db) : SQLITE_NOMEM;
    std::string advice = adviceFor(code);
    if ((code & 0xff) == SQLITE_NOTADB)
        advice = "it is not a Warren database, or it is damaged: move it aside (Warren then creates a new one) "
                 "or restore it from a backup";
    return makeError(ErrorCode::System, "cannot open the database " + path + ": " + what + "; " + advice);
}

// Sets up a fresh connection: checked one step at a time, each refusing to continue on failure.
Status configure(sqlite3* db, const std::string& path) {
    if (!sqlite3_compileoption_used("ENABLE_FTS5"))
        return makeError(ErrorCode::Unsupported,
                         std::string("cannot open the database ") + path + ": the SQLite library (" +
                             sqlite3_libversion() +
                             ") was built without FTS5, which Warren's memory search needs; install a libsqlite3 "
                             "built with FTS5 (Debian's and Ubuntu's are)");
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, 5000);
    // journal_mode is the first statement that reads the file: this is where "not a database" shows.
    auto mode = Statement::prepare(db, "PRAGMA journal_mode = WAL");
    if (!mode)
        return openError(db, path, sqlite3_errmsg(db));
    const int rc = mode->step();
    if (rc != SQLITE_ROW)
        return openError(db, path, sqlite3_errmsg(db));
    if (mode->text(0) != "wal" && path != ":memory:")
        return makeError(ErrorCode::Unsupported,
                         "cannot open the database " + path + " in WAL mode (SQLite chose \"" + mode->text(0) +
                             "\"): the file system of the data directory may not support it (a network "
                             "file system?); use a data directory on a local disk (--data-dir)");
    // NORMAL is durable across process crashes in WAL mode; only a power loss can drop the last commits.
    for (const char* pragma : {"PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON"}) {
        if (auto set = execute(db, pragma); !set)
            return openError(db, path, set.error().message);
    }
    return Ok{};
}

} // namespace

Result<Store> Store::open(const std::string& path) {
    namespace fs = std::filesystem;
    if (path != ":memory:") {
        const fs::path parent = fs::path(path).parent_path();
        std::error_code error;
        if (!parent.empty() && !fs::is_directory(parent, error))
            return makeError(ErrorCode::NotFound, "cannot open the database " + path + ": the directory " +
                                                      parent.string() +
                                                      " does not exist; create it, or pass another --data-dir");
    }
    sqlite3* db = nullptr;
    // NOMUTEX: a Store is one connection used by one thread at a time, so SQLite's own locking is waste.
    const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                   nullptr);
    if (rc != SQLITE_OK) {
        std::string message = db ? sqlite3_errmsg(db) : "out of memory";
        sqlite3_close(db);
        return makeError(ErrorCode::System, "cannot open the database " + path + ": " + message +
                                                "; check that the data directory exists and is writable");
    }
    auto configured = configure(db, path);
    if (configured)
        configured = migrate(db, migrations(), path);
    if (!configured) {
        sqlite3_close(db);
        return configured.error();
    }
    auto version = readSchemaVersion(db);
    if (!version) {
        sqlite3_close(db);
        return version.error();
    }
    return Store(db, path, version.value());
}

Store::Store(sqlite3* db, std::string path, int schemaVersion)
    : m_db(db), m_path(std::move(path)), m_schemaVersion(schemaVersion),
      m_statements(std::make_unique<StatementCache>()) {}

Store::Store(Store&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_path(std::move(other.m_path)),
      m_schemaVersion(other.m_schemaVersion), m_statements(std::move(other.m_statements)) {}

Store& Store::operator=(Store&& other) noexcept {
    if (this != &other) {
        m_statements.reset(); // statements are finalized before their connection closes
        sqlite3_close(m_db);
        m_db = std::exchange(other.m_db, nullptr);
        m_path = std::move(other.m_path);
        m_schemaVersion = other.m_schemaVersion;
        m_statements = std::move(other.m_statements);
    }
    return *this;
}

Store::~Store() {
    m_statements.reset();
    sqlite3_close(m_db);
}

Result<Statement*> Store::prepared(const char* sql) {
    auto& cache = m_statements->statements;
    if (auto found = cache.find(sql); found != cache.end()) {
        found->second.reset();
        return &found->second;
    }
    auto statement = Statement::prepare(m_db, sql);
    if (!statement)
        return statement.error();
    return &cache.emplace(sql, std::move(statement).value()).first->second;
}

Error Store::failure(const std::string& what) const {
    return makeError(ErrorCode::System, "cannot " + what + " in the database " + m_path + ": " +
                                            sqliteError(m_db) + "; " + adviceFor(sqlite3_extended_errcode(m_db)));
}

int Store::schemaVersion() const {
    return m_schemaVersion;
}

// ---- tasks

namespace {

constexpr const char* kTaskColumns = "id, prompt, workspace, spec, status, created_at, started_at, finished_at, "
                                     "finish_reason, summary, error, steps, tokens_in, tokens_out, runs";

TaskRecord readTask(const Statement& row) {
    TaskRecord task;
    task.id = row.text(0);
    task.prompt = row.text(1);
    task.workspace = row.text(2);
    task.spec = row.text(3);
    // The CHECK constraint keeps unknown names out.
    task.status = taskStatusFromName(row.text(4)).value_or(TaskStatus::Failed);
    task.createdAt = row.text(5);
    task.startedAt = row.text(6);
    task.finishedAt = row.text(7);
    task.finishReason = row.text(8);
    task.summary = row.text(9);
    task.error = row.text(10);
    task.steps = row.uint(11);
    task.tokensIn = row.uint(12);
    task.tokensOut = row.uint(13);
    task.runs = row.uint(14);
    return task;
}

// Binds every column but id and created_at from index 1; id goes last (14), created_at after it (15).
void bindTask(Statement& statement, const TaskRecord& task) {
    statement.bind(1, task.prompt);
    statement.bind(2, task.workspace);
    statement.bind(3, task.spec);
    statement.bind(4, std::string_view(taskStatusName(task.status)));
    statement.bind(5, task.startedAt);
    statement.bind(6, task.finishedAt);
    statement.bind(7, task.finishReason);
    statement.bind(8, task.summary);
    statement.bind(9, task.error);
    statement.bind(10, task.steps);
    statement.bind(11, task.tokensIn);
    statement.bind(12, task.tokensOut);
    statement.bind(13, task.runs);
    statement.bind(14, task.id);
}

constexpr const char* kInsertTask =
    "INSERT INTO tasks (prompt, workspace, spec, status, started_at, finished_at, finish_reason, summary, error, "
    "steps, tokens_in, tokens_out, runs, id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
    "?12, ?13, ?14, ?15)";
constexpr const char* kUpdateTask =
    "UPDATE tasks SET prompt = ?1, workspace = ?2, spec = ?3, status = ?4, started_at = ?5, finished_at = ?6, "
    "finish_reason = ?7, summary = ?8, error = ?9, steps = ?10, tokens_in = ?11, tokens_out = ?12, runs = ?13 "
    "WHERE id = ?14";
constexpr const char* kSelectTask = "SELECT id, prompt, workspace, spec, status, created_at, started_at, "
                                    "finished_at, finish_reason, summary, error, steps, tokens_in, tokens_out, "
                                    "runs FROM tasks WHERE id = ?1";
// Newest first; rowid breaks ties between tasks created in the same millisecond.
constexpr const char* kSelectTasks = "SELECT id, prompt, workspace, spec, status, created_at, started_at, "
                                     "finished_at, finish_reason, summary, error, steps, tokens_in, tokens_out, "
                                     "runs FROM tasks ORDER BY created_at DESC, rowid DESC";
constexpr const char* kSelectTasksWithStatus =
    "SELECT id, prompt, workspace, spec, status, created_at, started_at, finished_at, finish_reason, summary, "
    "error, steps, tokens_in, tokens_out, runs FROM tasks WHERE status = ?1 ORDER BY created_at DESC, rowid DESC";

} // namespace

Status Store::insertTask(const TaskRecord& task) {
    auto found = prepared(kInsertTask);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    bindTask(statement, task);
    statement.bind(15, task.createdAt);
    if (statement.step() != SQLITE_DONE) {
        if (sqlite3_extended_errcode(m_db) == SQLITE_CONSTRAINT_PRIMARYKEY)
            return makeError(ErrorCode::InvalidArgument,
                             "cannot add task " + task.id + ": a task with that id already exists");
        return failure("add task " + task.id);
    }
    return Ok{};
}

Status Store::updateTask(const TaskRecord& task) {
    auto found = prepared(kUpdateTask);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    bindTask(statement, task);
    if (statement.step() != SQLITE_DONE)
        return failure("update task " + task.id);
    if (sqlite3_changes(m_db) == 0)
        return makeError(ErrorCode::NotFound, "cannot update task " + task.id + ": no such task in " + m_path);
    return Ok{};
}

Result<std::optional<TaskRecord>> Store::task(const std::string& id) {
    auto found = prepared(kSelectTask);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, id);
    const int rc = statement.step();
    if (rc == SQLITE_DONE)
        return std::optional<TaskRecord>();
    if (rc != SQLITE_ROW)
        return failure("read task " + id);
    return std::optional<TaskRecord>(readTask(statement));
}

namespace {

template <typename Row, typename Read, typename Failed>
Result<std::vector<Row>> collect(Statement& statement, Read read, Failed failed) {
    std::vector<Row> rows;
    int rc = SQLITE_ROW;
    while ((rc = statement.step()) == SQLITE_ROW)
        rows.push_back(read(statement));
    if (rc != SQLITE_DONE)
        return failed();
    return rows;
}

} // namespace

Result<std::vector<TaskRecord>> Store::tasks() {
    auto found = prepared(kSelectTasks);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    return collect<TaskRecord>(statement, readTask, [this] { return failure("list the tasks"); });
}

Result<std::vector<TaskRecord>> Store::tasksWithStatus(TaskStatus status) {
    auto found = prepared(kSelectTasksWithStatus);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, std::string_view(taskStatusName(status)));
    return collect<TaskRecord>(statement, readTask, [&] {
        return failure(std::string("list the ") + taskStatusName(status) + " tasks");
    });
}

// ---- events

namespace {

constexpr const char* kInsertEvent =
    "INSERT INTO events (task_id, seq, ts, type, step, tool, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
constexpr const char* kSelectEvents = "SELECT task_id, seq, ts, type, step, tool, body FROM events "
                                      "WHERE task_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3";
constexpr const char* kLastSeq = "SELECT max(seq) FROM events WHERE task_id = ?1";

EventRow readEvent(const Statement& row) {
    EventRow event;
    event.taskId = row.text(0);
    event.seq = row.uint(1);
    event.ts = row.text(2);
    event.type = row.text(3);
    event.step = row.uint(4);
    event.tool = row.text(5);
    event.body = row.text(6);
    return event;
}

} // namespace

Status Store::appendEvents(const std::vector<EventRow>& events) {
    if (events.empty())
        return Ok{};
    auto found = prepared(kInsertEvent);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    auto transaction = Transaction::begin(m_db);
    if (!transaction)
        return failure("start writing " + std::to_string(events.size()) + " events");
    for (const auto& event : events) {
        statement.bind(1, event.taskId);
        statement.bind(2, event.seq);
        statement.bind(3, event.ts);
        statement.bind(4, event.type);
        statement.bind(5, event.step);
        if (!event.tool.empty())
            statement.bind(6, event.tool);
        statement.bind(7, event.body);
        const int rc = statement.step();
        statement.reset();
        if (rc == SQLITE_DONE)
            continue;
        const std::string which = "event seq " + std::to_string(event.seq) + " of task " + event.taskId;
        const int code = sqlite3_extended_errcode(m_db);
        if (code == SQLITE_CONSTRAINT_PRIMARYKEY)
            return makeError(ErrorCode::InvalidArgument,
                             which + " is already stored: events were repeated or replayed; none of the " +
                                 std::to_string(events.size()) + " events of this batch were written");
        if (code == SQLITE_CONSTRAINT_FOREIGNKEY)
            return makeError(ErrorCode::InvalidArgument,
                             "cannot store " + which + ": the task is not in the database; add the task first");
        return failure("store " + which);
    }
    if (!transaction->commit())
        return failure("commit " + std::to_string(events.size()) + " events");
    return Ok{};
}

Result<std::vector<EventRow>> Store::events(const std::string& taskId, std::uint64_t afterSeq,
                                            std::uint64_t limit) {
    auto found = prepared(kSelectEvents);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, taskId);
    statement.bind(2, afterSeq);
    statement.bind(3, limit); // clamped to INT64_MAX, which is "no limit"
    return collect<EventRow>(statement, readEvent, [&] { return failure("read the events of task " + taskId); });
}

Result<std::uint64_t> Store::lastSeq(const std::string& taskId) {
    auto found = prepared(kLastSeq);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, taskId);
    if (statement.step() != SQLITE_ROW)
        return failure("read the last event of task " + taskId);
    return statement.uint(0); // max() of no rows is NULL, read as 0
}

// ---- approvals

namespace {

constexpr const char* kInsertApproval =
    "INSERT INTO approvals (task_id, call_id, tool, arguments, reason, requested_at, approved, decided_by, note, "
    "decided_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
constexpr const char* kUpdateApproval =
    "UPDATE approvals SET tool = ?3, arguments = ?4, reason = ?5, requested_at = ?6, approved = ?7, "
    "decided_by = ?8, note = ?9, decided_at = ?10 WHERE task_id = ?1 AND call_id = ?2";
constexpr const char* kSelectApprovals =
    "SELECT task_id, call_id, tool, arguments, reason, requested_at, approved, decided_by, note, decided_at "
    "FROM approvals WHERE task_id = ?1 ORDER BY requested_at, rowid";

void bindApproval(Statement& statement, const ApprovalRecord& approval) {
    statement.bind(1, approval.taskId);
    statement.bind(2, approval.callId);
    statement.bind(3, approval.tool);
    statement.bind(4, approval.arguments);
    statement.bind(5, approval.reason);
    statement.bind(6, approval.requestedAt);
    statement.bind(7, approval.approved);
    statement.bind(8, approval.decidedBy);
    statement.bind(9, approval.note);
    statement.bind(10, approval.decidedAt);
}

ApprovalRecord readApproval(const Statement& row) {
    ApprovalRecord approval;
    approval.taskId = row.text(0);
    approval.callId = row.text(1);
    approval.tool = row.text(2);
    approval.arguments = row.text(3);
    approval.reason = row.text(4);
    approval.requestedAt = row.text(5);
    approval.approved = row.optionalBool(6);
    approval.decidedBy = row.text(7);
    approval.note = row.text(8);
    approval.decidedAt = row.text(9);
    return approval;
}

} // namespace

Status Store::insertApproval(const ApprovalRecord& approval) {
    auto found = prepared(kInsertApproval);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    bindApproval(statement, approval);
    if (statement.step() != SQLITE_DONE) {
        const std::string which = "the approval of call " + approval.callId + " of task " + approval.taskId;
        const int code = sqlite3_extended_errcode(m_db);
        if (code == SQLITE_CONSTRAINT_PRIMARYKEY)
            return makeError(ErrorCode::InvalidArgument, "cannot record " + which + ": it is already recorded");
        if (code == SQLITE_CONSTRAINT_FOREIGNKEY)
            return makeError(ErrorCode::InvalidArgument,
                             "cannot record " + which + ": the task is not in the database; add the task first");
        return failure("record " + which);
    }
    return Ok{};
}

Status Store::updateApproval(const ApprovalRecord& approval) {
    auto found = prepared(kUpdateApproval);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    bindApproval(statement, approval);
    const std::string which = "the approval of call " + approval.callId + " of task " + approval.taskId;
    if (statement.step() != SQLITE_DONE)
        return failure("update " + which);
    if (sqlite3_changes(m_db) == 0)
        return makeError(ErrorCode::NotFound, "cannot update " + which + ": it was never requested");
    return Ok{};
}

Result<std::vector<ApprovalRecord>> Store::approvals(const std::string& taskId) {
    auto found = prepared(kSelectApprovals);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, taskId);
    return collect<ApprovalRecord>(statement, readApproval,
                                   [&] { return failure("read the approvals of task " + taskId); });
}

// ---- artifacts

namespace {

constexpr const char* kPutArtifact = "INSERT INTO artifacts (task_id, path, bytes, sha256) VALUES (?1, ?2, ?3, ?4) "
                                     "ON CONFLICT (task_id, path) DO UPDATE SET bytes = excluded.bytes, "
                                     "sha256 = excluded.sha256";
constexpr const char* kSelectArtifacts =
    "SELECT task_id, path, bytes, sha256 FROM artifacts WHERE task_id = ?1 ORDER BY path";

ArtifactRecord readArtifact(const Statement& row) {
    return ArtifactRecord{row.text(0), row.text(1), row.uint(2), row.text(3)};
}

} // namespace

Status Store::putArtifact(const ArtifactRecord& artifact) {
    auto found = prepared(kPutArtifact);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, artifact.taskId);
    statement.bind(2, artifact.path);
    statement.bind(3, artifact.bytes);
    statement.bind(4, artifact.sha256);
    if (statement.step() != SQLITE_DONE) {
        const std::string which = "the artifact " + artifact.path + " of task " + artifact.taskId;
        if (sqlite3_extended_errcode(m_db) == SQLITE_CONSTRAINT_FOREIGNKEY)
            return makeError(ErrorCode::InvalidArgument,
                             "cannot record " + which + ": the task is not in the database; add the task first");
        return failure("record " + which);
    }
    return Ok{};
}

Result<std::vector<ArtifactRecord>> Store::artifacts(const std::string& taskId) {
    auto found = prepared(kSelectArtifacts);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, taskId);
    return collect<ArtifactRecord>(statement, readArtifact,
                                   [&] { return failure("read the artifacts of task " + taskId); });
}

// ---- memories

namespace {

constexpr const char* kMemoryGet = "SELECT value FROM memories WHERE prefix = ?1 AND ns = ?2 AND key = ?3";
constexpr const char* kMemoryPut =
    "INSERT INTO memories (prefix, ns, key, value, updated_at) "
    "VALUES (?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) "
    "ON CONFLICT (prefix, ns, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at";
// The prefix filter is an exact comparison on the content table, joined on the index's rowid: the FTS5
// index itself knows nothing of prefixes. (bm25's document frequencies are the whole index's, so other
// prefixes' entries can change the order of results, never which entries are returned.)
constexpr const char* kMemoryRanked =
    "SELECT m.ns, m.key, m.value FROM memories_fts JOIN memories AS m ON m.id = memories_fts.rowid "
    "WHERE memories_fts MATCH ?1 AND m.prefix = ?2 ORDER BY bm25(memories_fts), m.ns, m.key LIMIT ?3";
constexpr const char* kMemorySubstring =
    "SELECT ns, key, value FROM memories WHERE prefix = ?1 "
    "AND (key LIKE ?2 ESCAPE '\\' OR value LIKE ?2 ESCAPE '\\') ORDER BY ns, key LIMIT ?3";

MemoryRow readMemory(const Statement& row) {
    return MemoryRow{row.text(0), row.text(1), row.text(2)};
}

Status checkPrefix(const std::string& prefix) {
    if (prefix.empty())
        return makeError(ErrorCode::InvalidArgument,
                         "the memory prefix is empty: every memory call needs the task's memory_prefix");
    return Ok{};
}

} // namespace

Result<std::optional<std::string>> Store::memoryGet(const std::string& prefix, const std::string& ns,
                                                    const std::string& key) {
    if (auto valid = checkPrefix(prefix); !valid)
        return valid.error();
    auto found = prepared(kMemoryGet);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, prefix);
    statement.bind(2, ns);
    statement.bind(3, key);
    const int rc = statement.step();
    if (rc == SQLITE_DONE)
        return std::optional<std::string>();
    if (rc != SQLITE_ROW)
        return failure("read the memory " + key);
    return std::optional<std::string>(statement.text(0));
}

Status Store::memoryPut(const std::string& prefix, const std::string& ns, const std::string& key,
                        const std::string& value) {
    if (auto valid = checkPrefix(prefix); !valid)
        return valid.error();
    auto found = prepared(kMemoryPut);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, prefix);
    statement.bind(2, ns);
    statement.bind(3, key);
    statement.bind(4, value);
    if (statement.step() != SQLITE_DONE)
        return failure("save the memory " + key);
    return Ok{};
}

Result<std::vector<MemoryRow>> Store::memorySearch(const std::string& prefix, const std::string& query,
                                                   std::uint64_t limit, bool ranked) {
    if (auto valid = checkPrefix(prefix); !valid)
        return valid.error();
    std::string pattern;
    if (ranked) {
        pattern = ftsMatchQuery(query);
        if (pattern.empty())
            return std::vector<MemoryRow>(); // no word: nothing matches, and FTS5 is never given an empty query
    } else {
        pattern = likeSubstringPattern(query);
    }
    auto found = prepared(ranked ? kMemoryRanked : kMemorySubstring);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(ranked ? 1 : 2, pattern);
    statement.bind(ranked ? 2 : 1, prefix);
    statement.bind(3, limit);
    return collect<MemoryRow>(statement, readMemory, [&] { return failure("search the memories"); });
}

// ---- settings

namespace {

constexpr const char* kSelectSetting = "SELECT value FROM settings WHERE key = ?1";
constexpr const char* kPutSetting =
    "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value";

} // namespace

Result<std::optional<std::string>> Store::setting(const std::string& key) {
    auto found = prepared(kSelectSetting);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, key);
    const int rc = statement.step();
    if (rc == SQLITE_DONE)
        return std::optional<std::string>();
    if (rc != SQLITE_ROW)
        return failure("read the setting " + key);
    return std::optional<std::string>(statement.text(0));
}

Status Store::setSetting(const std::string& key, const std::string& value) {
    auto found = prepared(kPutSetting);
    if (!found)
        return found.error();
    Statement& statement = *found.value();
    const ResetOnExit reset(statement);
    statement.bind(1, key);
    statement.bind(2, value);
    if (statement.step() != SQLITE_DONE)
        return failure("save the setting " + key);
    return Ok{};
}

// ---- checks

Result<std::string> Store::integrityCheck() {
    auto check = Statement::prepare(m_db, "PRAGMA integrity_check");
    if (!check)
        return check.error();
    std::string report;
    int rc = SQLITE_ROW;
    while ((rc = check->step()) == SQLITE_ROW) {
        if (!report.empty())
            report += '\n';
        report += check->text(0);
    }
    if (rc != SQLITE_DONE)
        return failure("check the integrity");
    if (report != "ok")
        return report;
    // The full-text index is a second copy of the memories: check that it still matches them.
    if (!execute(m_db, "INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')"))
        return "the memory search index does not match the memories (" + sqliteError(m_db) +
               "); it can be rebuilt: INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')";
    return report;
}

} // namespace warren::control
