#pragma once
// One prepared SQLite statement, owned: binds by 1-based index, steps, reads columns and resets. The
// SqliteConnection keeps statements prepared once and reused (Query is how the store uses them), which is
// most of the speed of a batched insert. Unsigned values are stored as SQLite's signed 64-bit integers;
// values above INT64_MAX are clamped (no seq, count or token total comes near).

#include "common/Result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace warren::control {

class Statement {
public:
    static Result<Statement> prepare(sqlite3* db, std::string_view sql);

    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    void bind(int index, std::string_view text);
    void bind(int index, std::uint64_t value);
    void bind(int index, std::optional<bool> value); // NULL when nullopt
    void bindNull(int index);

    // SQLITE_ROW, SQLITE_DONE or an error code (the connection's message: sqlite3_errmsg).
    int step();
    // Ready for the next binding; keeps the plan.
    void reset();

    std::string text(int column) const;
    std::uint64_t uint(int column) const; // negative values read as 0
    std::optional<bool> optionalBool(int column) const;

private:
    explicit Statement(sqlite3_stmt* statement) : m_statement(statement) {}
    sqlite3_stmt* m_statement = nullptr;
};

// The connection's last error: "message (extended code N)".
std::string sqliteError(sqlite3* db);

// Runs SQL that returns no rows (several statements allowed).
Status execute(sqlite3* db, std::string_view sql);

} // namespace warren::control
