#pragma once
// A remote task's patch applied to the local workspace (DESIGN.md §9, `warren apply --remote`), never over
// what the user changed since the upload: each file the patch touches is compared with the upload's
// manifest, and one whose local state differs (its content or executable bit changed, it was deleted, it
// exists where the upload had nothing, it became a link or a directory) is a conflict, left as it is and
// named with the reason. The rest is applied.
//
// The real `git apply --binary` applies it, with an empty repository of its own (GitProcess) and the
// workspace as its work tree: the same whether the workspace is a plain directory or the user's own
// repository, whose .git and index git is never pointed at (and git apply refuses paths in a .git). It
// applies only the sections of the files that do not conflict. `git apply --check` runs first, and a
// file git would refuse on its own (its content does not match, a directory on its path is a link) becomes a
// conflict too; git applies all of what is left or none of it.
//
// planPatch says what applyPatch will do, touching nothing; applyPatch plans again (the files may have
// changed meanwhile) and applies.
//
// Without the manifest (the task was submitted from another data directory or computer, and the user names
// the workspace), the patch itself says what the upload held of each file it touches: the blob id and mode
// of its pre-image. A local file whose git blob id and mode are those is as uploaded; anything else is a
// conflict, with the same reasons.

#include "app/git/PatchText.h"
#include "app/remote/WorkspaceManifest.h"
#include "common/Result.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::remote {

// A path in the local workspace as it is now.
struct LocalState {
    // BeyondSymlink: a directory on its path is a link; UnderFile: something on its path (blockedBy) is not a
    // directory, so nothing can be created there.
    enum class Type { Missing, File, Symlink, Directory, Other, BeyondSymlink, UnderFile };
    Type type = Type::Missing;
    std::string sha256;      // files
    bool executable = false; // files
    std::string target;      // symlinks
    std::string blockedBy;   // UnderFile
};

// Why the patch must not touch a path whose upload held uploaded (nullptr: nothing) and which is now local;
// nullopt when the local path is as it was uploaded. Pure.
std::optional<std::string> conflictReason(const ManifestEntry* uploaded, const LocalState& local);

// lstat and, for a file, its SHA-256; no link is followed, on the path's directories either.
Result<LocalState> readLocalState(const std::filesystem::path& workspace, const std::string& path);

struct PatchConflict {
    std::string path;
    std::string reason;
    bool operator==(const PatchConflict&) const = default;
};

struct PatchPlan {
    std::vector<git::PatchFile> apply;    // in the patch's order
    std::vector<PatchConflict> conflicts; // sorted by path
};

struct ApplyOptions {
    std::string git = "git";
};

// What applyPatch would do now; nothing is written. An error when the patch cannot be read or git fails.
Result<PatchPlan> planPatch(std::string_view patch, const std::filesystem::path& workspace,
                            const WorkspaceManifest& manifest, const ApplyOptions& options = {});

// Applies the files that do not conflict and returns what it did: plan.apply were written, plan.conflicts
// were not touched.
Result<PatchPlan> applyPatch(std::string_view patch, const std::filesystem::path& workspace,
                             const WorkspaceManifest& manifest, const ApplyOptions& options = {});

// The same, against the patch's pre-images in place of the upload's manifest.
Result<PatchPlan> planPatch(std::string_view patch, const std::filesystem::path& workspace,
                            const ApplyOptions& options = {});
Result<PatchPlan> applyPatch(std::string_view patch, const std::filesystem::path& workspace,
                             const ApplyOptions& options = {});

// git's id of a blob holding content (SHA-1 of "blob SIZE\0" and content), lowercase hex. Pure.
std::string gitBlobId(std::string_view content);

} // namespace warren::remote
