#pragma once
// The store's side of a PgConnection::exec, so that no call writes out parameter conversion or row
// reading by hand:
//     pgOne(m_db.exec("read task " + id, kSelectTask, pgParams(id)), readTask)
// pgParams turns the store's values into text parameters: strings, unsigned integers (decimal),
// std::optional<bool> ("t"/"f", NULL when nullopt) and std::optional<std::string_view> (NULL when nullopt).

#include "app/store/postgres/PgConnection.h"

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace warren::control {

template <typename Value> PgParam pgParam(const Value& value) {
    if constexpr (std::is_same_v<Value, std::optional<bool>>) {
        return value ? PgParam(*value ? "t" : "f") : std::nullopt;
    } else if constexpr (std::is_same_v<Value, std::optional<std::string_view>>) {
        return value ? PgParam(std::string(*value)) : std::nullopt;
    } else if constexpr (std::is_integral_v<Value>) {
        static_assert(std::is_unsigned_v<Value>, "the store binds counts, sizes and seqs: unsigned");
        return std::to_string(value);
    } else {
        return std::string(std::string_view(value));
    }
}

template <typename... Values> std::vector<PgParam> pgParams(const Values&... values) {
    return {pgParam(values)...};
}

// read(const PgRow&) -> Row for every row.
template <typename Read, typename Row = std::invoke_result_t<Read, const PgRow&>>
Result<std::vector<Row>> pgAll(Result<PgReply> reply, Read read) {
    if (!reply)
        return reply.error();
    std::vector<Row> rows;
    rows.reserve(reply->rows.size());
    for (const PgRow& row : reply->rows)
        rows.push_back(read(row));
    return rows;
}

// read(row) of the first row, or nullopt when there is none.
template <typename Read, typename Row = std::invoke_result_t<Read, const PgRow&>>
Result<std::optional<Row>> pgOne(Result<PgReply> reply, Read read) {
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return std::optional<Row>();
    return std::optional<Row>(read(reply->rows.front()));
}

// A statement that returns no rows, as a Status.
inline Status pgRun(Result<PgReply> reply) {
    if (!reply)
        return reply.error();
    return Ok{};
}

// PostgreSQL's bigint is signed: a count beyond it means "no limit" (LIMIT, seq > N).
inline std::uint64_t pgClamp(std::uint64_t value) {
    constexpr std::uint64_t kMax = 9223372036854775807ULL;
    return value > kMax ? kMax : value;
}

} // namespace warren::control
