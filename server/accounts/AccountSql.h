#pragma once
// The few helpers AccountStore's source files share (AccountStore.cpp: accounts, keys and quotas;
// AccountStoreUsage.cpp: reservations, tokens, ownership and idempotency keys; AccountStoreProviderKeys.cpp
// and AccountStoreHostSecrets.cpp: the provider keys and the secrets users store, sealed;
// AccountStoreMcpServers.cpp: a tenant's MCP servers). Internal.

#include "app/store/postgres/PgConnection.h"
#include "server/accounts/AccountTypes.h"
#include "server/accounts/Limits.h"

#include <QByteArray>
#include <cstdint>
#include <string>

namespace warren::accounts::sql {

inline constexpr const char* kIsoTime = "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'";

// bytea goes in and out as hex text (PgConnection's parameters and columns are text).
inline std::string hex(const std::string& bytes) {
    return QByteArray::fromStdString(bytes).toHex().toStdString();
}

inline std::string unhex(const std::string& text) {
    return QByteArray::fromHex(QByteArray::fromStdString(text)).toStdString();
}

inline std::string num(std::int64_t value) {
    return std::to_string(value);
}

// "max_concurrent, memory_mb, ..." with each column prefixed by alias.
inline std::string quotaColumns(const std::string& alias) {
    std::string columns;
    for (const LimitInfo& info : allLimits())
        columns += (columns.empty() ? "" : ", ") + alias + std::string(info.key);
    return columns;
}

// The quota columns of a row, starting at column first.
inline Limits limitsFromRow(const control::PgRow& row, std::size_t first) {
    Limits limits;
    for (const LimitInfo& info : allLimits()) {
        const auto column = first + static_cast<std::size_t>(info.name);
        if (row.at(column))
            limits.set(info.name, row.uint(column));
    }
    return limits;
}

// The columns of an account, for a SELECT over users u JOIN tenants t.
inline constexpr const char* kAccountColumns = "u.id, u.name, t.id, t.name";

// The account whose kAccountColumns start at column first.
inline Account accountFromRow(const control::PgRow& row, std::size_t first = 0) {
    return Account{static_cast<std::int64_t>(row.uint(first)), row.text(first + 1),
                   static_cast<std::int64_t>(row.uint(first + 2)), row.text(first + 3)};
}

// A refusal for a duplicate key (SQLSTATE 23505) as InvalidArgument with this message.
inline control::PgRefusal refuseDuplicate(std::string message) {
    return [message = std::move(message)](const control::PgRefused& refused) -> std::optional<Error> {
        if (refused.sqlstate == "23505")
            return makeError(ErrorCode::InvalidArgument, message);
        return std::nullopt;
    };
}

inline Error notFound(std::string message) {
    return makeError(ErrorCode::NotFound, std::move(message));
}

// A tenant's id by its name; NotFound naming the command that lists them.
inline Result<std::int64_t> tenantId(control::PgConnection& db, const std::string& tenant) {
    auto reply = db.exec("find tenant " + tenant, "SELECT id FROM tenants WHERE name = $1", {tenant});
    if (!reply)
        return reply.error();
    if (reply->rows.empty())
        return notFound("no tenant " + tenant + " (list-tenants shows them)");
    return static_cast<std::int64_t>(reply->rows.front().uint(0));
}

} // namespace warren::accounts::sql
