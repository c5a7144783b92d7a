#include "app/store/postgres/PgStore.h"

#include "app/store/postgres/PgMigrations.h"
#include "app/store/postgres/PgQuery.h"

#include <utility>

namespace warren::control {

Result<std::unique_ptr<PgStore>> PgStore::open(const std::string& url, const std::string& writer) {
    auto db = PgConnection::open(url);
    if (!db)
        return db.error();
    auto version = pgMigrate(*db, pgMigrations());
    if (!version)
        return version.error();
    if (!writer.empty())
        if (auto named = db->exec("name this connection's writer", "SELECT set_config($1, $2, false)",
                                  {std::string(kWriterSetting), writer});
            !named)
            return named.error();
    return std::unique_ptr<PgStore>(new PgStore(std::move(db).value(), *version));
}

Result<std::unique_ptr<Store>> openPgStore(const std::string& url, const std::string& writer) {
    auto store = PgStore::open(url, writer);
    if (!store)
        return store.error();
    return std::unique_ptr<Store>(std::move(store).value());
}

Result<std::string> PgStore::integrityCheck() {
    auto version = pgReadSchemaVersion(m_db);
    if (!version)
        return version.error();
    if (*version != m_schemaVersion)
        return "the schema history says version " + std::to_string(*version) +
               ", but this store was opened at " + std::to_string(m_schemaVersion) +
               ": another Warren changed the schema; restart this one";
    auto missing = pgAll(m_db.exec("check the tables",
                                   "SELECT t FROM unnest(ARRAY['tasks', 'events', 'approvals', 'artifacts', "
                                   "'memories', 'settings']) AS t WHERE to_regclass(t) IS NULL ORDER BY t"),
                         [](const PgRow& row) { return row.text(0); });
    if (!missing)
        return missing.error();
    if (!missing->empty()) {
        std::string report = "tables missing from the schema:";
        for (const auto& table : *missing)
            report += " " + table;
        return report + "; restore the database from a backup";
    }
    return std::string("ok");
}

} // namespace warren::control
