#pragma once
// The headers of one tar member as warrend's reader (common/tar/TarReader) takes them: a POSIX ustar
// header, preceded by a pax extended header ('x') when the path or the link target does not fit ustar's
// 100 bytes or the size does not fit its 11 octal digits. Owner and group are 0 and unnamed: the server
// extracts as itself. Pure, so every layout is a test row.

#include <cstdint>
#include <string>

namespace warren::tar {

struct TarMember {
    enum class Type { File, Directory, Symlink };
    std::string path; // relative, no trailing '/' (a directory's is added here)
    Type type = Type::File;
    std::uint32_t mode = 0644; // permission bits
    std::uint64_t size = 0;    // files
    std::int64_t mtime = 0;    // seconds since the epoch; before it is written as 0
    std::string linkTarget;    // symlinks
};

// The header block(s), a multiple of 512 bytes; the member's data (files) follows, padded by tarPadding.
std::string tarHeaders(const TarMember& member);

// Zero bytes after size bytes of data, up to the next 512-byte boundary.
std::uint64_t tarPadding(std::uint64_t size);

// The end-of-archive marker: two zero blocks.
inline constexpr std::uint64_t kTarEndBytes = 1024;

} // namespace warren::tar
