#include "app/store/sqlite/Statement.h"

#include <limits>
#include <sqlite3.h>
#include <utility>

namespace warren::control {

Result<Statement> Statement::prepare(sqlite3* db, std::string_view sql) {
    sqlite3_stmt* statement = nullptr;
    // PERSISTENT: these statements live as long as the connection, which tells SQLite to keep them out of
    // its short-lived lookaside memory.
    const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                      &statement, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(statement);
        return makeError(ErrorCode::System, "cannot prepare the query \"" + std::string(sql.substr(0, 60)) +
                                                "\": " + sqliteError(db) +
                                                "; the database schema may be damaged: run `warren doctor`");
    }
    return Statement(statement);
}

Statement::Statement(Statement&& other) noexcept : m_statement(std::exchange(other.m_statement, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(m_statement);
        m_statement = std::exchange(other.m_statement, nullptr);
    }
    return *this;
}

Statement::~Statement() {
    sqlite3_finalize(m_statement);
}

void Statement::bind(int index, std::string_view text) {
    // SQLITE_TRANSIENT: the caller's string may not outlive the step.
    sqlite3_bind_text64(m_statement, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

void Statement::bind(int index, std::uint64_t value) {
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<sqlite3_int64>::max());
    sqlite3_bind_int64(m_statement, index, static_cast<sqlite3_int64>(value > kMax ? kMax : value));
}

void Statement::bind(int index, std::optional<bool> value) {
    if (value)
        sqlite3_bind_int(m_statement, index, *value ? 1 : 0);
    else
        sqlite3_bind_null(m_statement, index);
}

void Statement::bindNull(int index) {
    sqlite3_bind_null(m_statement, index);
}

int Statement::step() {
    return sqlite3_step(m_statement);
}

void Statement::reset() {
    sqlite3_reset(m_statement);
    sqlite3_clear_bindings(m_statement);
}

std::string Statement::text(int column) const {
    const auto* bytes = sqlite3_column_text(m_statement, column);
    if (!bytes)
        return {};
    return std::string(reinterpret_cast<const char*>(bytes),
                       static_cast<std::size_t>(sqlite3_column_bytes(m_statement, column)));
}

std::uint64_t Statement::uint(int column) const {
    const sqlite3_int64 value = sqlite3_column_int64(m_statement, column);
    return value < 0 ? 0 : static_cast<std::uint64_t>(value);
}

std::optional<bool> Statement::optionalBool(int column) const {
    if (sqlite3_column_type(m_statement, column) == SQLITE_NULL)
        return std::nullopt;
    return sqlite3_column_int(m_statement, column) != 0;
}

std::string sqliteError(sqlite3* db) {
    return std::string(sqlite3_errmsg(db)) + " (code " + std::to_string(sqlite3_extended_errcode(db)) + ")";
}

Status execute(sqlite3* db, std::string_view sql) {
    const std::string text(sql); // sqlite3_exec needs a terminated string
    char* message = nullptr;
    if (sqlite3_exec(db, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        std::string what = message ? message : sqlite3_errmsg(db);
        sqlite3_free(message);
        return makeError(ErrorCode::System, what);
    }
    return Ok{};
}

} // namespace warren::control
