#pragma once
// Reads a tar archive from a stream, one entry at a time, never holding more than a header and a caller's
// buffer: POSIX ustar (prefix + name), GNU long names and link names (types 'L', 'K', base-256 sizes) and
// pax extended headers ('x': path, linkpath, size; 'g' global headers are read and ignored). Every header's
// checksum is verified. A body that is not a tar at all (a zip, gzip, JSON, random bytes) is refused with
// an error saying a tar is expected: compressed archives are not accepted, the client sends a plain tar.
// A truncated or malformed archive is an error naming the entry and the offset; an archive must end with
// its end-of-archive block, so a body cut at a block boundary is caught too.
//
// Pure: no policy here (UploadPolicy decides what is allowed), no file system (UploadExtractor writes).

#include "common/Result.h"
#include "common/tar/ByteSource.h"
#include "common/tar/TarEntry.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace warren::tar {

class TarReader {
public:
    explicit TarReader(ByteSource& source) : m_source(source) {}

    // The next entry, or nullopt at the end-of-archive block. Skips what is left of the previous entry's
    // data. After an error the reader is unusable.
    Result<std::optional<TarEntry>> next();

    // Up to capacity bytes of the current entry's data; 0 once it is all read.
    Result<std::size_t> readData(char* buffer, std::size_t capacity);

private:
    using Block = std::array<char, 512>;
    struct Pending {
        std::optional<std::string> path, linkTarget;
        std::optional<std::uint64_t> size;
        std::uint64_t offset = 0;
        bool any = false;
    };

    Result<std::size_t> readSome(char* buffer, std::size_t capacity);
    Status readBlock(Block& block, bool first);
    Status skipRest();
    Result<std::string> readMetadata(std::uint64_t size, const std::string& what);
    Status applyPax(const std::string& records);
    Status readExtended(char flag, std::uint64_t size, const std::string& rawName);
    TarEntry startEntry(const Block& block, const std::string& rawName, std::uint64_t size,
                        std::uint64_t mode);
    Error malformed(std::uint64_t at, const std::string& entry, const std::string& why) const;

    ByteSource& m_source;
    std::uint64_t m_offset = 0;
    std::uint64_t m_dataLeft = 0;    // of the current entry
    std::uint64_t m_paddingLeft = 0; // to the next 512-byte boundary
    std::string m_currentPath;       // for errors while reading its data
    bool m_sawHeader = false;
    bool m_ended = false;
    Pending m_pending; // GNU long names and pax records for the next header
};

} // namespace warren::tar
