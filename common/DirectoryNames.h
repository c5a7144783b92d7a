#pragma once
// The names in a directory (without "." and ".."), read whole and sorted, so a walk can go down into one
// of them and come back through ".." holding one descriptor per tree rather than one per level: a tree
// 2,000 directories deep (what a 4 KB path allows) is walked with a handful of descriptors, and no path
// longer than a name is ever handed to the kernel (PATH_MAX never applies). For the server's own trees
// (an upload's, a task's workspace while no sandbox has it), which nothing else moves while they are walked.

#include "common/Result.h"

#include <string>
#include <vector>

namespace warren::files {

// dir stays open and ours; the listing reads a duplicate.
Result<std::vector<std::string>> directoryNames(int dir);

} // namespace warren::files
