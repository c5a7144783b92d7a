#pragma once
// The account store's tables and their versioned migrations, apart from the task store's: its own
// version table (accounts_schema_version) and its own advisory lock, so that the two stores migrate
// independently in one database and several warrend processes starting at once migrate once.

#include "app/store/postgres/PgConnection.h"
#include "common/Result.h"

namespace warren::accounts {

int accountSchemaVersion(); // the version this build migrates to

// Applies every migration after the stored version, each in the one transaction that holds the lock.
// A database newer than this build is refused (run the newer warrend, or restore).
Status migrateAccountSchema(control::PgConnection& db);

// The stored version, 0 before the first migration.
Result<int> storedAccountSchemaVersion(control::PgConnection& db);

} // namespace warren::accounts
