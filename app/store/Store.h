#pragma once
// The control plane's database: one SQLite file (warren.db) in WAL mode, its schema versioned with
// PRAGMA user_version and brought forward by Migrations on open. A Store is one connection: use it from
// one thread at a time (EventWriter keeps its own on its own thread; readers open their own).
// Nothing here ever holds an API key.

#include "Result.h"
#include "StoreTypes.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace warren::control {

class Statement;

class Store {
public:
    // Opens (creating when missing) and migrates. An error says what failed and what to do: a newer
    // schema than this build knows, a file that is not a database, a directory that cannot be written.
    static Result<Store> open(const std::string& path);

    Store(Store&& other) noexcept;
    Store& operator=(Store&& other) noexcept;
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;
    ~Store();

    // Tasks. tasks() is newest first.
    Status insertTask(const TaskRecord& task);
    Status updateTask(const TaskRecord& task); // every column but id and created_at
    Result<std::optional<TaskRecord>> task(const std::string& id);
    Result<std::vector<TaskRecord>> tasks();
    Result<std::vector<TaskRecord>> tasksWithStatus(TaskStatus status);

    // Events, in one transaction. A (task, seq) already stored is an error naming it and nothing of the
    // batch is written.
    Status appendEvents(const std::vector<EventRow>& events);
    // In seq order, seq > afterSeq, at most limit.
    Result<std::vector<EventRow>> events(const std::string& taskId, std::uint64_t afterSeq = 0,
                                         std::uint64_t limit = UINT64_MAX);
    Result<std::uint64_t> lastSeq(const std::string& taskId); // 0 when the task has no events

    // Approvals: inserted when asked, updated when decided.
    Status insertApproval(const ApprovalRecord& approval);
    Status updateApproval(const ApprovalRecord& approval);
    Result<std::vector<ApprovalRecord>> approvals(const std::string& taskId);

    // Artifacts: files the task left in its /output (recorded at the end of each run; same path replaces).
    Status putArtifact(const ArtifactRecord& artifact);
    Result<std::vector<ArtifactRecord>> artifacts(const std::string& taskId);

    // Memories, confined to a prefix (the task's memory_prefix): nothing under another prefix is ever
    // read or written through a call for this one (prefixes compare exactly; an empty one is refused).
    // search follows agent_core's MemoryRanking rules: ranked = FTS5 bm25 over the query's words, best
    // first, a query without words matching nothing; otherwise the query as a substring of key or value
    // (ASCII case-insensitive) in namespace/key order, an empty query matching everything.
    Result<std::optional<std::string>> memoryGet(const std::string& prefix, const std::string& ns,
                                                 const std::string& key);
    Status memoryPut(const std::string& prefix, const std::string& ns, const std::string& key,
                     const std::string& value);
    Result<std::vector<MemoryRow>> memorySearch(const std::string& prefix, const std::string& query,
                                                std::uint64_t limit, bool ranked);

    // Settings: key -> JSON text.
    Result<std::optional<std::string>> setting(const std::string& key);
    Status setSetting(const std::string& key, const std::string& value);

    // PRAGMA integrity_check: "ok", or what SQLite found.
    Result<std::string> integrityCheck();
    int schemaVersion() const;

    sqlite3* handle() const { return m_db; }

private:
    struct StatementCache;

    Store(sqlite3* db, std::string path, int schemaVersion);
    // The statement for sql (a string literal), prepared on first use and kept: reset before it is handed
    // out; the caller resets it when done (ResetOnExit) so that no read snapshot stays open.
    Result<Statement*> prepared(const char* sql);
    Error failure(const std::string& what) const; // the connection's last error, with what to do about it

    sqlite3* m_db = nullptr;
    std::string m_path;
    int m_schemaVersion = 0;
    std::unique_ptr<StatementCache> m_statements;
};

} // namespace warren::control
