#pragma once
// The disk a tree takes: the blocks allocated to everything in it (st_blocks, so a sparse file counts what it
// holds and a reflinked copy what the file system reports), never following a symbolic link (a link counts
// its own blocks) and at any depth, with one descriptor (DirectoryNames). A path that does not exist takes
// nothing. Disk work: run it off an event loop.

#include "common/Result.h"

#include <cstdint>
#include <filesystem>

namespace warren::files {

Result<std::uint64_t> treeBytes(const std::filesystem::path& path);

} // namespace warren::files
