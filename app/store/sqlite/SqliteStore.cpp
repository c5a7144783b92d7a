#include "app/store/sqlite/SqliteStore.h"

#include "app/store/sqlite/Migrations.h"
#include "app/store/sqlite/Statement.h"

#include <filesystem>
#include <sqlite3.h>
#include <utility>

namespace warren::control {

namespace {

Status openError(sqlite3* db, const std::string& path, const std::string& what) {
    const int code = db ? sqlite3_extended_errcode(db) : SQLITE_NOMEM;
    std::string advice = adviceFor(code);
    if ((code & 0xff) == SQLITE_NOTADB)
        advice =
            "it is not a Warren database, or it is damaged: move it aside (Warren then creates a new one) "
            "or restore it from a backup";
    return makeError(ErrorCode::System, "cannot open the database " + path + ": " + what + "; " + advice);
}

// Sets up a fresh connection: checked one step at a time, each refusing to continue on failure.
Status configure(sqlite3* db, const std::string& path) {
    if (!sqlite3_compileoption_used("ENABLE_FTS5"))
        return makeError(
            ErrorCode::Unsupported,
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
                         "cannot open the database " + path + " in WAL mode (SQLite chose \"" +
                             mode->text(0) +
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

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const std::string& path) {
    namespace fs = std::filesystem;
    if (path != ":memory:") {
        const fs::path parent = fs::path(path).parent_path();
        std::error_code error;
        if (!parent.empty() && !fs::is_directory(parent, error))
            return makeError(ErrorCode::NotFound,
                             "cannot open the database " + path + ": the directory " + parent.string() +
                                 " does not exist; create it, or pass another --data-dir");
    }
    sqlite3* db = nullptr;
    // NOMUTEX: a Store is one connection used by one thread at a time, so SQLite's own locking is waste.
    const int rc = sqlite3_open_v2(path.c_str(), &db,
                                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
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
    return std::unique_ptr<SqliteStore>(new SqliteStore(db, path, version.value()));
}

Result<std::unique_ptr<Store>> openSqliteStore(const std::string& path) {
    auto store = SqliteStore::open(path);
    if (!store)
        return store.error();
    return std::unique_ptr<Store>(std::move(store).value());
}

// ---- checks

Result<std::string> SqliteStore::integrityCheck() {
    std::string report;
    auto checked =
        m_db.query("PRAGMA integrity_check").each("check the integrity", [&](const Statement& row) {
            if (!report.empty())
                report += '\n';
            report += row.text(0);
        });
    if (!checked)
        return checked.error();
    if (report != "ok")
        return report;
    // The full-text index is a second copy of the memories: check that it still matches them.
    if (!execute(m_db.handle(), "INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')"))
        return "the memory search index does not match the memories (" + sqliteError(m_db.handle()) +
               "); it can be rebuilt: INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')";
    return report;
}

} // namespace warren::control
