#include "app/snapshots/RewindPlan.h"

#include <algorithm>

namespace warren::snapshots {

namespace {

bool within(const std::string& path, const std::vector<std::string>& onlyPaths) {
    if (onlyPaths.empty())
        return true;
    for (std::string only : onlyPaths) {
        while (only.size() > 1 && only.back() == '/') // "dir/" names the directory
            only.pop_back();
        if (path == only || (path.size() > only.size() && path.compare(0, only.size(), only) == 0 &&
                             path[only.size()] == '/'))
            return true;
    }
    return false;
}

FileChange::Action actionOf(const TreeChange& change) {
    if (change.status == 'A')
        return FileChange::Action::Restore;
    if (change.status == 'D')
        return FileChange::Action::Delete;
    if (change.status == 'T')
        return FileChange::Action::Retype;
    if (change.oldObject == change.newObject && change.oldMode != change.newMode)
        return FileChange::Action::Mode;
    return FileChange::Action::Rewrite;
}

std::size_t depth(const std::string& path) {
    return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
}

} // namespace

std::set<std::string> ancestorDirs(const std::vector<std::string>& paths) {
    std::set<std::string> dirs;
    for (const auto& path : paths)
        for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
            dirs.insert(path.substr(0, slash));
    return dirs;
}

std::vector<std::string> RewindPlan::deletions() const {
    std::vector<std::string> out;
    for (const auto& file : files)
        if (file.action == FileChange::Action::Delete || file.action == FileChange::Action::Retype)
            out.push_back(file.path);
    return out;
}

std::vector<std::string> RewindPlan::writes() const {
    std::vector<std::string> out;
    for (const auto& file : files)
        if (file.action != FileChange::Action::Delete)
            out.push_back(file.path);
    return out;
}

RewindPlan planRewind(const std::vector<TreeChange>& changes, const std::vector<std::string>& targetPaths,
                      const std::vector<std::string>& nowEmptyDirs,
                      const std::vector<std::string>& targetEmptyDirs,
                      const std::vector<std::string>& onlyPaths) {
    RewindPlan plan;
    std::vector<std::string> deleted;
    for (const auto& change : changes) {
        if (!within(change.path, onlyPaths))
            continue;
        FileChange file{change.path, actionOf(change), change.oldMode, change.newMode};
        if (file.action == FileChange::Action::Delete)
            deleted.push_back(file.path);
        plan.files.push_back(std::move(file));
    }
    std::sort(plan.files.begin(), plan.files.end(),
              [](const FileChange& a, const FileChange& b) { return a.path < b.path; });

    // A directory the target has (above a path it records, or empty) stays; the others that the
    // deletions or the present's empty directories leave are pruned, when nothing skipped is in them.
    std::set<std::string> targetDirs = ancestorDirs(targetPaths);
    targetDirs.insert(targetEmptyDirs.begin(), targetEmptyDirs.end());
    for (const auto& above : ancestorDirs(targetEmptyDirs))
        targetDirs.insert(above);
    std::set<std::string> prune = ancestorDirs(deleted);
    for (const auto& dir : nowEmptyDirs)
        if (within(dir, onlyPaths)) {
            prune.insert(dir);
            for (const auto& above : ancestorDirs({dir}))
                prune.insert(above);
        }
    for (const auto& dir : prune)
        if (!targetDirs.count(dir) && within(dir, onlyPaths))
            plan.pruneDirs.push_back(dir);
    std::stable_sort(plan.pruneDirs.begin(), plan.pruneDirs.end(),
                     [](const std::string& a, const std::string& b) { return depth(a) > depth(b); });

    const std::set<std::string> nowEmpty(nowEmptyDirs.begin(), nowEmptyDirs.end());
    for (const auto& dir : targetEmptyDirs)
        if (!nowEmpty.count(dir) && within(dir, onlyPaths))
            plan.createDirs.push_back(dir);
    return plan;
}

const char* actionName(FileChange::Action action) {
    switch (action) {
    case FileChange::Action::Restore:
        return "restore";
    case FileChange::Action::Delete:
        return "delete";
    case FileChange::Action::Rewrite:
        return "rewrite";
    case FileChange::Action::Mode:
        return "chmod";
    case FileChange::Action::Retype:
        return "replace";
    }
    return "rewrite";
}

std::vector<std::string> describePlan(const RewindPlan& plan) {
    std::vector<std::string> lines;
    const auto pad = [](std::string word) {
        word.resize(std::max<std::size_t>(word.size() + 1, 9), ' ');
        return word;
    };
    for (const auto& file : plan.files) {
        std::string line = pad(actionName(file.action)) + file.path;
        if (file.action == FileChange::Action::Mode)
            line += file.thenMode == kModeExecutable ? " (+x)" : " (-x)";
        if (file.action == FileChange::Action::Retype)
            line += std::string(" (") + (file.thenMode == kModeSymlink ? "a symbolic link" : "a file") +
                    " again)";
        lines.push_back(std::move(line));
    }
    for (const auto& dir : plan.pruneDirs)
        lines.push_back(pad("rmdir") + dir + "/ (when empty)");
    for (const auto& dir : plan.createDirs)
        lines.push_back(pad("mkdir") + dir + "/");
    return lines;
}

} // namespace warren::snapshots
