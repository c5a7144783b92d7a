#pragma once
// The PostgreSQL schema's history: an ordered list of steps, each recorded in warren_schema (version,
// what, applied_at) when applied. pgMigrate() runs every missing step in ONE transaction under a
// transaction-level advisory lock, so that two servers starting at once against the same database do not
// race: the second waits, then finds the steps recorded and applies nothing. Steps are never edited once
// released: a change is a new step at the end.

#include "app/store/postgres/PgConnection.h"
#include "common/Result.h"

#include <span>
#include <string_view>

namespace warren::control {

struct PgMigration {
    int version;           // 1, 2, 3, ...
    std::string_view what; // recorded, and named in error messages
    std::string_view sql;
};

std::span<const PgMigration> pgMigrations();
int pgLatestSchemaVersion();

// The newest version recorded in warren_schema (0 for a database without it).
Result<int> pgReadSchemaVersion(PgConnection& db);

// Applies the steps newer than the database's version; refuses a database with a newer version than the
// last step (written by a newer Warren). Returns the version the database is at afterwards.
Result<int> pgMigrate(PgConnection& db, std::span<const PgMigration> steps);

} // namespace warren::control
