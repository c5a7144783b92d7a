#include "app/store/sqlite/Transaction.h"

#include "app/store/sqlite/Statement.h"

#include <sqlite3.h>
#include <utility>

namespace warren::control {

Result<Transaction> Transaction::begin(sqlite3* db) {
    if (auto begun = execute(db, "BEGIN IMMEDIATE"); !begun)
        return begun.error();
    return Transaction(db);
}

Transaction::Transaction(Transaction&& other) noexcept : m_db(std::exchange(other.m_db, nullptr)) {}

Transaction::~Transaction() {
    if (m_db && !sqlite3_get_autocommit(m_db))
        sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
}

Status Transaction::commit() {
    auto committed = execute(m_db, "COMMIT");
    if (committed)
        m_db = nullptr;
    return committed; // on failure the destructor rolls back what is left of the transaction
}

} // namespace warren::control
