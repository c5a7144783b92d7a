// SqliteStore: the memories table and its FTS5 index (memories_fts, kept in step by triggers), every call
// confined to one prefix.

#include "app/store/sqlite/MemoryQuery.h"
#include "app/store/sqlite/SqliteStore.h"

namespace warren::control {

namespace {

constexpr const char* kMemoryGet = "SELECT value FROM memories WHERE prefix = ?1 AND ns = ?2 AND key = ?3";
constexpr const char* kMemoryPut =
    "INSERT INTO memories (prefix, ns, key, value, updated_at) "
    "VALUES (?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) "
    "ON CONFLICT (prefix, ns, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at";
// The prefix filter is an exact comparison on the content table, joined on the index's rowid: the FTS5
// index itself knows nothing of prefixes. (bm25's document frequencies are the whole index's, so other
// prefixes' entries can change the order of results, never which entries are returned.)
constexpr const char* kMemoryRanked =
    "SELECT m.ns, m.key, m.value FROM memories_fts JOIN memories AS m ON m.id = memories_fts.rowid "
    "WHERE memories_fts MATCH ?1 AND m.prefix = ?2 ORDER BY bm25(memories_fts), m.ns, m.key LIMIT ?3";
constexpr const char* kMemorySubstring =
    "SELECT ns, key, value FROM memories WHERE prefix = ?1 "
    "AND (key LIKE ?2 ESCAPE '\\' OR value LIKE ?2 ESCAPE '\\') ORDER BY ns, key LIMIT ?3";

MemoryRow readMemory(const Statement& row) {
    return MemoryRow{row.text(0), row.text(1), row.text(2)};
}

Status checkPrefix(const std::string& prefix) {
    if (prefix.empty())
        return makeError(ErrorCode::InvalidArgument,
                         "the memory prefix is empty: every memory call needs the task's memory_prefix");
    return Ok{};
}

} // namespace

Result<std::optional<std::string>> SqliteStore::memoryGet(const std::string& prefix, const std::string& ns,
                                                          const std::string& key) {
    if (auto valid = checkPrefix(prefix); !valid)
        return valid.error();
    return m_db.query(kMemoryGet)
        .bind(prefix, ns, key)
        .one("read the memory " + key, [](const Statement& row) { return row.text(0); });
}

Status SqliteStore::memoryPut(const std::string& prefix, const std::string& ns, const std::string& key,
                              const std::string& value) {
    if (auto valid = checkPrefix(prefix); !valid)
        return valid.error();
    return m_db.query(kMemoryPut).bind(prefix, ns, key, value).run("save the memory " + key);
}

Result<std::vector<MemoryRow>> SqliteStore::memorySearch(const std::string& prefix, const std::string& query,
                                                         std::uint64_t limit, bool ranked) {
    if (auto valid = checkPrefix(prefix); !valid)
        return valid.error();
    if (!ranked)
        return m_db.query(kMemorySubstring)
            .bind(prefix, likeSubstringPattern(query), limit)
            .all("search the memories", readMemory);
    const std::string match = ftsMatchQuery(query);
    if (match.empty())
        return std::vector<MemoryRow>(); // no word: nothing matches, and FTS5 is never given an empty query
    return m_db.query(kMemoryRanked).bind(match, prefix, limit).all("search the memories", readMemory);
}

} // namespace warren::control
