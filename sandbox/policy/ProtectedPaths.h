#pragma once
// Protected paths: files in the writable workspace that the host later executes or trusts (.git/hooks,
// .git/config, .envrc, editor settings, shell rc files). The plan makes each one read-only inside the
// sandbox, including the ones that do not exist yet, and refuses workspaces where a protected file could
// still be changed through another name (a symlink or a hard link).
//
// For each protected path the plan holds, in mount order:
//   Pin             an existing directory on the way (e.g. .git) bound onto itself, so the sandbox cannot
//                   rename it away and put a forged one in its place (a mount point cannot be renamed);
//   ReadOnly        the existing file or directory, bound read-only;
//   PlaceholderFile an empty read-only file where nothing exists yet, so it cannot be created;
//   PlaceholderDir  an empty read-only directory, likewise.
// bwrap and a container engine create the mount points of placeholders in the host workspace, or
// createPlaceholders() does beforehand; removePlaceholders() deletes them after the sandbox has exited, and
// PlaceholderRecord (sandbox/PlaceholderRecord.h) makes sure that happens even when the launcher is killed.

#include "common/Result.h"
#include "sandbox/policy/SandboxProfile.h"

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace warren::sandbox {

struct ProtectionEntry {
    enum class Kind { Pin, ReadOnly, PlaceholderFile, PlaceholderDir };
    std::string relative; // path relative to the workspace root
    Kind kind = Kind::ReadOnly;
    friend bool operator==(const ProtectionEntry&, const ProtectionEntry&) = default;
};

struct ProtectionPlan {
    std::vector<ProtectionEntry> entries; // sorted by path: a parent before its children
};

// workspace: the canonical (realpath) host directory.
Result<ProtectionPlan> planProtection(const std::string& workspace, const std::vector<ProtectedPath>& paths);

// How --explain names what the sandbox does to the path: "read-only", "pinned (...)", ...
std::string protectionKindName(ProtectionEntry::Kind kind);

// Creates the placeholders' mount points (an empty file or directory) in the host workspace, as Warren's
// uid, where nothing exists yet: for a sandbox that binds the workspace from a view in which Warren may not
// create files (an idmapped view, as root).
Status createPlaceholders(const std::string& workspace, const ProtectionPlan& plan);
// A directory as the kernel names it: what a workspace path must still lead to before anything is removed.
struct DirectoryIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    friend bool operator==(const DirectoryIdentity&, const DirectoryIdentity&) = default;
};

struct PlaceholderRemoval {
    std::vector<std::string> removed; // relative paths removed
    std::vector<std::string> kept;    // relative paths left: no longer an empty placeholder, or reached
                                      // only through a symbolic link
};

// Removes the placeholder mount points left in the host workspace where each is still what a placeholder is:
// an empty directory, or an empty regular file with one name. Nothing else is touched: a symbolic link (the
// workspace is the sandbox's to write while it runs), a file someone wrote into, a directory holding
// anything. No link is followed on the way: the workspace is opened (O_NOFOLLOW, and when identity is given
// it must still be that directory), each directory below it opened relative to the one above (openat,
// O_NOFOLLOW), and the entry removed with unlinkat in the directory so opened.
PlaceholderRemoval removePlaceholders(const std::string& workspace, const ProtectionPlan& plan,
                                      std::optional<DirectoryIdentity> identity = std::nullopt);

} // namespace warren::sandbox
