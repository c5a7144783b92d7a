#include "common/TreeSize.h"

#include "common/DirectoryNames.h"
#include "common/UniqueFd.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <vector>

namespace warren::files {

namespace {

Error cannot(const std::filesystem::path& root, const std::string& what) {
    return makeError(ErrorCode::System,
                     "cannot measure " + what + " under " + root.string() + ": " + std::strerror(errno));
}

std::uint64_t allocated(const struct stat& status) {
    return static_cast<std::uint64_t>(status.st_blocks) * 512;
}

} // namespace

Result<std::uint64_t> treeBytes(const std::filesystem::path& path) {
    struct stat status {};
    if (::lstat(path.c_str(), &status) != 0)
        return errno == ENOENT ? Result<std::uint64_t>(0) : Result<std::uint64_t>(cannot(path, "the tree"));
    std::uint64_t total = allocated(status);
    if (!S_ISDIR(status.st_mode))
        return total;
    // One descriptor, the level being measured: down by a name, up by "..", as removeTree walks. A tree
    // moved while it is measured is measured wrong, never followed out through a link.
    UniqueFd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.valid())
        return cannot(path, "the tree");
    std::vector<std::vector<std::string>> levels; // each level's names still to measure
    auto names = directoryNames(dir.get());
    if (!names)
        return names.error();
    levels.push_back(std::move(*names));
    while (!levels.empty()) {
        auto& level = levels.back();
        if (level.empty()) {
            levels.pop_back();
            if (!levels.empty() &&
                !(dir = UniqueFd(::openat(dir.get(), "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)))
                     .valid())
                return cannot(path, "a directory");
            continue;
        }
        const std::string name = std::move(level.back());
        level.pop_back();
        if (::fstatat(dir.get(), name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) // gone meanwhile: it takes nothing now
                continue;
            return cannot(path, "\"" + name + "\"");
        }
        total += allocated(status);
        if (!S_ISDIR(status.st_mode))
            continue;
        UniqueFd child(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!child.valid()) {
            if (errno == ENOENT)
                continue;
            return cannot(path, "\"" + name + "\"");
        }
        auto childNames = directoryNames(child.get());
        if (!childNames)
            return childNames.error();
        dir = std::move(child);
        levels.push_back(std::move(*childNames));
    }
    return total;
}

} // namespace warren::files
