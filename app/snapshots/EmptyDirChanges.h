#pragma once
// Which empty directories a change between two snapshots made or removed. git records no directory, so a
// diff of the trees shows none of them; each snapshot lists its empty directories (SnapshotMeta), and this
// compares the two lists, leaving out a directory that only stopped or started being empty (files moved in
// or out of it, which the diff shows). Pure.

#include <string>
#include <vector>

namespace warren::snapshots {

struct EmptyDirChange {
    std::string dir;
    bool added = false; // made (empty) since; else removed (it was empty)
    bool operator==(const EmptyDirChange&) const = default;
};

// fromEmpty, toEmpty: the two snapshots' empty directories; changedPaths: the files the diff between them
// lists. By directory.
std::vector<EmptyDirChange> emptyDirChanges(const std::vector<std::string>& fromEmpty,
                                            const std::vector<std::string>& toEmpty,
                                            const std::vector<std::string>& changedPaths);

} // namespace warren::snapshots
