#include "agent_core/skills/SkillFolder.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::agent {

namespace fs = std::filesystem;

namespace {

// Entries of one directory looked at: a folder of a million files is not a skill's.
constexpr std::size_t kMaxEntriesPerDirectory = 1000;

std::vector<std::string> componentsOf(const fs::path& path) {
    std::vector<std::string> out;
    for (const auto& part : path.lexically_normal())
        if (!part.empty())
            out.push_back(part.string());
    return out;
}

void walk(const fs::path& folder, const fs::path& directory, const std::string& prefix, std::size_t depth,
          SkillFolderListing& listing) {
    std::error_code error;
    std::vector<std::string> names;
    for (fs::directory_iterator it(directory, fs::directory_options::skip_permission_denied, error), end;
         !error && it != end; it.increment(error)) {
        if (names.size() == kMaxEntriesPerDirectory) {
            listing.more = true;
            break;
        }
        names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
        if (listing.files.size() >= kMaxListedSkillFiles) {
            listing.more = true;
            return;
        }
        if (name.starts_with("."))
            continue;
        const fs::path path = directory / name;
        const std::string relative = prefix + name;
        const auto status = fs::symlink_status(path, error);
        if (error)
            continue;
        if (fs::is_symlink(status)) {
            const auto target = fs::canonical(path, error);
            if (!error && isWithin(target, folder) && fs::is_regular_file(target, error))
                listing.files.push_back(relative);
        } else if (fs::is_directory(status)) {
            if (depth + 1 >= kMaxSkillFolderDepth)
                listing.more = true;
            else
                walk(folder, path, relative + "/", depth + 1, listing);
        } else if (fs::is_regular_file(status) && relative != "SKILL.md") {
            listing.files.push_back(relative);
        }
    }
}

} // namespace

bool isWithin(const fs::path& path, const fs::path& base) {
    const auto inner = componentsOf(path);
    const auto outer = componentsOf(base);
    return inner.size() >= outer.size() && std::equal(outer.begin(), outer.end(), inner.begin());
}

Result<std::string> relativeSkillPath(std::string_view file) {
    auto refused = [](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument, "file " + why);
    };
    if (file.empty())
        return refused("is empty");
    if (file.find('\0') != std::string_view::npos)
        return refused("contains a NUL byte");
    if (file.front() == '/')
        return refused("must be a path relative to the skill's folder, not an absolute one");
    std::string out;
    std::size_t start = 0;
    while (start <= file.size()) {
        const std::size_t end = std::min(file.find('/', start), file.size());
        const std::string_view part = file.substr(start, end - start);
        start = end + 1;
        if (part.empty() || part == ".")
            continue;
        if (part == "..")
            return refused("may not contain \"..\": it is a path inside the skill's folder");
        out += (out.empty() ? "" : "/") + std::string(part);
    }
    if (out.empty())
        return refused("names the folder itself; leave file out to list its files");
    return out;
}

Result<fs::path> resolveInSkillFolder(const fs::path& folder, const std::string& relative) {
    std::error_code error;
    const fs::path target = fs::canonical(folder / relative, error);
    if (error == std::errc::no_such_file_or_directory || error == std::errc::not_a_directory)
        return makeError(ErrorCode::NotFound, "no such file in the skill's folder: " + relative);
    if (error)
        return makeError(ErrorCode::System, relative + ": " + error.message());
    if (!isWithin(target, folder))
        return makeError(ErrorCode::InvalidArgument,
                         relative + " leads out of the skill's folder (through a symlink): not read");
    const auto status = fs::status(target, error);
    if (fs::is_directory(status))
        return makeError(ErrorCode::InvalidArgument,
                         relative + " is a directory; leave file out to list the skill's files");
    if (error || !fs::is_regular_file(status))
        return makeError(ErrorCode::InvalidArgument, relative + " is not a regular file");
    return target;
}

SkillFolderListing listSkillFolder(const fs::path& folder) {
    SkillFolderListing listing;
    walk(folder, folder, "", 0, listing);
    std::sort(listing.files.begin(), listing.files.end());
    return listing;
}

Result<FilePrefix> readFilePrefix(const fs::path& path, const std::string& shown, std::size_t limit) {
    // O_NOFOLLOW: the path was resolved free of symlinks, so one found here was planted since. O_NONBLOCK:
    // opening a FIFO must not hang the agent.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return makeError(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::System,
                         shown + ": " + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        return makeError(ErrorCode::InvalidArgument, shown + " is not a regular file");
    }
    FilePrefix prefix;
    prefix.size = static_cast<std::uint64_t>(std::max<off_t>(info.st_size, 0));
    prefix.text.resize(static_cast<std::size_t>(std::min<std::uint64_t>(prefix.size, limit)));
    std::size_t got = 0;
    while (got < prefix.text.size()) {
        const ssize_t n = ::read(fd, prefix.text.data() + got, prefix.text.size() - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    prefix.text.resize(got);
    return prefix;
}

} // namespace warren::agent
