#pragma once
// The task's change to its workspace as a git-style unified diff, binary-safe: the real
// `git diff --no-index --binary --full-index` between the pristine copy of the upload and the workspace
// after the task, so `git apply` in a copy of the upload reproduces the workspace. Paths read a/FILE and
// b/FILE relative to the workspace's root. git runs as a process (never through a shell) with no system or
// user configuration, no external diff drivers and no textconv, and its output is capped.
//
// What git does not track, the patch does not carry: an empty directory that appeared or went, mode
// changes other than the executable bit, and files under a ".git" directory (git apply refuses them; see
// GitDiffText.h). The cap applies to git's own output, before those sections are dropped.
//
// The server keeps the pristine copy by extracting the upload's tar a second time (UploadExtractor into
// another directory), so the copy is exactly what the archive held and needs no tree copy of its own.

#include "common/Result.h"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>

namespace warren::git {

struct PatchOptions {
    std::size_t maxBytes = 64u << 20;           // past this the patch is refused, not cut
    std::string git = "git";                    // looked up in PATH when it has no '/'
    std::chrono::milliseconds timeout{120'000}; // past this git is killed and the patch refused
};

// "" when the trees are the same.
Result<std::string> workspacePatch(const std::filesystem::path& pristine,
                                   const std::filesystem::path& workspace, const PatchOptions& options = {});

} // namespace warren::git
