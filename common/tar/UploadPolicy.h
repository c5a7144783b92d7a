#pragma once
// What a workspace upload may contain, decided entry by entry before anything is written. Uploads are
// hostile input: the tree must land inside its directory and hold nothing a sandbox or the server could
// be tricked through. Refused: an empty or NUL-containing name, an absolute path, any ".." component,
// hard links, devices and FIFOs (and any other type but file, directory and symlink), a symbolic link
// whose target is absolute or leaves the tree from the link's directory (also through the archive's other
// links: finish() follows the chains once every link is known), an entry whose parent is a symlink or a
// file of the same archive, a path that appears twice (only a directory may be repeated, so nothing
// replaces a directory or a file), and more entries, longer paths, longer names (a component longer than a file system holds would fail
// on the server's disk, not in the client's archive) or more bytes than the caller's limits.
// Modes are masked: no setuid, setgid or sticky bit, and the owner can always read and write (and enter
// directories), so the server can copy and remove what it extracted. Every refusal names the entry, its
// offset in the archive and the reason.

#include "common/Result.h"
#include "common/tar/TarEntry.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

namespace warren::tar {

struct UploadLimits {
    std::uint64_t maxEntries = 100'000;       // files, directories and links, those made on the way too
    std::size_t maxPathBytes = 4096;          // of a path or a link target, as declared
    std::uint64_t maxTotalBytes = 1ull << 30; // the sum of the regular files' sizes
    std::size_t maxNameBytes = 255;           // of one component of a path: NAME_MAX, what a file system holds
};

struct AdmittedEntry {
    std::string path; // relative, normalised ("./" and empty components dropped); "" is the tree's root
    TarEntryType type = TarEntryType::Regular; // Regular, Directory or Symlink
    std::uint32_t mode = 0;                    // masked; unused for symlinks
    std::uint64_t size = 0;
    std::string linkTarget;
};

class UploadPolicy {
public:
    explicit UploadPolicy(UploadLimits limits) : m_limits(limits) {}

    Result<AdmittedEntry> admit(const TarEntry& entry);
    // After the last entry: each symbolic link, followed through the archive's other links as the kernel
    // would, stays inside the tree (a chain can leave it where each link alone looks harmless).
    Status finish() const;

private:
    enum class Kind { Directory, File, Symlink };
    Status admitShape(const TarEntry& entry);
    Status admitParents(const TarEntry& entry, const std::string& path);

    UploadLimits m_limits;
    std::unordered_map<std::string, Kind> m_seen;
    std::map<std::string, std::string> m_links; // normalised link path -> its target as declared
    std::uint64_t m_entries = 0;
    std::uint64_t m_bytes = 0;
};

} // namespace warren::tar
