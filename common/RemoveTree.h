#pragma once
// Removes a directory and everything in it, never following a symbolic link (the links are removed, not
// what they name) and at any depth (DirectoryNames: one descriptor per tree, no long paths), where
// std::filesystem::remove_all hands the kernel whole paths and fails past PATH_MAX. A path that does not
// exist is removed already. Disk work: warrend runs it on a DiskWork worker.

#include "common/Result.h"

#include <filesystem>

namespace warren::files {

Status removeTree(const std::filesystem::path& path);

} // namespace warren::files
