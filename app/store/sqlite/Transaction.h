#pragma once
// A write transaction that rolls back unless committed, so that every early return on an error leaves the
// database as it was. BEGIN IMMEDIATE takes the write lock up front: a writer that would otherwise fail
// with SQLITE_BUSY half-way waits (busy_timeout) at the start instead.

#include "common/Result.h"

#include <string>

struct sqlite3;

namespace warren::control {

class Transaction {
public:
    static Result<Transaction> begin(sqlite3* db);

    Transaction(Transaction&& other) noexcept;
    Transaction& operator=(Transaction&&) = delete;
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction(); // rolls back when not committed

    Status commit();

private:
    explicit Transaction(sqlite3* db) : m_db(db) {}
    sqlite3* m_db = nullptr;
};

} // namespace warren::control
