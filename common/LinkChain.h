#pragma once
// Where a symbolic link inside a tree leads when it is followed through the tree's other links, as the
// kernel would resolve it there: the server refuses an upload whose links leave the tree or loop
// (common/tar/UploadPolicy), and the client leaves such links out before it packs (app/remote/
// WorkspacePack), so both walk the chain the same way. Pure: the tree is the map of its links.

#include <map>
#include <string>
#include <string_view>
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

// Whether target, read from the directory holding the link at linkPath, stays inside the tree without
// following other links: not absolute, and no ".." climbing above the tree's root.
bool linkStaysInside(std::string_view linkPath, std::string_view target);

// The links (path -> target) that, followed through the others as the kernel would, lead out of the tree
// or loop (LeavesTree or Loops). Leaving one out can change where another leads, so this runs until none is
// left to drop.
std::map<std::string, LinkChain> linksLeavingTree(std::map<std::string, std::string> links);

} // namespace warren
