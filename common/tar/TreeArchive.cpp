#include "common/tar/TreeArchive.h"

#include "common/LinkChain.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::tar {

namespace fs = std::filesystem;

namespace {

Error unreadable(const std::string& path, const std::string& why) {
    return makeError(ErrorCode::System, "cannot read \"" + path + "\" of the tree to send: " + why);
}

const char* typeLeftOut(mode_t mode) {
    if (S_ISFIFO(mode))
        return "is a FIFO, which an archive of the tree cannot hold";
    if (S_ISSOCK(mode))
        return "is a socket, which an archive of the tree cannot hold";
    if (S_ISCHR(mode))
        return "is a character device, which an archive of the tree cannot hold";
    if (S_ISBLK(mode))
        return "is a block device, which an archive of the tree cannot hold";
    return "is of a file type an archive of the tree cannot hold";
}

} // namespace

Status TreeArchive::scan() {
    m_members.clear();
    m_leftOut.clear();
    if (auto walked = walk(m_root, ""); !walked)
        return walked;
    std::map<std::string, std::string> links;
    for (const auto& member : m_members)
        if (member.type == TarMember::Type::Symlink)
            links.emplace(member.path, member.linkTarget);
    const auto leaving = linksLeavingTree(links);
    std::erase_if(m_members, [&](const TarMember& member) {
        return member.type == TarMember::Type::Symlink && leaving.contains(member.path);
    });
    for (const auto& [path, chain] : leaving)
        m_leftOut.push_back({path, chain == LinkChain::Loops
                                       ? "is a symbolic link in a loop of links"
                                       : "is a symbolic link that leads out of the tree through its other links (\"" +
                                             links.at(path) + "\")"});
    std::sort(m_leftOut.begin(), m_leftOut.end(),
              [](const LeftOut& a, const LeftOut& b) { return a.path < b.path; });
    m_scanned = true;
    return Ok{};
}

Status TreeArchive::walk(const fs::path& directory, const std::string& prefix) {
    std::error_code error;
    std::vector<std::string> names;
    for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error))
        names.push_back(it->path().filename().string());
    if (error)
        return unreadable(prefix.empty() ? "." : prefix, error.message());
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
        const std::string path = prefix.empty() ? name : prefix + "/" + name;
        const fs::path full = directory / name;
        struct stat info {};
        if (::lstat(full.c_str(), &info) != 0)
            return unreadable(path, std::strerror(errno));
        TarMember member;
        member.path = path;
        member.mode = info.st_mode & 07777;
        member.mtime = info.st_mtime;
        if (S_ISREG(info.st_mode)) {
            member.type = TarMember::Type::File;
            member.size = static_cast<std::uint64_t>(info.st_size);
            m_members.push_back(std::move(member));
        } else if (S_ISDIR(info.st_mode)) {
            member.type = TarMember::Type::Directory;
            m_members.push_back(std::move(member));
            if (auto walked = walk(full, path); !walked)
                return walked;
        } else if (S_ISLNK(info.st_mode)) {
            std::error_code linkError;
            member.type = TarMember::Type::Symlink;
            member.linkTarget = fs::read_symlink(full, linkError).string();
            if (linkError)
                return unreadable(path, linkError.message());
            if (!member.linkTarget.empty() && member.linkTarget.front() == '/')
                m_leftOut.push_back({path, "is a symbolic link to an absolute path (\"" + member.linkTarget + "\")"});
            else if (!linkStaysInside(path, member.linkTarget))
                m_leftOut.push_back({path, "is a symbolic link that leads out of the tree (\"" + member.linkTarget + "\")"});
            else
                m_members.push_back(std::move(member));
        } else {
            m_leftOut.push_back({path, typeLeftOut(info.st_mode)});
        }
    }
    return Ok{};
}

Status TreeArchive::startNext() {
    m_pending.clear();
    m_pendingAt = 0;
    if (m_next == m_members.size()) {
        m_pending.assign(kTarEndBytes, '\0');
        m_ended = true;
        return Ok{};
    }
    const TarMember& member = m_members[m_next++];
    if (member.type == TarMember::Type::File) {
        // O_NONBLOCK: a file replaced by a FIFO since the walk does not make the open wait for a writer.
        UniqueFd file(::open((m_root / member.path).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        struct stat info {};
        if (!file.valid() || ::fstat(file.get(), &info) != 0)
            return unreadable(member.path, std::strerror(errno));
        if (!S_ISREG(info.st_mode))
            return unreadable(member.path, "it is no longer a regular file");
        m_file = std::move(file);
        m_filePath = member.path;
        m_fileLeft = m_fileSize = member.size;
    }
    m_pending = tarHeaders(member);
    return Ok{};
}

Result<std::size_t> TreeArchive::read(char* buffer, std::size_t capacity) {
    if (!m_scanned)
        return makeError(ErrorCode::InvalidArgument, "the tree was not scanned before it was read");
    for (;;) {
        if (m_pendingAt < m_pending.size()) {
            const std::size_t n = std::min(capacity, m_pending.size() - m_pendingAt);
            std::memcpy(buffer, m_pending.data() + m_pendingAt, n);
            m_pendingAt += n;
            return n;
        }
        if (m_file.valid() && m_fileLeft > 0) {
            const ssize_t n = ::read(m_file.get(), buffer, std::min<std::uint64_t>(capacity, m_fileLeft));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return unreadable(m_filePath, std::strerror(errno));
            if (n == 0)
                return makeError(ErrorCode::System, "\"" + m_filePath +
                                                        "\" of the tree to send became shorter while it was sent");
            m_fileLeft -= static_cast<std::uint64_t>(n);
            return static_cast<std::size_t>(n);
        }
        if (m_file.valid()) { // its data is out: the padding, then the next member
            m_file.reset();
            m_pending.assign(tarPadding(m_fileSize), '\0');
            m_pendingAt = 0;
            continue;
        }
        if (m_ended)
            return std::size_t{0};
        if (auto started = startNext(); !started)
            return started.error();
    }
}

} // namespace warren::tar
