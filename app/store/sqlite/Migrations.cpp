#include "app/store/sqlite/Migrations.h"

#include "app/store/sqlite/Statement.h"
#include "app/store/sqlite/Transaction.h"

#include <array>
#include <sqlite3.h>

namespace warren::control {

namespace {

// Version 1: the first schema.
//  - events: the audit trail, keyed (task, seq) so a replayed or repeated seq is refused by the key.
//  - memories: an INTEGER PRIMARY KEY because the FTS5 index refers to rows by rowid, and only an aliased
//    rowid survives VACUUM unchanged; (prefix, ns, key) is the real key, as a UNIQUE constraint. The index
//    is external-content (the text is stored once, in memories) and the triggers keep it in step.
constexpr std::string_view kSchemaV1 = R"sql(
CREATE TABLE tasks (
    id            TEXT PRIMARY KEY NOT NULL,
    prompt        TEXT NOT NULL,
    workspace     TEXT NOT NULL,
    spec          TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'interrupted', 'succeeded',
                                                  'failed', 'cancelled')),
    created_at    TEXT NOT NULL,
    started_at    TEXT NOT NULL DEFAULT '',
    finished_at   TEXT NOT NULL DEFAULT '',
    finish_reason TEXT NOT NULL DEFAULT '',
    summary       TEXT NOT NULL DEFAULT '',
    error         TEXT NOT NULL DEFAULT '',
    steps         INTEGER NOT NULL DEFAULT 0,
    tokens_in     INTEGER NOT NULL DEFAULT 0,
    tokens_out    INTEGER NOT NULL DEFAULT 0,
    runs          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tasks_by_status ON tasks (status);
CREATE INDEX tasks_by_created ON tasks (created_at);

CREATE TABLE events (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    ts      TEXT NOT NULL,
    type    TEXT NOT NULL,
    step    INTEGER NOT NULL,
    tool    TEXT,
    body    TEXT NOT NULL,
    PRIMARY KEY (task_id, seq)
) WITHOUT ROWID;

CREATE TABLE approvals (
    task_id      TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    call_id      TEXT NOT NULL,
    tool         TEXT NOT NULL,
    arguments    TEXT NOT NULL,
    reason       TEXT NOT NULL,
    requested_at TEXT NOT NULL,
    approved     INTEGER CHECK (approved IS NULL OR approved IN (0, 1)),
    decided_by   TEXT NOT NULL DEFAULT '',
    note         TEXT NOT NULL DEFAULT '',
    decided_at   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (task_id, call_id)
);

CREATE TABLE artifacts (
    task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    path    TEXT NOT NULL,
    bytes   INTEGER NOT NULL,
    sha256  TEXT NOT NULL,
    PRIMARY KEY (task_id, path)
) WITHOUT ROWID;

CREATE TABLE memories (
    id         INTEGER PRIMARY KEY,
    prefix     TEXT NOT NULL,
    ns         TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (prefix, ns, key)
);
CREATE VIRTUAL TABLE memories_fts USING fts5 (
    key, value, content = 'memories', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, key, value) VALUES (new.id, new.key, new.value);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, key, value) VALUES ('delete', old.id, old.key, old.value);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, key, value) VALUES ('delete', old.id, old.key, old.value);
    INSERT INTO memories_fts (rowid, key, value) VALUES (new.id, new.key, new.value);
END;

CREATE TABLE settings (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) WITHOUT ROWID;
)sql";

// Version 2: tasks.status may be 'waiting' (the agent asked the user). SQLite changes a CHECK only by
// rebuilding the table (its "other kinds of table schema changes"); migrate() runs every step with foreign
// keys off, so dropping the old table does not cascade into events, approvals and artifacts, and checks
// them before it commits.
constexpr std::string_view kSchemaV2 = R"sql(
CREATE TABLE tasks_v2 (
    id            TEXT PRIMARY KEY NOT NULL,
    prompt        TEXT NOT NULL,
    workspace     TEXT NOT NULL,
    spec          TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'waiting', 'interrupted',
                                                  'succeeded', 'failed', 'cancelled')),
    created_at    TEXT NOT NULL,
    started_at    TEXT NOT NULL DEFAULT '',
    finished_at   TEXT NOT NULL DEFAULT '',
    finish_reason TEXT NOT NULL DEFAULT '',
    summary       TEXT NOT NULL DEFAULT '',
    error         TEXT NOT NULL DEFAULT '',
    steps         INTEGER NOT NULL DEFAULT 0,
    tokens_in     INTEGER NOT NULL DEFAULT 0,
    tokens_out    INTEGER NOT NULL DEFAULT 0,
    runs          INTEGER NOT NULL DEFAULT 0
);
INSERT INTO tasks_v2 (rowid, id, prompt, workspace, spec, status, created_at, started_at, finished_at,
                      finish_reason, summary, error, steps, tokens_in, tokens_out, runs)
    SELECT rowid, id, prompt, workspace, spec, status, created_at, started_at, finished_at, finish_reason,
           summary, error, steps, tokens_in, tokens_out, runs FROM tasks;
DROP TABLE tasks;
ALTER TABLE tasks_v2 RENAME TO tasks;
CREATE INDEX tasks_by_status ON tasks (status);
CREATE INDEX tasks_by_created ON tasks (created_at);
)sql";

// Version 3: tasks.status may be 'sleeping' (its sandbox released while it waits for its user's answer), by
// the same rebuild as version 2.
constexpr std::string_view kSchemaV3 = R"sql(
CREATE TABLE tasks_v3 (
    id            TEXT PRIMARY KEY NOT NULL,
    prompt        TEXT NOT NULL,
    workspace     TEXT NOT NULL,
    spec          TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'waiting', 'sleeping',
                                                  'interrupted', 'succeeded', 'failed', 'cancelled')),
    created_at    TEXT NOT NULL,
    started_at    TEXT NOT NULL DEFAULT '',
    finished_at   TEXT NOT NULL DEFAULT '',
    finish_reason TEXT NOT NULL DEFAULT '',
    summary       TEXT NOT NULL DEFAULT '',
    error         TEXT NOT NULL DEFAULT '',
    steps         INTEGER NOT NULL DEFAULT 0,
    tokens_in     INTEGER NOT NULL DEFAULT 0,
    tokens_out    INTEGER NOT NULL DEFAULT 0,
    runs          INTEGER NOT NULL DEFAULT 0
);
INSERT INTO tasks_v3 (rowid, id, prompt, workspace, spec, status, created_at, started_at, finished_at,
                      finish_reason, summary, error, steps, tokens_in, tokens_out, runs)
    SELECT rowid, id, prompt, workspace, spec, status, created_at, started_at, finished_at, finish_reason,
           summary, error, steps, tokens_in, tokens_out, runs FROM tasks;
DROP TABLE tasks;
ALTER TABLE tasks_v3 RENAME TO tasks;
CREATE INDEX tasks_by_status ON tasks (status);
CREATE INDEX tasks_by_created ON tasks (created_at);
)sql";

// Version 4: when a task's retention period removed its checkpoints, snapshots and artifacts.
constexpr std::string_view kSchemaV4 = R"sql(
ALTER TABLE tasks ADD COLUMN removed_at TEXT NOT NULL DEFAULT '';
)sql";

// Version 5: tasks.status may be 'moved' (sent to another control plane, `warren move`), and where it went,
// by the same rebuild as version 2.
constexpr std::string_view kSchemaV5 = R"sql(
CREATE TABLE tasks_v5 (
    id            TEXT PRIMARY KEY NOT NULL,
    prompt        TEXT NOT NULL,
    workspace     TEXT NOT NULL,
    spec          TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'waiting', 'sleeping',
                                                  'interrupted', 'succeeded', 'failed', 'cancelled', 'moved')),
    created_at    TEXT NOT NULL,
    started_at    TEXT NOT NULL DEFAULT '',
    finished_at   TEXT NOT NULL DEFAULT '',
    finish_reason TEXT NOT NULL DEFAULT '',
    summary       TEXT NOT NULL DEFAULT '',
    error         TEXT NOT NULL DEFAULT '',
    steps         INTEGER NOT NULL DEFAULT 0,
    tokens_in     INTEGER NOT NULL DEFAULT 0,
    tokens_out    INTEGER NOT NULL DEFAULT 0,
    runs          INTEGER NOT NULL DEFAULT 0,
    removed_at    TEXT NOT NULL DEFAULT '',
    moved_to      TEXT NOT NULL DEFAULT '',
    moved_as      TEXT NOT NULL DEFAULT ''
);
INSERT INTO tasks_v5 (rowid, id, prompt, workspace, spec, status, created_at, started_at, finished_at,
                      finish_reason, summary, error, steps, tokens_in, tokens_out, runs, removed_at)
    SELECT rowid, id, prompt, workspace, spec, status, created_at, started_at, finished_at, finish_reason,
           summary, error, steps, tokens_in, tokens_out, runs, removed_at FROM tasks;
DROP TABLE tasks;
ALTER TABLE tasks_v5 RENAME TO tasks;
CREATE INDEX tasks_by_status ON tasks (status);
CREATE INDEX tasks_by_created ON tasks (created_at);
)sql";

constexpr std::array<Migration, 5> kMigrations = {{
    {1, "the first schema: tasks, events, approvals, artifacts, memories with full-text search, settings",
     kSchemaV1},
    {2, "a task may be waiting for the user's reply", kSchemaV2},
    {3, "a task may be sleeping, its sandbox released until its user answers", kSchemaV3},
    {4, "a task says when its retention period removed its bulky parts", kSchemaV4},
    {5, "a task may be moved to another control plane, and says where", kSchemaV5},
}};

} // namespace

std::span<const Migration> migrations() {
    return kMigrations;
}

int latestSchemaVersion() {
    return kMigrations.back().version;
}

Result<int> readSchemaVersion(sqlite3* db) {
    auto query = Statement::prepare(db, "PRAGMA user_version");
    if (!query)
        return query.error();
    if (query->step() != SQLITE_ROW)
        return makeError(ErrorCode::System, "cannot read the schema version: " + sqliteError(db));
    return static_cast<int>(query->uint(0));
}

namespace {

Error newerThanBuild(const std::string& path, int found, int latest) {
    return makeError(ErrorCode::Unsupported,
                     "the database " + path + " has schema version " + std::to_string(found) +
                         ", newer than this build of Warren knows (" + std::to_string(latest) +
                         "): it was written by a newer Warren; update Warren, or use another data directory "
                         "(--data-dir)");
}

// A step that rebuilt a table must leave every reference whole: the first row that does not names its table.
Status checkForeignKeys(sqlite3* db) {
    auto check = Statement::prepare(db, "PRAGMA foreign_key_check");
    if (!check)
        return check.error();
    const int rc = check->step();
    if (rc == SQLITE_ROW)
        return makeError(ErrorCode::System, "a row of " + check->text(0) + " refers to a row of " + check->text(2) +
                                                " that the step removed");
    if (rc != SQLITE_DONE)
        return makeError(ErrorCode::System, "cannot check the foreign keys: " + sqliteError(db));
    return Ok{};
}

// Foreign keys are off while the steps run (SQLite ignores the pragma inside a transaction), so that a
// table rebuilt by a step does not take its references with it; each step is checked before it commits.
class ForeignKeysOff {
public:
    explicit ForeignKeysOff(sqlite3* db) : m_db(db) {
        if (auto query = Statement::prepare(db, "PRAGMA foreign_keys"); query && query->step() == SQLITE_ROW)
            m_wasOn = query->uint(0) != 0;
        if (m_wasOn)
            (void)execute(m_db, "PRAGMA foreign_keys = OFF");
    }
    ~ForeignKeysOff() {
        if (m_wasOn)
            (void)execute(m_db, "PRAGMA foreign_keys = ON");
    }
    ForeignKeysOff(const ForeignKeysOff&) = delete;
    ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

private:
    sqlite3* m_db;
    bool m_wasOn = false;
};

} // namespace

Status migrate(sqlite3* db, std::span<const Migration> steps, const std::string& path) {
    const int latest = steps.empty() ? 0 : steps.back().version;
    // The common case, an up-to-date database, needs no write lock.
    auto found = readSchemaVersion(db);
    if (!found)
        return found.error();
    if (found.value() > latest)
        return newerThanBuild(path, found.value(), latest);
    if (found.value() == latest)
        return Ok{};

    const ForeignKeysOff keysOff(db);
    for (const auto& step : steps) {
        auto transaction = Transaction::begin(db);
        if (!transaction)
            return makeError(ErrorCode::System, "cannot lock the database " + path + " to update its schema: " +
                                                    transaction.error().message +
                                                    "; close other programs using it and try again");
        // Read again under the write lock: another process opening the same file may have just migrated it.
        auto current = readSchemaVersion(db);
        if (!current)
            return current.error();
        if (current.value() > latest)
            return newerThanBuild(path, current.value(), latest);
        if (current.value() >= step.version)
            continue; // the transaction rolls back: nothing was written
        auto applied = execute(db, step.sql);
        if (applied)
            applied = checkForeignKeys(db);
        if (applied)
            applied = execute(db, "PRAGMA user_version = " + std::to_string(step.version));
        if (applied)
            applied = transaction->commit();
        if (!applied)
            return makeError(ErrorCode::System, "cannot bring the database " + path + " to schema version " +
                                                    std::to_string(step.version) + " (" + std::string(step.what) +
                                                    "): " + applied.error().message +
                                                    "; the database is left at version " +
                                                    std::to_string(current.value()) +
                                                    "; report this with the output of `warren doctor`");
    }
    return Ok{};
}

} // namespace warren::control
