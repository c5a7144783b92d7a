#pragma once
// One open SQLite connection and the statements prepared on it. A statement is prepared on first use and
// kept for the connection's life (most of the speed of a batched insert); query() hands it out ready to
// bind, and the Query resets it when done, so no read snapshot stays open between calls.

#include "app/store/sqlite/Query.h"
#include "app/store/sqlite/Statement.h"
#include "common/Result.h"

#include <functional>
#include <string>
#include <unordered_map>

struct sqlite3;

namespace warren::control {

class SqliteConnection {
public:
    SqliteConnection(sqlite3* db, std::string path); // owns db from now on
    ~SqliteConnection();                             // finalizes the statements, then closes
    SqliteConnection(const SqliteConnection&) = delete;
    SqliteConnection& operator=(const SqliteConnection&) = delete;

    // sql is a string literal: the cache is keyed by its address.
    Query query(const char* sql);

    // "cannot WHAT in the database PATH: SQLite's message; what to do", from the connection's last error.
    // Told to the observer (observeErrors) too.
    Error failure(const std::string& what) const;
    void observeErrors(std::function<void(const Error&)> observer) { m_observer = std::move(observer); }
    int errorCode() const; // the last error's extended result code
    int changes() const;   // rows changed by the last statement

    sqlite3* handle() const { return m_db; }
    const std::string& path() const { return m_path; }

private:
    sqlite3* m_db = nullptr;
    std::string m_path;
    std::unordered_map<const char*, Statement> m_statements;
    std::function<void(const Error&)> m_observer;
};

// What to do about an error, by SQLite's primary result code.
std::string adviceFor(int code);

} // namespace warren::control
