#include "app/store/sqlite/Query.h"

#include "app/store/sqlite/SqliteConnection.h"

#include <sqlite3.h>

namespace warren::control {

Query::Query(SqliteConnection& connection, Result<Statement*> statement) : m_connection(connection) {
    static_assert(kRow == SQLITE_ROW && kDone == SQLITE_DONE);
    if (statement)
        m_statement = statement.value();
    else
        m_prepareError = statement.error();
}

Query::~Query() {
    reset();
}

void Query::reset() {
    if (m_statement)
        m_statement->reset();
    m_bound = 0;
}

Status Query::run(const std::string& what) {
    return runOr([&](int) { return failure(what); });
}

Result<int> Query::changes(const std::string& what) {
    if (auto ran = run(what); !ran)
        return ran.error();
    return m_connection.changes();
}

Error Query::failure(const std::string& what) const {
    return m_connection.failure(what);
}

int Query::extendedCode() const {
    return m_connection.errorCode();
}

} // namespace warren::control
