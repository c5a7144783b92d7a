// PgStore: the events table, the audit trail, keyed (task_id, seq).

#include "app/store/postgres/PgQuery.h"
#include "app/store/postgres/PgStore.h"

#include <optional>
#include <string_view>

namespace warren::control {

namespace {

// The whole batch in one statement: one array per column, unnest()ed into rows. A single statement is one
// transaction: a repeated seq anywhere in it (or already stored) writes nothing of it, and notifies no one.
// Each task of the batch is notified once on $8 (kTaskChangesChannel), delivered as the batch commits.
constexpr const char* kInsertEvents =
    "WITH added AS (INSERT INTO events (task_id, seq, ts, type, step, tool, body) "
    "SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], "
    "$7::text[]) RETURNING task_id) "
    "SELECT pg_notify($8, task_id) FROM (SELECT DISTINCT task_id FROM added) AS changed";
constexpr const char* kSelectEvents = "SELECT task_id, seq, ts, type, step, tool, body FROM events "
                                      "WHERE task_id = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3::bigint";
// Newest first through the (task_id, seq) key, then put back in seq order: one index range either way.
constexpr const char* kSelectEventsBefore =
    "SELECT * FROM (SELECT task_id, seq, ts, type, step, tool, body FROM events "
    "WHERE task_id = $1 AND seq < $2::bigint ORDER BY seq DESC LIMIT $3::bigint) AS page ORDER BY seq";
constexpr const char* kLastSeq = "SELECT max(seq) FROM events WHERE task_id = $1";

EventRow readEvent(const PgRow& row) {
    return EventRow{row.text(0), row.uint(1), row.text(2), row.text(3),
                    row.uint(4), row.text(5), row.text(6)};
}

// The seven column arrays of a batch, as array literals, then the channel to notify.
Result<std::vector<PgParam>> eventArrays(const std::vector<EventRow>& events) {
    std::vector<std::vector<PgParam>> columns(7);
    for (auto& column : columns)
        column.reserve(events.size());
    for (const auto& event : events) {
        columns[0].emplace_back(event.taskId);
        columns[1].emplace_back(std::to_string(event.seq));
        columns[2].emplace_back(event.ts);
        columns[3].emplace_back(event.type);
        columns[4].emplace_back(std::to_string(event.step));
        columns[5].push_back(event.tool.empty() ? std::nullopt : PgParam(event.tool));
        columns[6].emplace_back(event.body);
    }
    std::vector<PgParam> params;
    for (const auto& column : columns) {
        auto array = pgTextArray(column);
        if (!array)
            return array.error();
        params.emplace_back(std::move(array).value());
    }
    params.emplace_back(kTaskChangesChannel);
    return params;
}

// "Key (task_id, seq)=(t-1, 3) already exists." -> "seq 3 of task t-1".
std::string duplicateKey(std::string_view detail) {
    const auto open = detail.find("=(");
    const auto comma = detail.find(", ", open);
    const auto close = detail.find(')', comma);
    if (open == std::string_view::npos || comma == std::string_view::npos || close == std::string_view::npos)
        return "an event";
    return "event seq " + std::string(detail.substr(comma + 2, close - comma - 2)) + " of task " +
           std::string(detail.substr(open + 2, comma - open - 2));
}

} // namespace

Status PgStore::appendEvents(const std::vector<EventRow>& events) {
    if (events.empty())
        return Ok{};
    const std::string count = std::to_string(events.size());
    auto params = eventArrays(events);
    if (!params)
        return makeError(ErrorCode::InvalidArgument,
                         "cannot store " + count + " events of task " + events.front().taskId + ": " +
                             params.error().message + "; none of them were written");
    const std::string what = "store " + count + " events (task " + events.front().taskId + ", seq " +
                             std::to_string(events.front().seq) + " to " + std::to_string(events.back().seq) +
                             ")";
    return pgRun(
        m_db.exec(what, kInsertEvents, *params, [&](const PgRefused& refused) -> std::optional<Error> {
            if (refused.sqlstate == "23505")
                return makeError(ErrorCode::InvalidArgument,
                                 duplicateKey(refused.detail) +
                                     " is already stored: events were repeated or replayed; none of the " +
                                     count + " events of this batch were written");
            if (refused.sqlstate == kRefusedByRuleState)
                return makeError(ErrorCode::InvalidArgument, std::string(refused.detail) + "; none of the " +
                                                                 count + " events of this batch were written");
            if (refused.sqlstate == "23503")
                return makeError(ErrorCode::InvalidArgument,
                                 "cannot store the events of task " + events.front().taskId +
                                     ": the task is not in the database (" + std::string(refused.detail) +
                                     "); add the task first");
            return std::nullopt;
        }));
}

Result<std::vector<EventRow>> PgStore::events(const std::string& taskId, std::uint64_t afterSeq,
                                              std::uint64_t limit) {
    return pgAll(m_db.exec("read the events of task " + taskId, kSelectEvents,
                           pgParams(taskId, pgClamp(afterSeq), pgClamp(limit))),
                 readEvent);
}

Result<std::vector<EventRow>> PgStore::eventsBefore(const std::string& taskId, std::uint64_t beforeSeq,
                                                    std::uint64_t limit) {
    // beforeSeq 0 is "after the last": every seq is below the largest bigint.
    return pgAll(m_db.exec("read the events of task " + taskId + " before seq " + std::to_string(beforeSeq),
                           kSelectEventsBefore,
                           pgParams(taskId, pgClamp(beforeSeq == 0 ? UINT64_MAX : beforeSeq), pgClamp(limit))),
                 readEvent);
}

Result<std::uint64_t> PgStore::lastSeq(const std::string& taskId) {
    // max() of no rows is one row holding NULL, read as 0.
    auto last = pgOne(m_db.exec("read the last event of task " + taskId, kLastSeq, pgParams(taskId)),
                      [](const PgRow& row) { return row.uint(0); });
    if (!last)
        return last.error();
    return last->value_or(0);
}

} // namespace warren::control
