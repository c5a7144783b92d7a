#pragma once
// One member of a tar archive as the archive declares it, before any policy has looked at it.

#include <cstdint>
#include <string>

namespace warren::tar {

enum class TarEntryType { Regular, Directory, Symlink, Hardlink, CharDevice, BlockDevice, Fifo, Other };

struct TarEntry {
    std::string path; // as declared: ustar prefix/name, or a GNU long name, or a pax path
    TarEntryType type = TarEntryType::Regular;
    char typeFlag = '0';      // the header's raw type byte, to name an unsupported type
    std::uint32_t mode = 0;   // the permission bits as declared (setuid and all)
    std::uint64_t size = 0;   // bytes of data that follow (regular files; 0 for the others)
    std::string linkTarget;   // symlinks and hard links
    std::uint64_t offset = 0; // where the entry's header (its first metadata header) starts in the stream
};

const char* describe(TarEntryType type);

} // namespace warren::tar
