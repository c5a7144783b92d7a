#pragma once
// A local workspace packed for POST /v1/uploads (DESIGN.md §9): every file, directory and symbolic link git
// would not ignore, never a ".git", written as a tar the server's reader takes, with a manifest of what
// went (WorkspaceManifest) for applying the task's patch later.
//
// What git ignores is git's to say: the real git lists the ignored paths (GitProcess: an empty repository
// of its own, the workspace as its work tree), so nested .gitignore files, negations and directory patterns
// mean exactly what they mean to git. Where the workspace lies inside a repository, the .gitignore files
// above it and the repository's .git/info/exclude count too; a repository nested in the workspace (a
// submodule, a vendored clone) is packed by its own rules, as git treats it. The user's and the system's git
// configuration (their global excludes file) do not count: the upload does not depend on who packs it.
// A tracked file that a .gitignore matches is left out like any ignored one (git is never asked about the
// user's index).
//
// Left out and listed as skipped, with the reason: a symbolic link that leads out of the workspace (the
// server refuses it, and with it the whole upload), sockets, FIFOs and devices, and names that are not
// UTF-8 (the manifest and the server's messages are UTF-8). A file that cannot be read stops the pack with
// an error naming it.
//
// Pure: the ignore list, what is skipped and why, the archive's size against the cap and the message when
// it is over. Edges: the walk of the directory, git, the tar file.

#include "common/tar/TarHeader.h"
#include "app/remote/WorkspaceManifest.h"
#include "common/Result.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace warren::remote {

// The server's default --max-upload-mb.
inline constexpr std::uint64_t kDefaultMaxUploadBytes = 512ull << 20;

// What the walk found at one path, before anything is decided.
struct FoundEntry {
    enum class Type { File, Directory, Symlink, Fifo, Socket, CharDevice, BlockDevice, Other };
    std::string path; // relative to the workspace, '/'-separated
    Type type = Type::File;
    std::uint32_t mode = 0; // permission bits
    std::uint64_t size = 0; // files
    std::int64_t mtime = 0;
    std::string linkTarget; // symlinks
};

struct SkippedEntry {
    std::string path;
    std::string reason;
    bool operator==(const SkippedEntry&) const = default;
};

// The paths git reports as ignored, from `git ls-files -z --others --ignored --exclude-standard
// --directory` run for each repository (the workspace's, and each one nested in it). Directories arrive
// with a trailing '/'; the walk never enters an ignored directory, so a path is looked up as it is.
class IgnoreList {
public:
    // root: where that git ran, relative to the workspace ("" for the workspace itself).
    void addListing(std::string_view root, std::string_view gitOutput);
    bool ignored(std::string_view path, bool directory) const;

private:
    std::set<std::string, std::less<>> m_files, m_directories;
};

// Why the entry is not packed, or nullopt when it is (files, directories and links that stay inside).
// Links are judged here one by one, lexically (common/LinkChain's linkStaysInside); linksLeavingTree
// follows chains through other links.
std::optional<std::string> skipReason(const FoundEntry& entry);

// What will be packed, in archive order (each directory before what it holds), and what will not.
struct PackSelection {
    std::vector<FoundEntry> entries; // files, directories and symlinks only
    std::vector<SkippedEntry> skipped;
};

// The tar's exact size in bytes: headers, data, padding and the end-of-archive marker.
std::uint64_t archiveSize(const std::vector<FoundEntry>& entries);

// Ok when the archive fits maxBytes; otherwise an error naming the size, the cap and the largest top-level
// directories and files, so the user knows what to add to .gitignore.
Status checkPackSize(const std::vector<FoundEntry>& entries, std::uint64_t maxBytes);

// "512 MiB", "1.5 GiB", "700 bytes".
std::string describeBytes(std::uint64_t bytes);

struct PackOptions {
    std::uint64_t maxBytes = kDefaultMaxUploadBytes; // of the whole tar, as the server counts the body
    std::string git = "git";
};

// Walks workspace and chooses its entries as described above (git runs; nothing is written).
Result<PackSelection> selectWorkspace(const std::filesystem::path& workspace,
                                      const PackOptions& options = {});

struct PackResult {
    WorkspaceManifest manifest;
    std::vector<SkippedEntry> skipped;
    std::uint64_t bytes = 0; // of the tar
    std::uint64_t files = 0, directories = 0, symlinks = 0;
};

// Chooses the entries and streams them into a new tar at tarFile (mode 0600, replaced if it exists). Over
// the cap, nothing is written. On any error, the file is removed.
Result<PackResult> packWorkspace(const std::filesystem::path& workspace, const std::filesystem::path& tarFile,
                                 const PackOptions& options = {});

} // namespace warren::remote
