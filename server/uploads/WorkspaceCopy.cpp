#include "server/uploads/WorkspaceCopy.h"

#include "common/DirectoryNames.h"
#include "common/RemoveTree.h"
#include "common/UniqueFd.h"
#include "common/WriteAll.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace warren::uploads {

namespace {

using tar::TarEntry;
using tar::TarEntryType;

constexpr int kDirectoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

Error cannot(const std::string& what, const std::string& path) {
    return makeError(ErrorCode::System,
                     "cannot " + what + " \"" + path + "\" of the task's workspace: " + std::strerror(errno));
}

std::string joined(const std::string& parent, const std::string& name) {
    return parent.empty() ? name : parent + "/" + name;
}

// The data of from into to: shared extents where the file system can, else copied in the kernel, else
// through a buffer (a file system that does neither).
Status copyData(int from, int to, std::uint64_t size, const std::string& path) {
    if (size == 0 || ::ioctl(to, FICLONE, from) == 0)
        return Ok{};
    std::uint64_t left = size;
    while (left > 0) {
        const ssize_t n = ::copy_file_range(from, nullptr, to, nullptr, left, 0);
        if (n > 0) {
            left -= static_cast<std::uint64_t>(n);
            continue;
        }
        if (n == 0) // the file became shorter since fstat: what is there is copied
            return Ok{};
        if (errno == EINTR)
            continue;
        if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
            return cannot("copy", path);
        break; // no in-kernel copy here: a buffer does it, from where copy_file_range stopped
    }
    std::vector<char> buffer(64 * 1024);
    while (left > 0) {
        const ssize_t n = ::read(from, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return cannot("read", path);
        if (n == 0)
            return Ok{};
        if (!writeAll(to, std::string_view(buffer.data(), static_cast<std::size_t>(n))))
            return cannot("write", path);
        left -= std::min<std::uint64_t>(left, static_cast<std::uint64_t>(n));
    }
    return Ok{};
}

// What the policy is shown for a file that is none of the three a workspace holds, so it names it.
void setSpecialType(TarEntry& entry, mode_t mode) {
    entry.type = S_ISFIFO(mode)  ? TarEntryType::Fifo
                 : S_ISCHR(mode) ? TarEntryType::CharDevice
                 : S_ISBLK(mode) ? TarEntryType::BlockDevice
                                 : TarEntryType::Other;
    entry.typeFlag = '?'; // a socket, which no tar type names
}

class Copier {
public:
    explicit Copier(const tar::UploadLimits& limits) : m_policy(limits) {}

    Status copy(const std::filesystem::path& source, const std::filesystem::path& target);
    const tar::UploadCounts& counts() const { return m_counts; }

private:
    struct Level {
        std::string path; // relative to the tree's root
        std::vector<std::string> names;
        std::size_t next = 0;
    };
    Status copyEntry(const std::string& path, const std::string& name);
    Status copyFile(const std::string& path, const std::string& name, const struct stat& status);
    Status enter(const std::string& path, const std::string& name, const tar::AdmittedEntry& admitted);
    Status leave();

    tar::UploadPolicy m_policy;
    tar::UploadCounts m_counts;
    UniqueFd m_from, m_to; // the directories being copied, source and target
    std::vector<Level> m_levels;
};

Status Copier::copy(const std::filesystem::path& source, const std::filesystem::path& target) {
    m_from = UniqueFd(::open(source.c_str(), kDirectoryFlags));
    struct stat root {};
    if (!m_from.valid() || ::fstat(m_from.get(), &root) != 0)
        return cannot("open the upload's tree for", ".");
    m_to = UniqueFd(::open(target.c_str(), kDirectoryFlags));
    if (!m_to.valid() || ::fchmod(m_to.get(), (root.st_mode & 0777) | 0700) != 0)
        return cannot("open", ".");
    auto names = files::directoryNames(m_from.get());
    if (!names)
        return names.error();
    m_levels.push_back({"", std::move(*names)});
    while (!m_levels.empty()) {
        Level& level = m_levels.back();
        if (level.next == level.names.size()) {
            if (auto left = leave(); !left)
                return left;
            continue;
        }
        const std::string name = level.names[level.next++];
        if (auto copied = copyEntry(joined(level.path, name), name); !copied)
            return copied;
    }
    return m_policy.finish();
}

Status Copier::leave() {
    const std::string path = m_levels.back().path;
    m_levels.pop_back();
    if (m_levels.empty())
        return Ok{};
    m_from = UniqueFd(::openat(m_from.get(), "..", kDirectoryFlags));
    m_to = UniqueFd(::openat(m_to.get(), "..", kDirectoryFlags));
    if (!m_from.valid() || !m_to.valid())
        return cannot("return from", path);
    return Ok{};
}

Status Copier::copyEntry(const std::string& path, const std::string& name) {
    struct stat status {};
    if (::fstatat(m_from.get(), name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0)
        return cannot("examine", path);
    TarEntry entry;
    entry.path = path;
    entry.mode = status.st_mode & 07777;
    if (S_ISREG(status.st_mode))
        return copyFile(path, name, status);
    if (S_ISDIR(status.st_mode)) {
        entry.type = TarEntryType::Directory;
    } else if (S_ISLNK(status.st_mode)) {
        entry.type = TarEntryType::Symlink;
        std::string target(4097, '\0');
        const ssize_t n = ::readlinkat(m_from.get(), name.c_str(), target.data(), target.size());
        if (n < 0)
            return cannot("read the link", path);
        target.resize(static_cast<std::size_t>(n));
        entry.linkTarget = std::move(target);
    } else {
        setSpecialType(entry, status.st_mode);
    }
    auto admitted = m_policy.admit(entry); // refuses devices, FIFOs, sockets, links out, the limits
    if (!admitted)
        return admitted.error();
    if (admitted->type == TarEntryType::Directory)
        return enter(path, name, *admitted);
    if (::symlinkat(admitted->linkTarget.c_str(), m_to.get(), name.c_str()) != 0)
        return cannot("create the link", path);
    ++m_counts.symlinks;
    return Ok{};
}

Status Copier::copyFile(const std::string& path, const std::string& name, const struct stat& listed) {
    // Opened without following a link and without blocking, then checked: what was a file when listed and
    // became a FIFO is refused, never read.
    const UniqueFd from(::openat(m_from.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    struct stat status {};
    if (!from.valid() || ::fstat(from.get(), &status) != 0)
        return cannot("open", path);
    TarEntry entry;
    entry.path = path;
    if (!S_ISREG(status.st_mode))
        setSpecialType(entry, status.st_mode);
    entry.mode = listed.st_mode & 07777;
    entry.size = static_cast<std::uint64_t>(status.st_size);
    auto admitted = m_policy.admit(entry);
    if (!admitted)
        return admitted.error();
    const UniqueFd to(::openat(m_to.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!to.valid())
        return cannot("create", path);
    if (auto copied = copyData(from.get(), to.get(), entry.size, path); !copied)
        return copied;
    if (::fchmod(to.get(), admitted->mode) != 0)
        return cannot("set the mode of", path);
    ++m_counts.files;
    m_counts.bytes += entry.size;
    return Ok{};
}

Status Copier::enter(const std::string& path, const std::string& name, const tar::AdmittedEntry& admitted) {
    ++m_counts.directories;
    if (::mkdirat(m_to.get(), name.c_str(), 0700) != 0)
        return cannot("create the directory", path);
    UniqueFd from(::openat(m_from.get(), name.c_str(), kDirectoryFlags));
    UniqueFd to(::openat(m_to.get(), name.c_str(), kDirectoryFlags));
    if (!from.valid() || !to.valid())
        return cannot("open the directory", path);
    if (::fchmod(to.get(), admitted.mode) != 0)
        return cannot("set the mode of", path);
    auto names = files::directoryNames(from.get());
    if (!names)
        return names.error();
    m_from = std::move(from);
    m_to = std::move(to);
    m_levels.push_back({path, std::move(*names)});
    return Ok{};
}

} // namespace

Result<tar::UploadCounts> copyWorkspace(const std::filesystem::path& source, const std::filesystem::path& target,
                                        const tar::UploadLimits& limits) {
    if (::mkdir(target.c_str(), 0700) != 0)
        return makeError(ErrorCode::System, "cannot create the task's workspace \"" + target.string() +
                                                "\": " + std::strerror(errno));
    Copier copier(limits);
    auto copied = copier.copy(source, target);
    if (copied)
        return copier.counts();
    Error error = copied.error();
    if (auto removed = files::removeTree(target); !removed)
        error.message += " (and removing the partial copy failed: " + removed.error().message + ")";
    return error;
}

} // namespace warren::uploads
