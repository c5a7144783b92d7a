#pragma once
// What a snapshot knows beyond git's tree, kept in its commit's message: which step it was taken before,
// why, when, and what git's tree cannot hold or was left out (empty directories, large files, nested
// repositories without a file to record). The message is a title line, a blank line, and this as JSON, so
// `git log` in the shadow repository reads well. Pure.

#include "common/Result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warren::snapshots {

struct SnapshotMeta {
    // Step: the workspace before step `step` ran (step 1: as the task found it). End: after the task's last
    // step (`step` is that step + 1). Undo: the workspace just before a rewind changed it. Present: the
    // workspace when a review or a rewind's preview looked at it (replaced each time).
    enum class Kind { Step, End, Undo, Present };
    Kind kind = Kind::Step;
    std::uint64_t step = 0;
    std::int64_t takenAtMs = 0;            // since the epoch
    std::vector<std::string> emptyDirs;    // sorted
    std::vector<std::string> skippedLarge; // files over the size limit, not recorded
    std::vector<std::string> skippedDirs;  // dependency directories and ignored ones, not recorded

    bool operator==(const SnapshotMeta&) const = default;
};

std::string toCommitMessage(const SnapshotMeta& meta);
Result<SnapshotMeta> fromCommitMessage(std::string_view message);

const char* kindName(SnapshotMeta::Kind kind);

} // namespace warren::snapshots
