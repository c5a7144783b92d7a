#pragma once
// A task's workspace, made from its upload's tree (extracted and checked once, when it was uploaded)
// rather than by extracting the upload's tar again for every task: a copy, each file a reflink where the
// file system shares extents (FICLONE: btrfs, XFS), else copied in the kernel (copy_file_range), never a
// hard link, so what the agent writes in its workspace never reaches the upload's tree or another task's.
//
// The copy holds what the upload policy admits, checked again entry by entry with the same UploadPolicy
// and limits the extraction used (files, directories and symbolic links that stay inside the tree; no
// devices, FIFOs or sockets; masked modes; the entry and byte limits), so a tree changed behind the
// server's back still yields nothing the policy would refuse. Every file is opened relative to its
// directory with O_NOFOLLOW and O_NONBLOCK and fstat'ed before a byte is read; every one created with
// O_EXCL. Walked with one descriptor per tree (DirectoryNames), so depth and path length do not matter.
// On any error the target is removed. Disk work: warrend runs it on a DiskWork worker.

#include "common/Result.h"
#include "common/tar/UploadExtractor.h"
#include "common/tar/UploadPolicy.h"

#include <filesystem>

namespace warren::uploads {

// target must not exist; its parent must.
Result<tar::UploadCounts> copyWorkspace(const std::filesystem::path& source, const std::filesystem::path& target,
                                        const tar::UploadLimits& limits);

} // namespace warren::uploads
