#include "app/snapshots/EmptyDirChanges.h"

#include <algorithm>
#include <set>

namespace warren::snapshots {

namespace {

bool anyBelow(const std::string& dir, const std::vector<std::string>& paths) {
    const std::string prefix = dir + "/";
    return std::any_of(paths.begin(), paths.end(),
                       [&](const std::string& path) { return path.compare(0, prefix.size(), prefix) == 0; });
}

} // namespace

std::vector<EmptyDirChange> emptyDirChanges(const std::vector<std::string>& fromEmpty,
                                            const std::vector<std::string>& toEmpty,
                                            const std::vector<std::string>& changedPaths) {
    const std::set<std::string> before(fromEmpty.begin(), fromEmpty.end());
    const std::set<std::string> after(toEmpty.begin(), toEmpty.end());
    std::vector<EmptyDirChange> out;
    // Made: empty now, and before neither empty nor holding anything (no file left it, no empty directory
    // was in it).
    for (const auto& dir : after)
        if (!before.count(dir) && !anyBelow(dir, changedPaths) && !anyBelow(dir, fromEmpty))
            out.push_back({dir, true});
    // Removed: empty before, and now neither empty nor holding anything.
    for (const auto& dir : before)
        if (!after.count(dir) && !anyBelow(dir, changedPaths) && !anyBelow(dir, toEmpty))
            out.push_back({dir, false});
    std::sort(out.begin(), out.end(),
              [](const EmptyDirChange& a, const EmptyDirChange& b) { return a.dir < b.dir; });
    return out;
}

} // namespace warren::snapshots
