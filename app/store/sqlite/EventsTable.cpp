// SqliteStore: the events table, the audit trail, keyed (task, seq).

#include "app/store/sqlite/SqliteStore.h"
#include "app/store/sqlite/Transaction.h"

#include <optional>
#include <sqlite3.h>
#include <string_view>

namespace warren::control {

namespace {

constexpr const char* kInsertEvent =
    "INSERT INTO events (task_id, seq, ts, type, step, tool, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
constexpr const char* kSelectEvents = "SELECT task_id, seq, ts, type, step, tool, body FROM events "
                                      "WHERE task_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3";
// Newest first through the (task_id, seq) key, then put back in seq order: one index range either way.
constexpr const char* kSelectEventsBefore =
    "SELECT * FROM (SELECT task_id, seq, ts, type, step, tool, body FROM events "
    "WHERE task_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3) ORDER BY seq";
constexpr const char* kLastSeq = "SELECT max(seq) FROM events WHERE task_id = ?1";

EventRow readEvent(const Statement& row) {
    return EventRow{row.text(0), row.uint(1), row.text(2), row.text(3),
                    row.uint(4), row.text(5), row.text(6)};
}

std::optional<std::string_view> textOrNull(const std::string& text) {
    return text.empty() ? std::nullopt : std::optional<std::string_view>(text);
}

} // namespace

Status SqliteStore::appendEvents(const std::vector<EventRow>& events) {
    if (events.empty())
        return Ok{};
    const std::string count = std::to_string(events.size());
    auto transaction = Transaction::begin(m_db.handle());
    if (!transaction)
        return m_db.failure("start writing " + count + " events");
    auto insert = m_db.query(kInsertEvent);
    for (const auto& event : events) {
        auto stored =
            insert
                .bind(event.taskId, event.seq, event.ts, event.type, event.step, textOrNull(event.tool),
                      event.body)
                .runOr([&](int code) {
                    const std::string which =
                        "event seq " + std::to_string(event.seq) + " of task " + event.taskId;
                    if (code == SQLITE_CONSTRAINT_PRIMARYKEY)
                        return makeError(ErrorCode::InvalidArgument,
                                         which +
                                             " is already stored: events were repeated or replayed; "
                                             "none of the " +
                                             count + " events of this batch were written");
                    if (code == SQLITE_CONSTRAINT_FOREIGNKEY)
                        return makeError(ErrorCode::InvalidArgument,
                                         "cannot store " + which +
                                             ": the task is not in the database; add the task first");
                    return m_db.failure("store " + which);
                });
        if (!stored)
            return stored; // the transaction rolls back: nothing of the batch is written
    }
    if (!transaction->commit())
        return m_db.failure("commit " + count + " events");
    return Ok{};
}

Result<std::vector<EventRow>> SqliteStore::events(const std::string& taskId, std::uint64_t afterSeq,
                                                  std::uint64_t limit) {
    // limit is clamped to INT64_MAX, which is "no limit".
    return m_db.query(kSelectEvents)
        .bind(taskId, afterSeq, limit)
        .all("read the events of task " + taskId, readEvent);
}

Result<std::vector<EventRow>> SqliteStore::eventsBefore(const std::string& taskId, std::uint64_t beforeSeq,
                                                        std::uint64_t limit) {
    // beforeSeq 0 is "after the last": every seq is below the largest bindable one (INT64_MAX).
    return m_db.query(kSelectEventsBefore)
        .bind(taskId, beforeSeq == 0 ? UINT64_MAX : beforeSeq, limit)
        .all("read the events of task " + taskId + " before seq " + std::to_string(beforeSeq), readEvent);
}

Result<std::uint64_t> SqliteStore::lastSeq(const std::string& taskId) {
    // max() of no rows is one row holding NULL, read as 0.
    auto last = m_db.query(kLastSeq).bind(taskId).one("read the last event of task " + taskId,
                                                      [](const Statement& row) { return row.uint(0); });
    if (!last)
        return last.error();
    return last->value_or(0);
}

} // namespace warren::control
