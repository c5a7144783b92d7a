#pragma once
// The Store in PostgreSQL (warrend's database), through libpq: one connection, its schema brought forward
// by PgMigrations on open. Each table's calls are in a file of their own (TasksTable.cpp, EventsTable.cpp,
// ...), each call one statement through PgConnection::exec. Same semantics as SqliteStore in every method;
// a lost connection is ErrorCode::Unavailable: open a new store (the StoreOpener) and retry.

#include "app/store/Store.h"
#include "app/store/postgres/PgConnection.h"
#include "common/Result.h"

#include <memory>
#include <string>

namespace warren::control {

// Whenever a task's row or events change, the statement that changes them also notifies this channel with
// the task's id (once per task and statement; PostgreSQL delivers it when the change commits), so that
// another warrend over the same database hears of it at once (server/replicas/TaskNotifications).
inline constexpr const char* kTaskChangesChannel = "warren_tasks";

// The session setting that names who writes on a connection (openStore's writer), for the server's rules.
inline constexpr const char* kWriterSetting = "warren.writer";
// The SQLSTATE with which a rule of the server refuses a write (its DETAIL says why): reported as
// InvalidArgument, the write's content refused, like a repeated key.
inline constexpr std::string_view kRefusedByRuleState = "WR001";

class PgStore final : public Store {
public:
    // Connects and migrates. An error says what failed and what to do: a server that cannot be reached, a
    // URL that is not one, a schema newer than this build knows.
    // writer: kWriterSetting's value on this connection (empty: unset).
    static Result<std::unique_ptr<PgStore>> open(const std::string& url, const std::string& writer = {});

    Status insertTask(const TaskRecord& task) override;
    Status updateTask(const TaskRecord& task) override;
    Result<std::optional<TaskRecord>> task(const std::string& id) override;
    Result<std::vector<TaskRecord>> tasks() override;
    Result<std::vector<TaskRecord>> tasksWithStatus(TaskStatus status) override;
    Result<std::vector<std::string>> taskIdsWithStatus(TaskStatus status) override;
    Result<std::map<TaskStatus, std::uint64_t>> taskCountsByStatus() override;

    // One INSERT ... SELECT FROM unnest(arrays) for the whole batch: one statement, one transaction.
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

    // The server answers, the schema history still says the version this store was opened at, and every
    // table of the schema is there. (PostgreSQL keeps its own pages consistent; the tsvector column is
    // generated, so it cannot drift from the memories as an FTS5 index can.)
    void observeErrors(std::function<void(const Error&)> observer) override {
        m_db.observeErrors(std::move(observer));
    }
    Result<std::string> integrityCheck() override;
    int schemaVersion() const override { return m_schemaVersion; }

    // The connection itself, for the tests of this implementation.
    PgConnection& connection() { return m_db; }

private:
    PgStore(PgConnection db, int schemaVersion) : m_db(std::move(db)), m_schemaVersion(schemaVersion) {}

    PgConnection m_db;
    int m_schemaVersion = 0;
};

// The control plane's way to open it: a Store like any other.
Result<std::unique_ptr<Store>> openPgStore(const std::string& url, const std::string& writer = {});

} // namespace warren::control
