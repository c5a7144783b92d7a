#pragma once
// Where a symbolic link inside a tree leads when it is followed through the tree's other links, as the
// kernel would resolve it there: the server refuses an upload whose links leave the tree or loop
// (server/uploads/UploadPolicy), and the client leaves such links out before it packs (app/remote/
// WorkspacePack), so both walk the chain the same way. Pure: the tree is the map of its links.

#include <map>
#include <string>
#include <vector>

namespace warren {

enum class LinkChain {
    StaysInside, // every step, through the other links, stays in the tree
    LeavesTree,  // a ".." climbs above the tree's root
    Loops,       // more than kMaxLinkHops links in a row: a loop (the kernel's ELOOP)
};

inline constexpr int kMaxLinkHops = 40;

// The '/'-separated parts of a path, empty ones kept ("a//b/" -> "a", "", "b", "").
std::vector<std::string> splitPath(const std::string& path);

// linkPath and the keys of links are '/'-separated paths relative to the tree's root; target is the link's
// target as written (relative: an absolute one leaves the tree, which the callers refuse before this).
LinkChain followLinkChain(const std::string& linkPath, const std::string& target,
                          const std::map<std::string, std::string>& links);

} // namespace warren
