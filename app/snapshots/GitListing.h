#pragma once
// git's machine-readable output read into records: the -z listings the snapshots use. Pure: each format's
// rules are test rows (tests/unit/tst_git_listing.cpp).

#include "common/Result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warren::snapshots {

// git's modes as it writes them in octal.
constexpr std::uint32_t kModeFile = 0100644, kModeExecutable = 0100755, kModeSymlink = 0120000,
                        kModeGitlink = 0160000;

// "a\0b\0" -> {"a", "b"}; a last record without its NUL counts too.
std::vector<std::string> splitNul(std::string_view out);

// `git ls-files -s -z`: "MODE OBJECT STAGE\tPATH\0" per entry.
struct IndexEntry {
    std::uint32_t mode = 0;
    std::string object;
    int stage = 0;
    std::string path;
    bool operator==(const IndexEntry&) const = default;
};
Result<std::vector<IndexEntry>> parseIndexEntries(std::string_view out);

// `git diff-tree -r -z --raw --no-renames A B`: ":OLDMODE NEWMODE OLD NEW STATUS\0PATH\0" per path. Status
// A (only in B), D (only in A), M (content or mode), T (type: file, link, gitlink).
struct TreeChange {
    std::uint32_t oldMode = 0, newMode = 0; // 0 where the side has nothing
    std::string oldObject, newObject;
    char status = 'M';
    std::string path;
    bool operator==(const TreeChange&) const = default;
};
Result<std::vector<TreeChange>> parseRawDiff(std::string_view out);

} // namespace warren::snapshots
