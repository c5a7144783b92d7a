#include "agent_core/tools/WorkspaceSnapshot.h"

#include <algorithm>
#include <dirent.h>
#include <fcntl.h>
#include <optional>
#include <time.h>
#include <unistd.h>

namespace warren::agent {

namespace fs = std::filesystem;

namespace {

// Deep enough for any real tree; bounds the recursion (and the open directories) of a snapshot.
constexpr std::size_t kSnapshotMaxDepth = 256;

std::int64_t nanoseconds(const timespec& time) {
    return static_cast<std::int64_t>(time.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(time.tv_nsec);
}

struct DirEntry {
    std::string key; // name, or name + "/" for a directory: the sort key
    std::string name;
    struct stat status {};
};

// The entries of one directory, sorted; empty when it cannot be opened (gone, unreadable, or swapped
// for a symlink since it was seen: O_NOFOLLOW).
std::vector<DirEntry> readDirectory(const fs::path& directory) {
    std::vector<DirEntry> entries;
    const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return entries;
    DIR* dir = ::fdopendir(fd);
    if (!dir) {
        ::close(fd);
        return entries;
    }
    while (const dirent* entry = ::readdir(dir)) {
        const std::string_view name = entry->d_name;
        if (name == "." || name == "..")
            continue;
        DirEntry item;
        item.name = std::string(name);
        if (::fstatat(fd, entry->d_name, &item.status, AT_SYMLINK_NOFOLLOW) != 0)
            continue; // removed while we read
        item.key = S_ISDIR(item.status.st_mode) ? item.name + "/" : item.name;
        entries.push_back(std::move(item));
    }
    ::closedir(dir);
    std::sort(entries.begin(), entries.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.key < b.key; });
    return entries;
}

bool walkDirectory(const fs::path& directory, const std::string& prefix, std::size_t depth,
                   std::size_t maxDepth, const std::function<bool(const WalkEntry&)>& visit) {
    for (auto& item : readDirectory(directory)) {
        WalkEntry entry;
        entry.path = prefix + item.name;
        entry.absolute = directory / item.name;
        entry.status = item.status;
        entry.depth = depth;
        if (!visit(entry))
            return false;
        if (S_ISDIR(item.status.st_mode) && item.name != ".git" && depth < maxDepth &&
            !walkDirectory(entry.absolute, entry.path + "/", depth + 1, maxDepth, visit))
            return false;
    }
    return true;
}

} // namespace

FileIdentity identityOf(const struct stat& status) {
    FileIdentity identity;
    identity.device = static_cast<std::uint64_t>(status.st_dev);
    identity.inode = static_cast<std::uint64_t>(status.st_ino);
    identity.size = static_cast<std::uint64_t>(std::max<off_t>(status.st_size, 0));
    identity.mtimeNs = nanoseconds(status.st_mtim);
    identity.ctimeNs = nanoseconds(status.st_ctim);
    identity.mode = static_cast<std::uint32_t>(status.st_mode);
    return identity;
}

bool changedWithinCurrentTick(const struct stat& status) {
    timespec now{};
    if (::clock_gettime(CLOCK_REALTIME_COARSE, &now) != 0)
        return true;
    return std::max(nanoseconds(status.st_mtim), nanoseconds(status.st_ctim)) >= nanoseconds(now);
}

void IdentityDigest::mix(const unsigned char* bytes, std::size_t count) {
    __extension__ using Hash = unsigned __int128;
    const Hash prime = (Hash{1} << 88) | 0x13B; // FNV-1a 128 prime
    Hash hash = (Hash{m_high} << 64) | m_low;
    for (std::size_t i = 0; i < count; ++i) {
        hash ^= bytes[i];
        hash *= prime;
    }
    m_high = static_cast<std::uint64_t>(hash >> 64);
    m_low = static_cast<std::uint64_t>(hash);
}

void IdentityDigest::add(std::uint64_t number) {
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i)
        bytes[i] = static_cast<unsigned char>(number >> (8 * i));
    mix(bytes, sizeof bytes);
}

void IdentityDigest::add(std::string_view bytes) {
    add(static_cast<std::uint64_t>(bytes.size()));
    mix(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

void IdentityDigest::add(const FileIdentity& identity) {
    add(identity.device);
    add(identity.inode);
    add(identity.size);
    add(static_cast<std::uint64_t>(identity.mtimeNs));
    add(static_cast<std::uint64_t>(identity.ctimeNs));
    add(std::uint64_t{identity.mode});
}

std::string IdentityDigest::hex() const {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (const std::uint64_t half : {m_high, m_low})
        for (int shift = 60; shift >= 0; shift -= 4)
            out += digits[(half >> shift) & 0xf];
    return out;
}

void walkTree(const fs::path& directory, const std::string& prefix, std::size_t maxDepth,
              const std::function<bool(const WalkEntry&)>& visit) {
    if (maxDepth > 0)
        walkDirectory(directory, prefix, 1, maxDepth, visit);
}

WorkspaceSnapshot takeSnapshot(const fs::path& root, std::size_t maxFiles) {
    WorkspaceSnapshot snapshot;
    std::size_t walked = 0;
    walkTree(root, "", kSnapshotMaxDepth, [&](const WalkEntry& entry) {
        if (entry.absolute.filename() == ".git")
            return true;
        if (walked == maxFiles) {
            snapshot.truncated = true;
            return false;
        }
        ++walked;
        const bool directory = S_ISDIR(entry.status.st_mode);
        if (!directory)
            snapshot.files.emplace(entry.path, identityOf(entry.status));
        snapshot.walkedUpTo = directory ? entry.path + "/" : entry.path;
        return true;
    });
    if (!snapshot.truncated)
        snapshot.walkedUpTo.clear();
    return snapshot;
}

std::vector<std::pair<std::string, FileChange>> diffSnapshots(const WorkspaceSnapshot& before,
                                                              const WorkspaceSnapshot& after) {
    // The walk visits paths in sorted order, so a truncated walk saw exactly the paths up to its last.
    std::optional<std::string> bound;
    for (const WorkspaceSnapshot* snapshot : {&before, &after})
        if (snapshot->truncated && (!bound || snapshot->walkedUpTo < *bound))
            bound = snapshot->walkedUpTo;
    auto reached = [&](const std::string& path) {
        return !bound || path <= *bound;
    };

    std::vector<std::pair<std::string, FileChange>> changes;
    auto old = before.files.begin();
    auto now = after.files.begin();
    while (old != before.files.end() || now != after.files.end()) {
        if (now == after.files.end() || (old != before.files.end() && old->first < now->first)) {
            if (reached(old->first))
                changes.emplace_back(old->first, FileChange::Deleted);
            ++old;
        } else if (old == before.files.end() || now->first < old->first) {
            if (reached(now->first))
                changes.emplace_back(now->first, FileChange::Created);
            ++now;
        } else {
            if (!(old->second == now->second))
                changes.emplace_back(now->first, FileChange::Modified);
            ++old;
            ++now;
        }
    }
    return changes;
}

} // namespace warren::agent
