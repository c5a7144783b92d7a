#include "common/RemoveTree.h"

#include "common/DirectoryNames.h"
#include "common/UniqueFd.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace warren::files {

namespace {

Error cannot(const std::filesystem::path& root, const std::string& what) {
    return makeError(ErrorCode::System,
                     "cannot remove " + what + " under " + root.string() + ": " + std::strerror(errno));
}

} // namespace

Status removeTree(const std::filesystem::path& path) {
    struct stat status {};
    if (::lstat(path.c_str(), &status) != 0) {
        if (errno == ENOENT)
            return Ok{};
        return cannot(path, "the tree");
    }
    if (!S_ISDIR(status.st_mode)) {
        if (::unlink(path.c_str()) == 0 || errno == ENOENT)
            return Ok{};
        return cannot(path, "a file");
    }
    UniqueFd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.valid())
        return cannot(path, "the tree");
    // Each level: its name in its parent, and its names still to remove.
    struct Level {
        std::string name;
        std::vector<std::string> names;
    };
    std::vector<Level> levels;
    auto names = directoryNames(dir.get());
    if (!names)
        return names.error();
    levels.push_back({"", std::move(*names)});
    while (!levels.empty()) {
        Level& level = levels.back();
        if (level.names.empty()) {
            const std::string name = level.name;
            levels.pop_back();
            if (levels.empty())
                break;
            dir = UniqueFd(::openat(dir.get(), "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!dir.valid())
                return cannot(path, "a directory");
            if (::unlinkat(dir.get(), name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
                return cannot(path, "a directory");
            continue;
        }
        const std::string name = std::move(level.names.back());
        level.names.pop_back();
        if (::unlinkat(dir.get(), name.c_str(), 0) == 0 || errno == ENOENT)
            continue;
        if (errno != EISDIR)
            return cannot(path, "\"" + name + "\"");
        UniqueFd child(::openat(dir.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!child.valid())
            return cannot(path, "\"" + name + "\"");
        auto childNames = directoryNames(child.get());
        if (!childNames)
            return childNames.error();
        dir = std::move(child);
        levels.push_back({name, std::move(*childNames)});
    }
    dir.reset();
    if (::rmdir(path.c_str()) != 0 && errno != ENOENT)
        return cannot(path, "the tree's root");
    return Ok{};
}

} // namespace warren::files
