#pragma once
// How long a finished task keeps its bulky parts: its checkpoints (tasks/<id>/state), its snapshots
// (tasks/<id>/snapshots) and its artifacts (tasks/<id>/output); on warrend also the copy of its workspace and
// its script. After its retention period, counted from when it finished, they are removed; its record, its
// events and its approvals stay, and the record says when (TaskRecord::removedAt). Only a final task
// (succeeded, failed, cancelled) is ever due: one its user has the turn of, paused, interrupted or asleep
// keeps everything. A period of 0 days keeps everything for ever. The user's own workspace (a desktop task's)
// is never a part.
//
// The pure half decides and words the refusal of what needs a removed part; removeParts is the disk half;
// RetentionSweep (its own file) applies them to a store.

#include "agent_core/protocol/Timestamp.h"
#include "app/store/StoreTypes.h"
#include "common/Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace warren::control {

struct DataDir;

inline constexpr std::uint64_t kMaxRetentionDays = 36'500; // a hundred years: a typo, not a period

// Whether the task's parts are due for removal at now under a period of days: final, finished that long ago,
// not removed yet. A finish time that does not read is never due (nothing is removed on a guess).
bool retentionDue(const TaskRecord& task, std::uint64_t days, protocol::UnixMillis now);

// Ok while the task keeps its parts; else the error for what needs them, which says when they went and what
// remains ("task t-… cannot <doing>: its checkpoints, snapshots and artifacts were removed on 2026-12-07,
// when its retention period ended; its record and events remain").
Status checkPartsKept(const TaskRecord& task, const std::string& doing);

// The task's parts in the data directory (its checkpoints, snapshots, artifacts).
std::vector<std::string> retainedParts(const DataDir& data, const std::string& taskId);

// Removes each path, a tree, at any depth and without following links; one that is gone already is removed.
// Disk work: run off the faces' thread.
Status removeParts(const std::vector<std::string>& paths);

} // namespace warren::control
