// PgStore: the memories table and its generated tsvector column (GIN-indexed), every call confined to one
// prefix.

#include "app/store/MemoryQuery.h"
#include "app/store/postgres/PgQuery.h"
#include "app/store/postgres/PgStore.h"

namespace warren::control {

namespace {

constexpr const char* kMemoryGet = "SELECT value FROM memories WHERE prefix = $1 AND ns = $2 AND key = $3";
constexpr const char* kMemoryPut =
    "INSERT INTO memories (prefix, ns, key, value, updated_at) "
    "VALUES ($1, $2, $3, $4, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')) "
    "ON CONFLICT (prefix, ns, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at";
// The prefix is an exact comparison (never a pattern). Normalization 1 divides the rank by 1 + log(length):
// of two entries holding the words as often, the shorter ranks first, as with SQLite's bm25.
constexpr const char* kMemoryRanked =
    "SELECT ns, key, value FROM memories, to_tsquery('simple'::regconfig, $2) AS q "
    "WHERE prefix = $1 AND search @@ q ORDER BY ts_rank(search, q, 1) DESC, ns, key LIMIT $3::bigint";
// ASCII case folding only, on both sides (translate, not lower(), which follows the database's locale).
constexpr const char* kMemorySubstring =
    "SELECT ns, key, value FROM memories WHERE prefix = $1 AND "
    "(translate(key, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE $2 ESCAPE '\\' OR "
    "translate(value, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE $2 ESCAPE '\\') "
    "ORDER BY ns, key LIMIT $3::bigint";

MemoryRow readMemory(const PgRow& row) {
    return MemoryRow{row.text(0), row.text(1), row.text(2)};
}

Status checkPrefix(const std::string& prefix) {
    if (prefix.empty())
        return makeError(ErrorCode::InvalidArgument,
                         "the memory prefix is empty: every memory call needs the task's memory_prefix");
    return Ok{};
}

} // namespace

Result<std::optional<std::string>> PgStore::memoryGet(const std::string& prefix, const std::string& ns,
                                                      const std::string& key) {
    if (auto valid = checkPrefix(prefix); !valid)
        return valid.error();
    return pgOne(m_db.exec("read the memory " + key, kMemoryGet, pgParams(prefix, ns, key)),
                 [](const PgRow& row) { return row.text(0); });
}

Status PgStore::memoryPut(const std::string& prefix, const std::string& ns, const std::string& key,
                          const std::string& value) {
    if (auto valid = checkPrefix(prefix); !valid)
        return valid.error();
    return pgRun(m_db.exec("save the memory " + key, kMemoryPut, pgParams(prefix, ns, key, value)));
}

Result<std::vector<MemoryRow>> PgStore::memorySearch(const std::string& prefix, const std::string& query,
                                                     std::uint64_t limit, bool ranked) {
    if (auto valid = checkPrefix(prefix); !valid)
        return valid.error();
    if (!ranked)
        return pgAll(m_db.exec("search the memories", kMemorySubstring,
                               pgParams(prefix, likeSubstringPattern(asciiLower(query)), pgClamp(limit))),
                     readMemory);
    const std::string words = tsQueryText(query);
    if (words.empty())
        return std::vector<MemoryRow>(); // no word: nothing matches
    return pgAll(m_db.exec("search the memories", kMemoryRanked, pgParams(prefix, words, pgClamp(limit))),
                 readMemory);
}

} // namespace warren::control
