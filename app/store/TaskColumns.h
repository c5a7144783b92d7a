#pragma once
// A task row as both stores select it (id, prompt, workspace, spec, status, created_at, started_at,
// finished_at, finish_reason, summary, error, steps, tokens_in, tokens_out, runs, removed_at, moved_to,
// moved_as), read into its record.
// Row is either store's row type: anything with text(column) and uint(column).

#include "app/store/StoreTypes.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace warren::control {

template <typename Row> TaskRecord readTaskColumns(const Row& row) {
    TaskRecord task;
    task.id = row.text(0);
    task.prompt = row.text(1);
    task.workspace = row.text(2);
    task.spec = row.text(3);
    // The CHECK constraint keeps unknown names out.
    task.status = taskStatusFromName(row.text(4)).value_or(TaskStatus::Failed);
    task.createdAt = row.text(5);
    task.startedAt = row.text(6);
    task.finishedAt = row.text(7);
    task.finishReason = row.text(8);
    task.summary = row.text(9);
    task.error = row.text(10);
    task.steps = row.uint(11);
    task.tokensIn = row.uint(12);
    task.tokensOut = row.uint(13);
    task.runs = row.uint(14);
    task.removedAt = row.text(15);
    task.movedTo = row.text(16);
    task.movedAs = row.text(17);
    return task;
}

// Both stores count with kCountTasksByStatus; its rows (status, count) become a count for every status, 0
// where the database had no row.
inline constexpr const char* kCountTasksByStatus = "SELECT status, count(*) FROM tasks GROUP BY status";

template <typename Row> std::pair<std::string, std::uint64_t> readStatusCount(const Row& row) {
    return {row.text(0), row.uint(1)};
}

inline std::map<TaskStatus, std::uint64_t>
statusCounts(const std::vector<std::pair<std::string, std::uint64_t>>& rows) {
    std::map<TaskStatus, std::uint64_t> counts;
    for (const TaskStatus status : allTaskStatuses())
        counts[status] = 0;
    for (const auto& [name, count] : rows) {
        if (const auto status = taskStatusFromName(name)) // the CHECK constraint keeps unknown names out
            counts[*status] += count;
    }
    return counts;
}

} // namespace warren::control
