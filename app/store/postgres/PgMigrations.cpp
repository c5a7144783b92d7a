#include "app/store/postgres/PgMigrations.h"

#include "app/store/postgres/PgQuery.h"

#include <array>

namespace warren::control {

namespace {

// Any constant of Warren's own: every process migrating a database takes this one lock.
constexpr const char* kLockKey = "7301754923611467873"; // "warren.s" as a big-endian int64

// Version 1: the first schema, the same tables as SQLite's.
//  - tasks.ord and approvals.ord: insertion order, to break ties in time as SQLite's rowid does.
//  - events: keyed (task_id, seq), so a replayed or repeated seq is refused by the key.
//  - memories.search: the words of key and value (ASCII punctuation made spaces, so that the words are
//    MemoryQuery's, not the parser's URLs and file names) as a generated tsvector with a GIN index.
constexpr std::string_view kSchemaV1 = R"sql(
CREATE TABLE tasks (
    id            text PRIMARY KEY,
    prompt        text NOT NULL,
    workspace     text NOT NULL,
    spec          text NOT NULL,
    status        text NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'interrupted', 'succeeded',
                                                  'failed', 'cancelled')),
    created_at    text NOT NULL,
    started_at    text NOT NULL DEFAULT '',
    finished_at   text NOT NULL DEFAULT '',
    finish_reason text NOT NULL DEFAULT '',
    summary       text NOT NULL DEFAULT '',
    error         text NOT NULL DEFAULT '',
    steps         bigint NOT NULL DEFAULT 0,
    tokens_in     bigint NOT NULL DEFAULT 0,
    tokens_out    bigint NOT NULL DEFAULT 0,
    runs          bigint NOT NULL DEFAULT 0,
    ord           bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX tasks_by_status ON tasks (status);
CREATE INDEX tasks_by_created ON tasks (created_at);

CREATE TABLE events (
    task_id text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    seq     bigint NOT NULL,
    ts      text NOT NULL,
    type    text NOT NULL,
    step    bigint NOT NULL,
    tool    text,
    body    text NOT NULL,
    PRIMARY KEY (task_id, seq)
);

CREATE TABLE approvals (
    task_id      text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    call_id      text NOT NULL,
    tool         text NOT NULL,
    arguments    text NOT NULL,
    reason       text NOT NULL,
    requested_at text NOT NULL,
    approved     boolean,
    decided_by   text NOT NULL DEFAULT '',
    note         text NOT NULL DEFAULT '',
    decided_at   text NOT NULL DEFAULT '',
    ord          bigint GENERATED ALWAYS AS IDENTITY,
    PRIMARY KEY (task_id, call_id)
);

CREATE TABLE artifacts (
    task_id text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    path    text NOT NULL,
    bytes   bigint NOT NULL,
    sha256  text NOT NULL,
    PRIMARY KEY (task_id, path)
);

CREATE TABLE memories (
    prefix     text NOT NULL,
    ns         text NOT NULL,
    key        text NOT NULL,
    value      text NOT NULL,
    updated_at text NOT NULL,
    search     tsvector GENERATED ALWAYS AS (
        to_tsvector('simple'::regconfig,
                    regexp_replace(key || ' ' || value, '[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]', ' ', 'g'))
    ) STORED,
    PRIMARY KEY (prefix, ns, key)
);
CREATE INDEX memories_search ON memories USING gin (search);

CREATE TABLE settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);
)sql";

// Version 2: tasks.status may be 'waiting' (the agent asked the user). The constraint has the name
// PostgreSQL gave the column's CHECK in version 1.
constexpr std::string_view kSchemaV2 = R"sql(
ALTER TABLE tasks DROP CONSTRAINT tasks_status_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_status_check
    CHECK (status IN ('queued', 'running', 'paused', 'waiting', 'interrupted', 'succeeded', 'failed', 'cancelled'));
)sql";

// Version 3: tasks.status may be 'sleeping' (its sandbox released while it waits for its user's answer).
constexpr std::string_view kSchemaV3 = R"sql(
ALTER TABLE tasks DROP CONSTRAINT tasks_status_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_status_check
    CHECK (status IN ('queued', 'running', 'paused', 'waiting', 'sleeping', 'interrupted', 'succeeded', 'failed',
                      'cancelled'));
)sql";

// Version 4: when a task's retention period removed its checkpoints, snapshots and artifacts.
constexpr std::string_view kSchemaV4 = R"sql(
ALTER TABLE tasks ADD COLUMN removed_at text NOT NULL DEFAULT '';
)sql";

// Version 5: tasks.status may be 'moved' (sent to another control plane, `warren move`), and where it went.
constexpr std::string_view kSchemaV5 = R"sql(
ALTER TABLE tasks DROP CONSTRAINT tasks_status_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_status_check
    CHECK (status IN ('queued', 'running', 'paused', 'waiting', 'sleeping', 'interrupted', 'succeeded', 'failed',
                      'cancelled', 'moved'));
ALTER TABLE tasks ADD COLUMN moved_to text NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN moved_as text NOT NULL DEFAULT '';
)sql";

constexpr std::array<PgMigration, 5> kMigrations = {{
    {1, "the first schema: tasks, events, approvals, artifacts, memories with full-text search, settings",
     kSchemaV1},
    {2, "a task may be waiting for the user's reply", kSchemaV2},
    {3, "a task may be sleeping, its sandbox released until its user answers", kSchemaV3},
    {4, "a task says when its retention period removed its bulky parts", kSchemaV4},
    {5, "a task may be moved to another control plane, and says where", kSchemaV5},
}};

Error newerThanBuild(const PgConnection& db, int found, int latest) {
    return makeError(ErrorCode::Unsupported,
                     "the database " + db.where() + " has schema version " + std::to_string(found) +
                         ", newer than this build of Warren knows (" + std::to_string(latest) +
                         "): it was written by a newer Warren; update Warren, or use another database");
}

} // namespace

std::span<const PgMigration> pgMigrations() {
    return kMigrations;
}

int pgLatestSchemaVersion() {
    return kMigrations.back().version;
}

Result<int> pgReadSchemaVersion(PgConnection& db) {
    // Two statements: a query naming a missing table fails when it is parsed, whatever its CASE says.
    auto exists =
        pgOne(db.exec("look for the schema history", "SELECT to_regclass('warren_schema') IS NOT NULL"),
              [](const PgRow& row) { return row.optionalBool(0).value_or(false); });
    if (!exists)
        return exists.error();
    if (!exists->value_or(false))
        return 0;
    auto version =
        pgOne(db.exec("read the schema version", "SELECT coalesce(max(version), 0) FROM warren_schema"),
              [](const PgRow& row) { return static_cast<int>(row.uint(0)); });
    if (!version)
        return version.error();
    return version->value_or(0);
}

Result<int> pgMigrate(PgConnection& db, std::span<const PgMigration> steps) {
    const int latest = steps.empty() ? 0 : steps.back().version;
    auto transaction = PgTransaction::begin(db, "update the schema");
    if (!transaction)
        return transaction.error();
    // Held until the transaction ends: a second process migrating at the same time waits here.
    if (auto locked = db.exec("lock the schema for its update", "SELECT pg_advisory_xact_lock($1::bigint)",
                              {std::string(kLockKey)});
        !locked)
        return locked.error();
    auto found = pgReadSchemaVersion(db);
    if (!found)
        return found.error();
    if (*found > latest)
        return newerThanBuild(db, *found, latest);
    // An up-to-date database needs no DDL, so a role without CREATE on the schema can still open it.
    if (*found == 0)
        if (auto created =
                db.execScript("create the schema history",
                              "CREATE TABLE IF NOT EXISTS warren_schema (version integer PRIMARY KEY, "
                              "what text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
            !created)
            return created.error();
    for (const auto& step : steps) {
        if (step.version <= *found)
            continue;
        const std::string what = "bring the schema to version " + std::to_string(step.version) + " (" +
                                 std::string(step.what) + ")";
        auto applied = db.execScript(what, step.sql);
        if (applied)
            applied =
                pgRun(db.exec(what, "INSERT INTO warren_schema (version, what) VALUES ($1::integer, $2)",
                              pgParams(static_cast<unsigned>(step.version), step.what)));
        if (!applied)
            return makeError(applied.error().code,
                             applied.error().message + "; nothing of the update was kept: " +
                                 "the database is left at schema version " + std::to_string(*found));
    }
    if (auto committed = transaction->commit("the schema update"); !committed)
        return committed.error();
    return latest;
}

} // namespace warren::control
