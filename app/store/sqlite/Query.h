#pragma once
// One use of a prepared statement, so that no call of the store writes out prepare, bind, step, read and
// reset by hand:
//     m_db.query(kSelectTask).bind(id).one("read task " + id, readTask)
// bind() binds its values to ?1, ?2, ... in order; run(), changes(), one(), all() and each() step it and
// reset it afterwards (as does the destructor), so a Query can be bound again in a loop and no read
// snapshot stays open. A statement that could not be prepared makes every step return that error.

#include "app/store/sqlite/Statement.h"
#include "common/Result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace warren::control {

class SqliteConnection;

class Query {
public:
    Query(SqliteConnection& connection, Result<Statement*> statement);
    ~Query();
    Query(const Query&) = delete;
    Query& operator=(const Query&) = delete;

    // The next parameters, in order (a second bind() continues where the first stopped): text
    // (std::string, std::string_view), unsigned integers, std::optional<bool> and
    // std::optional<std::string_view> (NULL when nullopt).
    template <typename... Values> Query& bind(const Values&... values) {
        if (m_statement)
            (bindAt(++m_bound, values), ...);
        return *this;
    }

    // A statement that returns no rows.
    Status run(const std::string& what);
    // The same, where failed(extended result code) -> Error says what a failure means (a constraint is the
    // caller's mistake, anything else the connection's failure()); it is only called on a failure.
    template <typename Failed> Status runOr(Failed failed) {
        if (!m_statement)
            return m_prepareError;
        const ResetOnExit reset(*this);
        if (m_statement->step() != kDone)
            return failed(extendedCode());
        return Ok{};
    }
    // Runs it; how many rows it changed.
    Result<int> changes(const std::string& what);

    // visit(const Statement& row) for every row.
    template <typename Visit> Status each(const std::string& what, Visit visit) {
        if (!m_statement)
            return m_prepareError;
        const ResetOnExit reset(*this);
        int rc = kRow;
        while ((rc = m_statement->step()) == kRow)
            visit(std::as_const(*m_statement));
        if (rc != kDone)
            return failure(what);
        return Ok{};
    }
    // read(const Statement& row) -> Row for every row.
    template <typename Read, typename Row = std::invoke_result_t<Read, const Statement&>>
    Result<std::vector<Row>> all(const std::string& what, Read read) {
        std::vector<Row> rows;
        if (auto visited = each(what, [&](const Statement& row) { rows.push_back(read(row)); }); !visited)
            return visited.error();
        return rows;
    }
    // read(row) of the first row, or nullopt when there is none.
    template <typename Read, typename Row = std::invoke_result_t<Read, const Statement&>>
    Result<std::optional<Row>> one(const std::string& what, Read read) {
        if (!m_statement)
            return m_prepareError;
        const ResetOnExit reset(*this);
        const int rc = m_statement->step();
        if (rc == kDone)
            return std::optional<Row>();
        if (rc != kRow)
            return failure(what);
        return std::optional<Row>(read(std::as_const(*m_statement)));
    }

private:
    static constexpr int kRow = 100;  // SQLITE_ROW (checked in Query.cpp)
    static constexpr int kDone = 101; // SQLITE_DONE

    // Ready to be bound again, also on an early return.
    class ResetOnExit {
    public:
        explicit ResetOnExit(Query& query) : m_query(query) {}
        ~ResetOnExit() { m_query.reset(); }
        ResetOnExit(const ResetOnExit&) = delete;
        ResetOnExit& operator=(const ResetOnExit&) = delete;

    private:
        Query& m_query;
    };
    void reset();

    template <typename Value> void bindAt(int index, const Value& value) {
        if constexpr (std::is_same_v<Value, std::optional<bool>>) {
            m_statement->bind(index, value);
        } else if constexpr (std::is_same_v<Value, std::optional<std::string_view>>) {
            if (value)
                m_statement->bind(index, *value);
            else
                m_statement->bindNull(index);
        } else if constexpr (std::is_integral_v<Value>) {
            static_assert(std::is_unsigned_v<Value>, "the store binds counts, sizes and seqs: unsigned");
            m_statement->bind(index, static_cast<std::uint64_t>(value));
        } else {
            m_statement->bind(index, std::string_view(value));
        }
    }
    Error failure(const std::string& what) const;
    int extendedCode() const;

    SqliteConnection& m_connection;
    Statement* m_statement = nullptr;
    int m_bound = 0; // parameters bound so far
    Error m_prepareError;
};

} // namespace warren::control
