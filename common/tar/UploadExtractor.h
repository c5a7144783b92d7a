#pragma once
// Extracts an upload into a new directory: the edge where UploadPolicy's decisions meet the file system.
// Every file is created relative to the directory's descriptor (openat/mkdirat/symlinkat), each component
// opened with O_NOFOLLOW and each file created with O_EXCL: even if the policy had a gap, nothing is
// written outside the directory and nothing that exists is overwritten. Regular files are written as their
// data streams in. On any error (a refused entry, a malformed archive, a full disk) the directory and
// everything in it are removed, so nothing half-extracted remains.

#include "common/Result.h"
#include "common/tar/ByteSource.h"
#include "common/tar/UploadPolicy.h"

#include <cstdint>
#include <filesystem>

namespace warren::tar {

struct UploadCounts {
    std::uint64_t files = 0;
    std::uint64_t directories = 0; // those the archive names, not the ones created on the way
    std::uint64_t symlinks = 0;
    std::uint64_t bytes = 0; // of the regular files
};

class UploadExtractor {
public:
    explicit UploadExtractor(UploadLimits limits) : m_limits(limits) {}

    // target must not exist; its parent must. The tar is read from source to its end-of-archive block.
    Result<UploadCounts> extract(ByteSource& source, const std::filesystem::path& target) const;
    // The same into target, an empty directory that exists and stays (a pod's workspace, a volume that
    // cannot be replaced): on any error what was extracted is removed and target is left empty.
    Result<UploadCounts> extractIntoEmpty(ByteSource& source, const std::filesystem::path& target) const;

private:
    UploadLimits m_limits;
};

} // namespace warren::tar
