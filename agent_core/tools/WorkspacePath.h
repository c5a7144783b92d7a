#pragma once
// Where a path the model gives a tool lands on disk, and the refusal when it would land outside the
// workspace. The model sees the workspace as /workspace (its mount point in the sandbox); in a standalone
// run the workspace is elsewhere, so "/workspace/..." is mapped to its root wherever that is.

#include "common/Result.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace warren::agent {

// Where the workspace is mounted in the sandbox: the absolute paths the model writes start with it.
inline constexpr std::string_view kSandboxWorkspace = "/workspace";

// The file `path` names: a relative path resolves under the workspace; an absolute one must be under the
// workspace root or under /workspace. Symlinks are resolved component by component as the kernel would,
// and the path is refused when a "..", an absolute path or a symlink (at any component, the last one
// included) leads outside the workspace, as are an empty path and one with a NUL byte. Components that do
// not exist yet (a file to create) are kept as given. The result is workspace / a relative path free of
// symlinks, "." and "..", so the caller can open it with O_NOFOLLOW.
Result<std::filesystem::path> resolveInWorkspace(const std::filesystem::path& workspace,
                                                 std::string_view path);

// "a/b.txt" for workspace/a/b.txt and "." for the workspace itself (lexical, for messages and events); a
// path outside the workspace is returned whole.
std::string relativeToWorkspace(const std::filesystem::path& workspace,
                                const std::filesystem::path& absolute);

} // namespace warren::agent
