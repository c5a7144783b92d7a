#include "app/store/sqlite/SqliteConnection.h"

#include <sqlite3.h>
#include <utility>

namespace warren::control {

SqliteConnection::SqliteConnection(sqlite3* db, std::string path) : m_db(db), m_path(std::move(path)) {}

SqliteConnection::~SqliteConnection() {
    m_statements.clear(); // statements are finalized before their connection closes
    sqlite3_close(m_db);
}

Query SqliteConnection::query(const char* sql) {
    if (auto found = m_statements.find(sql); found != m_statements.end())
        return Query(*this, &found->second); // reset when its last use ended
    auto statement = Statement::prepare(m_db, sql);
    if (!statement)
        return Query(*this, statement.error());
    return Query(*this, &m_statements.emplace(sql, std::move(statement).value()).first->second);
}

Error SqliteConnection::failure(const std::string& what) const {
    Error error = makeError(ErrorCode::System, "cannot " + what + " in the database " + m_path + ": " +
                                                   sqliteError(m_db) + "; " + adviceFor(errorCode()));
    if (m_observer)
        m_observer(error);
    return error;
}

int SqliteConnection::errorCode() const {
    return sqlite3_extended_errcode(m_db);
}

int SqliteConnection::changes() const {
    return sqlite3_changes(m_db);
}

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

} // namespace warren::control
