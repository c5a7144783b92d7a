// SqliteStore: the settings table, key -> JSON text.

#include "app/store/sqlite/SqliteStore.h"

namespace warren::control {

namespace {

constexpr const char* kSelectSetting = "SELECT value FROM settings WHERE key = ?1";
constexpr const char* kPutSetting = "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO "
                                    "UPDATE SET value = excluded.value";

} // namespace

Result<std::optional<std::string>> SqliteStore::setting(const std::string& key) {
    return m_db.query(kSelectSetting).bind(key).one("read the setting " + key, [](const Statement& row) {
        return row.text(0);
    });
}

Status SqliteStore::setSetting(const std::string& key, const std::string& value) {
    return m_db.query(kPutSetting).bind(key, value).run("save the setting " + key);
}

} // namespace warren::control
