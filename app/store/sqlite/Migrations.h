#pragma once
// The schema's history: an ordered list of steps, step N bringing the database from user_version N-1 to
// N. Each step runs in its own transaction together with its user_version bump, so a database is always
// at exactly one version, whatever kills the process. Steps are never edited once released: a change is a
// new step at the end.

#include "common/Result.h"

#include <span>
#include <string>
#include <string_view>

struct sqlite3;

namespace warren::control {

struct Migration {
    int version;           // user_version after this step: 1, 2, 3, ...
    std::string_view what; // for error messages
    std::string_view sql;
};

// Warren's schema, oldest step first.
std::span<const Migration> migrations();
int latestSchemaVersion();

Result<int> readSchemaVersion(sqlite3* db);

// Applies the steps newer than the database's user_version, in order. Refuses a database whose version is
// newer than the last step (written by a newer Warren), naming path in the message.
Status migrate(sqlite3* db, std::span<const Migration> steps, const std::string& path);

} // namespace warren::control
