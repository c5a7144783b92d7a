#pragma once
// The Store in one SQLite file (warren.db) in WAL mode, its schema versioned with PRAGMA user_version and
// brought forward by Migrations on open. One connection; each table's calls are in a file of their own
// (TasksTable.cpp, EventsTable.cpp, ...), each call one Query over a statement prepared once.

#include "app/store/Store.h"
#include "app/store/sqlite/SqliteConnection.h"
#include "common/Result.h"

#include <memory>
#include <string>

struct sqlite3;

namespace warren::control {

class SqliteStore final : public Store {
public:
    // Opens (creating when missing) and migrates. An error says what failed and what to do: a newer
    // schema than this build knows, a file that is not a database, a directory that cannot be written.
    static Result<std::unique_ptr<SqliteStore>> open(const std::string& path);

    Status insertTask(const TaskRecord& task) override;
    Status updateTask(const TaskRecord& task) override;
    Result<std::optional<TaskRecord>> task(const std::string& id) override;
    Result<std::vector<TaskRecord>> tasks() override;
    Result<std::vector<TaskRecord>> tasksWithStatus(TaskStatus status) override;
    Result<std::vector<std::string>> taskIdsWithStatus(TaskStatus status) override;
    Result<std::map<TaskStatus, std::uint64_t>> taskCountsByStatus() override;

    Status appendEvents(const std::vector<EventRow>& events) override;
    Result<std::vector<EventRow>> events(const std::string& taskId, std::uint64_t afterSeq,
                                         std::uint64_t limit) override;
    Result<std::vector<EventRow>> eventsBefore(const std::string& taskId, std::uint64_t beforeSeq,
                                               std::uint64_t limit) override;
    Result<std::uint64_t> lastSeq(const std::string& taskId) override;

    Status insertApproval(const ApprovalRecord& approval) override;
    Status updateApproval(const ApprovalRecord& approval) override;
    Result<std::vector<ApprovalRecord>> approvals(const std::string& taskId) override;

    Status putArtifact(const ArtifactRecord& artifact) override;
    Result<std::vector<ArtifactRecord>> artifacts(const std::string& taskId) override;

    Result<std::optional<std::string>> memoryGet(const std::string& prefix, const std::string& ns,
                                                 const std::string& key) override;
    Status memoryPut(const std::string& prefix, const std::string& ns, const std::string& key,
                     const std::string& value) override;
    Result<std::vector<MemoryRow>> memorySearch(const std::string& prefix, const std::string& query,
                                                std::uint64_t limit, bool ranked) override;

    Result<std::optional<std::string>> setting(const std::string& key) override;
    Status setSetting(const std::string& key, const std::string& value) override;

    // PRAGMA integrity_check, then the memories' full-text index against the memories.
    void observeErrors(std::function<void(const Error&)> observer) override {
        m_db.observeErrors(std::move(observer));
    }
    Result<std::string> integrityCheck() override;
    int schemaVersion() const override { return m_schemaVersion; }

    // The connection itself, for the tests of this implementation (pragmas, simulated failures).
    sqlite3* handle() const { return m_db.handle(); }

private:
    SqliteStore(sqlite3* db, std::string path, int schemaVersion)
        : m_db(db, std::move(path)), m_schemaVersion(schemaVersion) {}

    SqliteConnection m_db;
    int m_schemaVersion = 0;
};

// The control plane's way to open it: a Store like any other.
Result<std::unique_ptr<Store>> openSqliteStore(const std::string& path);

} // namespace warren::control
