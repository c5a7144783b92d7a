#pragma once
// The task's patch as GET /v1/tasks/{id}/patch sends it (app/git/WorkspacePatch.h): git's diff
// between the upload's tree and the task's workspace, one section per file, each opening with
// "diff --git a/X b/X" (C-quoted, "\"a/X\" \"b/X\"", when X holds a tab, a quote, a backslash or bytes
// past ASCII). Renames are never detected, so a file's two names are the same; a file that changed type
// (a file become a link) has two sections, its deletion and its creation. Pure: each rule is a test row.
//
// A path that would leave the workspace (absolute, "..") or land in a ".git" directory refuses the whole
// patch: the server never sends one, so such a patch is damaged or not the server's.

#include "common/Result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::git {

struct PatchFile {
    enum class Change { Modified, Added, Deleted };
    std::string path; // relative to the workspace, unquoted
    Change change = Change::Modified;
    bool binary = false;
    std::uint32_t oldMode = 0, newMode = 0; // git's modes (0100644, 0100755, 0120000); 0 where there is none

    bool operator==(const PatchFile&) const = default;
};

struct PatchSection {
    PatchFile file;
    std::string_view text; // the whole section, its header line included
};

// The sections in the patch's order; "" has none.
Result<std::vector<PatchSection>> splitPatch(std::string_view patch);

// The files the patch touches, one per path in the patch's order: a type change's two sections are one
// Modified file (the old mode from its deletion, the new from its creation).
Result<std::vector<PatchFile>> patchFiles(std::string_view patch);

// git's C-quoted name ("\"a/x\\ty\"", octal escapes for bytes) without its quotes and escapes; nullopt
// when it is not one.
std::optional<std::string> unquoteGitName(std::string_view quoted);

const char* describe(PatchFile::Change change);

// The id of the blob git says the section's file held before it ("index OLD..NEW", the full SHA-1 warrend's
// --full-index writes), lowercase hex; nullopt when the section has none (a new file, an abbreviated or
// damaged id). What the task started from, told by the patch itself: a local file with this id is as the
// upload held it.
std::optional<std::string> preimageBlob(std::string_view section);

// Whether a path component names git's metadata directory (".git", in any case: a case-insensitive
// filesystem takes ".GIT" for it).
bool isGitComponent(std::string_view part);

} // namespace warren::git
