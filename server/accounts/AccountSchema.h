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

// The rule that fences events by their task's lease (docs/SERVER.md, "Replicas"): a statement that adds
// events of a task whose lease another holder has, alive, is refused (control::kRefusedByRuleState) when
// the connection names its writer (control::kWriterSetting) and that writer is not the holder. Installed
// over the task store's events table, so after that store's migrations; again at each start, which
// replaces the rule with this build's.
Status fenceEventWrites(control::PgConnection& db);

// The stored version, 0 before the first migration.
Result<int> storedAccountSchemaVersion(control::PgConnection& db);

} // namespace warren::accounts
