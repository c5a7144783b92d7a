#pragma once
// What git diff --no-index writes between the trees "a/" and "b/", made into the patch a client applies.
// Pure, so each rule is tested on its own rows.
//  - An added file's "diff --git" line names b/X twice and a deleted file's a/X twice (with --no-prefix
//    the missing side borrows the other's name); both are rewritten to "a/X b/X", like every other file.
//  - A file under a ".git" directory (the workspace's repository, or a nested one) is dropped: git apply
//    refuses such paths, so one commit made by the task would make the whole patch unusable. The patch is
//    the change to the files, not to the repository's metadata.
// A line that starts with "diff --git " is always a header: text lines start with ' ', '+', '-', '@' or
// '\', binary lines with a length letter. With --no-renames both names carry the same path.

#include <string>
#include <string_view>

namespace warren::git {

std::string tidyGitDiff(std::string_view raw);

} // namespace warren::git
