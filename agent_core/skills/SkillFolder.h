#pragma once
// A skill's folder as the skill tool reads it: the files in it, listed within bounds, and one of them read,
// never through a symlink that leads out of it (the folder may be the workspace's, which is the attacker's:
// a skill must not make the agent read /etc/shadow or another mount). A path the model gives is relative
// to the folder, without "..". The sandbox is the wall; this is the polite refusal, as for the file tools.

#include "common/Result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

inline constexpr std::size_t kMaxListedSkillFiles = 100;
inline constexpr std::size_t kMaxSkillFolderDepth = 4;

// Whether path is base or under it, by their components (both absolute and normalised, canonical when
// symlinks matter).
bool isWithin(const std::filesystem::path& path, const std::filesystem::path& base);

// A path the model gave as relative to a skill's folder, normalised ("./a//b" -> "a/b"); an error for an
// empty one, an absolute one, one with ".." or a NUL byte. Pure.
Result<std::string> relativeSkillPath(std::string_view file);

// folder (canonical) / relative with every symlink followed; NotFound when there is nothing there,
// InvalidArgument when it leads out of folder or is not a regular file.
Result<std::filesystem::path> resolveInSkillFolder(const std::filesystem::path& folder,
                                                   const std::string& relative);

struct SkillFolderListing {
    std::vector<std::string> files; // relative paths, sorted; SKILL.md left out
    bool more = false;              // past kMaxListedSkillFiles, or deeper than kMaxSkillFolderDepth
};

// The regular files under folder (canonical), and symlinks to one inside it; hidden entries (.git) and
// symlinked directories are not entered.
SkillFolderListing listSkillFolder(const std::filesystem::path& folder);

struct FilePrefix {
    std::string text;       // at most limit bytes from the start
    std::uint64_t size = 0; // the file's
};

// Up to limit bytes of a regular file (path free of symlinks: it is opened with O_NOFOLLOW). shown names it
// in errors.
Result<FilePrefix> readFilePrefix(const std::filesystem::path& path, const std::string& shown,
                                  std::size_t limit);

} // namespace warren::agent
