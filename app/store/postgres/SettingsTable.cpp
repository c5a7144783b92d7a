// PgStore: the settings table, key -> JSON text.

#include "app/store/postgres/PgQuery.h"
#include "app/store/postgres/PgStore.h"

namespace warren::control {

namespace {

constexpr const char* kSelectSetting = "SELECT value FROM settings WHERE key = $1";
constexpr const char* kPutSetting = "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO "
                                    "UPDATE SET value = excluded.value";

} // namespace

Result<std::optional<std::string>> PgStore::setting(const std::string& key) {
    return pgOne(m_db.exec("read the setting " + key, kSelectSetting, pgParams(key)),
                 [](const PgRow& row) { return row.text(0); });
}

Status PgStore::setSetting(const std::string& key, const std::string& value) {
    return pgRun(m_db.exec("save the setting " + key, kPutSetting, pgParams(key, value)));
}

} // namespace warren::control
