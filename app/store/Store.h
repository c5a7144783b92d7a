#pragma once
// The control plane's database, as the control plane sees it: tasks, their events, approvals, artifacts,
// memories and settings, whatever holds them. SqliteStore (sqlite/, warren.db on the desktop) is the first
// implementation; a server's PostgreSQL is another one, chosen where the store is opened. A Store is one
// connection: use it from one thread at a time (EventWriter opens its own on its own thread).
// Nothing here ever holds an API key. Every error says what failed and what to do about it.

#include "app/store/StoreTypes.h"
#include "common/Result.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warren::control {

class Store {
public:
    virtual ~Store() = default;
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    // Tasks. tasks() is newest first.
    virtual Status insertTask(const TaskRecord& task) = 0;
    virtual Status updateTask(const TaskRecord& task) = 0; // every column but id and created_at
    virtual Result<std::optional<TaskRecord>> task(const std::string& id) = 0;
    virtual Result<std::vector<TaskRecord>> tasks() = 0;
    virtual Result<std::vector<TaskRecord>> tasksWithStatus(TaskStatus status) = 0;
    // The ids alone, in the same order: for a check that runs often over many tasks (warrend's lease beat).
    virtual Result<std::vector<std::string>> taskIdsWithStatus(TaskStatus status) = 0;
    // How many tasks have each status, counted by the database (one indexed read, no record read): GET
    // /metrics asks at every scrape. Every status is in the answer, 0 where none has it.
    virtual Result<std::map<TaskStatus, std::uint64_t>> taskCountsByStatus() = 0;

    // Events, in one transaction. A (task, seq) already stored is an error naming it (ErrorCode
    // InvalidArgument, as for any refusal of the rows' content) and nothing of the batch is written.
    virtual Status appendEvents(const std::vector<EventRow>& events) = 0;
    // In seq order, seq > afterSeq, at most limit.
    virtual Result<std::vector<EventRow>> events(const std::string& taskId, std::uint64_t afterSeq = 0,
                                                 std::uint64_t limit = UINT64_MAX) = 0;
    // The latest limit events with seq < beforeSeq (0: up to the last), in seq order: a window opens a
    // task at its end and pages earlier events in, each page one indexed read however long the task.
    virtual Result<std::vector<EventRow>> eventsBefore(const std::string& taskId, std::uint64_t beforeSeq,
                                                       std::uint64_t limit) = 0;
    virtual Result<std::uint64_t> lastSeq(const std::string& taskId) = 0; // 0 when the task has no events

    // Approvals: inserted when asked, updated when decided.
    virtual Status insertApproval(const ApprovalRecord& approval) = 0;
    virtual Status updateApproval(const ApprovalRecord& approval) = 0;
    virtual Result<std::vector<ApprovalRecord>> approvals(const std::string& taskId) = 0;

    // Artifacts: files the task left in its /output (recorded at the end of each run; same path replaces).
    virtual Status putArtifact(const ArtifactRecord& artifact) = 0;
    virtual Result<std::vector<ArtifactRecord>> artifacts(const std::string& taskId) = 0;

    // Memories, confined to a prefix (the task's memory_prefix): nothing under another prefix is ever
    // read or written through a call for this one (prefixes compare exactly; an empty one is refused).
    // search follows agent_core's MemoryRanking rules: ranked = full-text search over the query's words,
    // best first, a query without words matching nothing; otherwise the query as a substring of key or
    // value (ASCII case-insensitive) in namespace/key order, an empty query matching everything.
    virtual Result<std::optional<std::string>> memoryGet(const std::string& prefix, const std::string& ns,
                                                         const std::string& key) = 0;
    virtual Status memoryPut(const std::string& prefix, const std::string& ns, const std::string& key,
                             const std::string& value) = 0;
    virtual Result<std::vector<MemoryRow>> memorySearch(const std::string& prefix, const std::string& query,
                                                        std::uint64_t limit, bool ranked) = 0;

    // Settings: key -> JSON text.
    virtual Result<std::optional<std::string>> setting(const std::string& key) = 0;
    virtual Status setSetting(const std::string& key, const std::string& value) = 0;

    // observer hears every error a statement on this connection returns from now on, also those the caller
    // expects (a duplicate key); EngineMetrics counts them by kind. Called on the thread using the store.
    virtual void observeErrors(std::function<void(const Error&)> observer) = 0;

    // The database's own consistency check: "ok", or what it found.
    virtual Result<std::string> integrityCheck() = 0;
    virtual int schemaVersion() const = 0;

protected:
    Store() = default;
};

// Opens one more connection to the same database (EventWriter calls it on its own thread).
using StoreOpener = std::function<Result<std::unique_ptr<Store>>()>;

} // namespace warren::control
