#pragma once
// Review and rewind of one task, over its ShadowRepo, as every face offers them (`warren diff` and
// `warren rewind`, the window's Review and "Rewind to here", through LocalControlPlane): which snapshots a
// review compares, the change per file, which snapshot a rewind goes to, and the conversation put back.
// No Qt; the faces only format.

#include "app/snapshots/ShadowRepo.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warren::snapshots {

// "before step 3", "after step 4 (the end)", "before a rewind", "now".
std::string describeSnapshot(const SnapshotMeta& meta);

struct ReviewRange {
    Snapshot from, to;
};
// The whole task (before step 1 to now, when now is given, else to the latest step or end snapshot), or
// what step N did (before step N to before step N + 1). An error says what is missing.
Result<ReviewRange> reviewRange(const ShadowRepo& repo, std::optional<std::uint64_t> step,
                                const Snapshot* now = nullptr);

struct FileReview {
    std::string path; // a file, or "dir/": an empty directory made or removed (diff then empty)
    std::string change; // "added", "deleted", "modified", "mode", "type"
    std::string diff;   // git's sections for the path
};
Result<std::vector<FileReview>> reviewFiles(const ShadowRepo& repo, const ReviewRange& range);

// Where a rewind goes: before step toStep, or (nullopt) before the last rewind.
Result<Snapshot> rewindTarget(const ShadowRepo& repo, std::optional<std::uint64_t> toStep);

// The agent's checkpoint as it was before `step` put in place of checkpoint (atomically, owned like its
// directory so the agent can replace it); with none kept (step 1), checkpoint is removed and the task starts
// again from its prompt. Reports which of the two it was.
struct ConversationRewind {
    bool fromPrompt = false;
};
Result<ConversationRewind> putConversationBack(const std::filesystem::path& snapshotsDir, std::uint64_t step,
                                               const std::filesystem::path& checkpoint);
bool conversationKept(const std::filesystem::path& snapshotsDir, std::uint64_t step);

} // namespace warren::snapshots
