#include "app/snapshots/WorkspaceWalk.h"

#include "common/UniqueFd.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

namespace warren::snapshots {

namespace {

struct Walker {
    const SnapshotRules& rules;
    const std::set<std::string>& ignored;
    WalkResult result;
    std::vector<std::size_t> openNested; // indexes into result.nested of the repositories being walked

    void recordFile(const std::string& path) {
        for (auto index : openNested)
            if (!result.nested[index].seed)
                result.nested[index].seed = path;
    }

    Status walk(int dirFd, const std::string& prefix) {
        DIR* dir = ::fdopendir(dirFd);
        if (!dir) {
            ::close(dirFd);
            return makeError(ErrorCode::System, "cannot read the directory " +
                                                    (prefix.empty() ? "." : prefix) + ": " +
                                                    std::strerror(errno));
        }
        struct Entry {
            std::string name;
            unsigned char type;
        };
        std::vector<Entry> entries;
        bool hasGit = false;
        while (dirent* entry = ::readdir(dir)) {
            const std::string name = entry->d_name;
            if (name == "." || name == "..")
                continue;
            if (name == ".git") {
                hasGit = true;
                continue;
            }
            entries.push_back({name, entry->d_type});
        }
        const bool nested = hasGit && !prefix.empty();
        if (nested) {
            result.nested.push_back({prefix, std::nullopt});
            openNested.push_back(result.nested.size() - 1);
        }
        if (entries.empty() && !hasGit && !prefix.empty())
            result.emptyDirs.push_back(prefix);
        Status status = Ok{};
        for (auto& entry : entries) {
            const std::string path = prefix.empty() ? entry.name : prefix + "/" + entry.name;
            if (rules.isHeld(path))
                continue;
            struct stat st {};
            if (::fstatat(::dirfd(dir), entry.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue; // gone meanwhile: git's walk will not find it either
            if (S_ISDIR(st.st_mode)) {
                if (ignored.count(path))
                    continue;
                if (rules.isDependencyDir(entry.name)) {
                    result.dependencyDirs.push_back(path);
                    continue;
                }
                const int child = ::openat(::dirfd(dir), entry.name.c_str(),
                                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (child < 0)
                    continue;
                if (status = walk(child, path); !status)
                    break;
            } else if (S_ISREG(st.st_mode)) {
                if (ignored.count(path))
                    continue;
                if (rules.isLarge(static_cast<std::uint64_t>(st.st_size)))
                    result.largeFiles.push_back(path);
                else
                    recordFile(path);
            } else if (S_ISLNK(st.st_mode)) {
                if (!ignored.count(path))
                    recordFile(path);
            }
        }
        if (nested)
            openNested.pop_back();
        ::closedir(dir);
        return status;
    }
};

} // namespace

Result<WalkResult> walkWorkspace(const std::filesystem::path& workspace, const SnapshotRules& rules,
                                 const std::set<std::string>& ignored) {
    const int root = ::open(workspace.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return makeError(ErrorCode::NotFound,
                         "cannot open the workspace " + workspace.string() + ": " + std::strerror(errno));
    Walker walker{rules, ignored, {}, {}};
    if (auto walked = walker.walk(root, ""); !walked)
        return walked.error();
    return std::move(walker.result);
}

} // namespace warren::snapshots
