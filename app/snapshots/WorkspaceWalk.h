#pragma once
// One walk of the workspace before a snapshot, for what git's own walk does not give: empty directories
// (git records none), files over the size limit (left out), and nested repositories (a directory holding a
// .git of its own, which `git add` would record as a bare commit id, or refuse). Nothing is followed
// through a symbolic link; .git directories, dependency directories and what git ignores are not entered.

#include "app/snapshots/SnapshotRules.h"
#include "common/Result.h"

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warren::snapshots {

struct NestedRepository {
    std::string root;                // relative to the workspace
    std::optional<std::string> seed; // a file in it to record first, so git walks it as a directory
};

struct WalkResult {
    std::vector<std::string> emptyDirs;
    std::vector<std::string> largeFiles;
    std::vector<std::string> dependencyDirs;
    std::vector<NestedRepository> nested;
};

// ignored: what git ignores (directories without their trailing '/'), not entered.
Result<WalkResult> walkWorkspace(const std::filesystem::path& workspace, const SnapshotRules& rules,
                                 const std::set<std::string>& ignored);

} // namespace warren::snapshots
