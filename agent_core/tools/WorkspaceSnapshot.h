#pragma once
// The workspace's files by stat identity: walked in a fixed order, digested into the content keys of the
// read-only tools, and compared before and after a shell command to report the files it changed.

#include "agent_core/tools/Tool.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <utility>
#include <vector>

namespace warren::agent {

// What changes when a file's content does: a write changes size or mtime and always ctime, a rename over
// it changes the inode.
struct FileIdentity {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    std::int64_t ctimeNs = 0;
    std::uint32_t mode = 0; // type and permissions
    friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

FileIdentity identityOf(const struct stat& status);

// True while a change to the file could still go unseen: the kernel stamps changes with a clock that
// ticks every few milliseconds, so two same-size writes within one tick leave the same identity. An
// identity is only trusted once the coarse clock has moved past its mtime and ctime (git's "racy" rule).
bool changedWithinCurrentTick(const struct stat& status);

// A 128-bit FNV-1a digest over names and identities: the content key of a read-only tool. Not
// cryptographic; what it guards against is a stale cache entry, not an adversary.
class IdentityDigest {
public:
    void add(std::string_view bytes); // length-prefixed, so "ab","c" and "a","bc" differ
    void add(std::uint64_t number);
    void add(const FileIdentity& identity);
    std::string hex() const; // 32 hex digits

private:
    void mix(const unsigned char* bytes, std::size_t count);
    std::uint64_t m_high = 0x6c62272e07bb0142ULL; // FNV-1a 128 offset basis
    std::uint64_t m_low = 0x62b821756295c58dULL;
};

struct WalkEntry {
    std::string path;               // relative to the workspace: the prefix given to walkTree + names
    std::filesystem::path absolute; // directory / ... / name
    struct stat status {};          // lstat: a symlink is the link itself
    std::size_t depth = 1;          // 1 for the walked directory's own entries
};

// Visits what lies under `directory`, depth-first, each directory's entries sorted by name with a
// directory's name compared as "name/": so entries are visited in the sorted order of their paths
// (directories with a trailing "/"). Never follows a symlink (no escape, no loop), never enters a
// directory named .git (it is visited itself) nor one at maxDepth; a directory it cannot read is visited
// but not entered. `prefix` is prepended to every WalkEntry::path ("" or ending in "/"). Stops when
// visit returns false.
void walkTree(const std::filesystem::path& directory, const std::string& prefix, std::size_t maxDepth,
              const std::function<bool(const WalkEntry&)>& visit);

struct WorkspaceSnapshot {
    std::map<std::string, FileIdentity> files; // relative path → identity; everything but directories
    bool truncated = false;                    // stopped at maxFiles entries...
    std::string walkedUpTo;                    // ...after this path ("d/" for a directory)
};

// Every entry under root except directories and .git, up to maxFiles entries walked (directories count).
WorkspaceSnapshot takeSnapshot(const std::filesystem::path& root, std::size_t maxFiles = 50000);

// The files created, modified (identity changed, type included) and deleted between two snapshots,
// sorted by path. Where a snapshot was truncated only paths both walks reached are compared, so a cut
// never shows up as deletions.
std::vector<std::pair<std::string, FileChange>> diffSnapshots(const WorkspaceSnapshot& before,
                                                              const WorkspaceSnapshot& after);

} // namespace warren::agent
