#include "app/snapshots/TaskReview.h"

#include "app/git/PatchText.h"
#include "app/snapshots/EmptyDirChanges.h"

#include <algorithm>

#include <cerrno>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::snapshots {

namespace fs = std::filesystem;

std::string describeSnapshot(const SnapshotMeta& meta) {
    switch (meta.kind) {
    case SnapshotMeta::Kind::Step:
        return "before step " + std::to_string(meta.step);
    case SnapshotMeta::Kind::End:
        return "after step " + std::to_string(meta.step - 1) + " (the end)";
    case SnapshotMeta::Kind::Undo:
        return "before a rewind";
    case SnapshotMeta::Kind::Present:
        return "now";
    }
    return {};
}

Result<ReviewRange> reviewRange(const ShadowRepo& repo, std::optional<std::uint64_t> step,
                                const Snapshot* now) {
    auto all = repo.list();
    if (!all)
        return all.error();
    std::optional<Snapshot> from, to;
    for (const auto& snapshot : *all) {
        if (snapshot.meta.kind == SnapshotMeta::Kind::Undo ||
            snapshot.meta.kind == SnapshotMeta::Kind::Present)
            continue;
        if (!from && (!step || snapshot.meta.step == *step))
            from = snapshot;
        if (!step || snapshot.meta.step == *step + 1)
            to = snapshot;
    }
    if (!from)
        return repo.beforeStep(step.value_or(1)).error();
    if (now && !step)
        return ReviewRange{std::move(*from), *now};
    if (!to || to->meta.step <= from->meta.step)
        return makeError(
            ErrorCode::NotFound,
            step ? "step " + std::to_string(*step) +
                       " has no snapshot after it (the task is still in it, or was killed during it)"
                 : std::string("the task has only the snapshot before its first step"));
    return ReviewRange{std::move(*from), std::move(*to)};
}

Result<std::vector<FileReview>> reviewFiles(const ShadowRepo& repo, const ReviewRange& range) {
    auto changes = repo.changes(range.from, range.to);
    if (!changes)
        return changes.error();
    auto diff = repo.diff(range.from, range.to);
    if (!diff)
        return diff.error();
    auto sections = git::splitPatch(*diff);
    if (!sections)
        return sections.error();
    std::map<std::string, std::string> text;
    for (const auto& section : *sections)
        text[section.file.path] += std::string(section.text);
    std::vector<FileReview> files;
    for (const auto& change : *changes) {
        std::string kind = change.status == 'A'                   ? "added"
                           : change.status == 'D'                 ? "deleted"
                           : change.status == 'T'                 ? "type"
                           : change.oldObject == change.newObject ? "mode"
                                                                  : "modified";
        files.push_back({change.path, std::move(kind), text[change.path]});
    }
    // Empty directories made or removed, which git's diff cannot show: "dir/", with no diff text.
    std::vector<std::string> changed;
    for (const auto& change : *changes)
        changed.push_back(change.path);
    for (const auto& dir : emptyDirChanges(range.from.meta.emptyDirs, range.to.meta.emptyDirs, changed))
        files.push_back({dir.dir + "/", dir.added ? "added" : "deleted", {}});
    std::sort(files.begin(), files.end(), [](const FileReview& a, const FileReview& b) { return a.path < b.path; });
    return files;
}

Result<Snapshot> rewindTarget(const ShadowRepo& repo, std::optional<std::uint64_t> toStep) {
    if (toStep)
        return repo.beforeStep(*toStep);
    auto all = repo.list();
    if (!all)
        return all.error();
    std::optional<Snapshot> undo;
    for (const auto& snapshot : *all)
        if (snapshot.meta.kind == SnapshotMeta::Kind::Undo)
            undo = snapshot;
    if (!undo)
        return makeError(ErrorCode::NotFound, "the task was never rewound: there is nothing to undo");
    return std::move(*undo);
}

bool conversationKept(const fs::path& snapshotsDir, std::uint64_t step) {
    std::error_code error;
    return fs::exists(ShadowRepo::checkpointCopy(snapshotsDir, step), error);
}

Result<ConversationRewind> putConversationBack(const fs::path& snapshotsDir, std::uint64_t step,
                                               const fs::path& checkpoint) {
    std::error_code error;
    const fs::path kept = ShadowRepo::checkpointCopy(snapshotsDir, step);
    if (!fs::exists(kept, error)) {
        fs::remove(checkpoint, error);
        if (error)
            return makeError(ErrorCode::System,
                             "cannot remove " + checkpoint.string() + ": " + error.message());
        return ConversationRewind{true};
    }
    const fs::path temporary = checkpoint.string() + ".rewind";
    fs::copy_file(kept, temporary, fs::copy_options::overwrite_existing, error);
    struct stat dir {};
    if (!error && ::stat(checkpoint.parent_path().c_str(), &dir) == 0 &&
        ::chown(temporary.c_str(), dir.st_uid, dir.st_gid) != 0)
        error = std::error_code(errno, std::generic_category());
    if (!error)
        fs::rename(temporary, checkpoint, error);
    if (error)
        return makeError(ErrorCode::System, "cannot put the checkpoint back into " + checkpoint.string() +
                                                ": " + error.message());
    return ConversationRewind{false};
}

} // namespace warren::snapshots
