#pragma once
// What a rewind changes, decided from git's difference between the workspace now (a snapshot taken just
// before) and the snapshot it goes back to, and from the empty directories both recorded. Pure: the edge
// (ShadowRepo) lists it for the user first, then carries it out in this order: delete, prune directories
// left empty, write files (git checkout-index), create empty directories.

#include "app/snapshots/GitListing.h"

#include <set>
#include <string>
#include <vector>

namespace warren::snapshots {

struct FileChange {
    // Restore: absent now, back. Delete: made since, removed. Rewrite: other content. Mode: the executable
    // bit only. Retype: a file, a link or a directory (where a file was) in its place.
    enum class Action { Restore, Delete, Rewrite, Mode, Retype };
    std::string path;
    Action action = Action::Rewrite;
    std::uint32_t nowMode = 0, thenMode = 0;
    bool operator==(const FileChange&) const = default;
};

struct RewindPlan {
    std::vector<FileChange> files;       // by path
    std::vector<std::string> pruneDirs;  // removed when empty after the deletions, deepest first
    std::vector<std::string> createDirs; // empty directories the target had
    bool empty() const { return files.empty() && pruneDirs.empty() && createDirs.empty(); }
    bool operator==(const RewindPlan&) const = default;
    std::vector<std::string> deletions() const; // paths to remove before writing
    std::vector<std::string> writes() const;    // paths checkout-index writes from the target
};

// changes: `git diff-tree -r` from now to the target. targetPaths: every path the target records.
// onlyPaths: when not empty, the plan is narrowed to these paths (a file, or a directory and all below).
RewindPlan planRewind(const std::vector<TreeChange>& changes, const std::vector<std::string>& targetPaths,
                      const std::vector<std::string>& nowEmptyDirs,
                      const std::vector<std::string>& targetEmptyDirs,
                      const std::vector<std::string>& onlyPaths = {});

// The plan as lines for a person: "restore  src/a.c", "delete   new.txt", ..., "mkdir    logs/".
std::vector<std::string> describePlan(const RewindPlan& plan);
const char* actionName(FileChange::Action action);

// Every directory above each path ("a/b/c" -> "a", "a/b").
std::set<std::string> ancestorDirs(const std::vector<std::string>& paths);

} // namespace warren::snapshots
