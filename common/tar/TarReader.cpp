#include "common/tar/TarReader.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace warren::tar {

namespace {

// Long names and pax records are held in memory; a path is at most a few KB, so a metadata entry that
// declares more is hostile (it would have the server buffer whatever size it claims).
constexpr std::uint64_t kMaxMetadataBytes = 64 * 1024;

constexpr std::size_t kNameOffset = 0, kNameSize = 100;
constexpr std::size_t kModeOffset = 100, kModeSize = 8;
constexpr std::size_t kSizeOffset = 124, kSizeSize = 12;
constexpr std::size_t kChecksumOffset = 148, kChecksumSize = 8;
constexpr std::size_t kTypeOffset = 156;
constexpr std::size_t kLinkOffset = 157, kLinkSize = 100;
constexpr std::size_t kMagicOffset = 257;
constexpr std::size_t kPrefixOffset = 345, kPrefixSize = 155;

std::string field(const char* block, std::size_t offset, std::size_t size) {
    const char* begin = block + offset;
    return std::string(begin, std::find(begin, begin + size, '\0'));
}

bool isPosixMagic(const char* block) {
    return std::string_view(block + kMagicOffset, 6) == std::string_view("ustar\0", 6);
}
bool isGnuMagic(const char* block) {
    return std::string_view(block + kMagicOffset, 8) == std::string_view("ustar  \0", 8);
}

// Octal, NUL- or space-terminated, leading spaces allowed; or GNU base-256 (high bit of the first byte).
std::optional<std::uint64_t> parseNumber(const char* block, std::size_t offset, std::size_t size) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(block + offset);
    if (bytes[0] == 0x80) {
        std::uint64_t value = 0;
        for (std::size_t i = 1; i < size; ++i) {
            if (value > (std::numeric_limits<std::uint64_t>::max() >> 8))
                return std::nullopt;
            value = (value << 8) | bytes[i];
        }
        return value;
    }
    std::size_t i = 0;
    while (i < size && bytes[i] == ' ')
        ++i;
    std::uint64_t value = 0;
    for (; i < size && bytes[i] >= '0' && bytes[i] <= '7'; ++i) {
        if (value > (std::numeric_limits<std::uint64_t>::max() >> 3))
            return std::nullopt;
        value = (value << 3) | static_cast<std::uint64_t>(bytes[i] - '0');
    }
    for (; i < size; ++i)
        if (bytes[i] != ' ' && bytes[i] != '\0')
            return std::nullopt;
    return value;
}

// tar implementations have summed the header as unsigned and as signed bytes; both are accepted.
bool checksumMatches(const char* block) {
    const auto declared = parseNumber(block, kChecksumOffset, kChecksumSize);
    if (!declared)
        return false;
    std::int64_t asUnsigned = 0, asSigned = 0;
    for (std::size_t i = 0; i < 512; ++i) {
        const bool inField = i >= kChecksumOffset && i < kChecksumOffset + kChecksumSize;
        asUnsigned += inField ? ' ' : static_cast<unsigned char>(block[i]);
        asSigned += inField ? ' ' : static_cast<signed char>(block[i]);
    }
    const auto want = static_cast<std::int64_t>(*declared);
    return asUnsigned == want || asSigned == want;
}

// What a body that is not a tar looks like, so the client learns what it sent.
std::string sniff(std::string_view head) {
    if (head.empty())
        return "an empty body";
    if (head.starts_with("PK\x03\x04") || head.starts_with("PK\x05\x06"))
        return "a zip archive";
    if (head.starts_with("\x1f\x8b"))
        return "gzip-compressed data (send the tar uncompressed)";
    if (head.starts_with("BZh"))
        return "bzip2-compressed data (send the tar uncompressed)";
    if (head.starts_with("\xfd"
                         "7zXZ"))
        return "xz-compressed data (send the tar uncompressed)";
    if (head.starts_with("\x28\xb5\x2f\xfd"))
        return "zstd-compressed data (send the tar uncompressed)";
    const auto first = head.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && (head[first] == '{' || head[first] == '['))
        return "what looks like JSON";
    return "something else (no tar header in its first 512 bytes)";
}

TarEntryType typeOf(char flag) {
    switch (flag) {
    case '0':
    case '\0':
    case '7': // contiguous file: a regular file everywhere but on one old system
        return TarEntryType::Regular;
    case '1':
        return TarEntryType::Hardlink;
    case '2':
        return TarEntryType::Symlink;
    case '3':
        return TarEntryType::CharDevice;
    case '4':
        return TarEntryType::BlockDevice;
    case '5':
        return TarEntryType::Directory;
    case '6':
        return TarEntryType::Fifo;
    default:
        return TarEntryType::Other;
    }
}

std::string quoted(const std::string& path) {
    return path.empty() ? "the header" : "\"" + path + "\"";
}

} // namespace

Error TarReader::malformed(std::uint64_t at, const std::string& entry, const std::string& why) const {
    return makeError(ErrorCode::InvalidArgument, "the tar archive is malformed at offset " +
                                                     std::to_string(at) + " (" + quoted(entry) + "): " + why);
}

Result<std::size_t> TarReader::readSome(char* buffer, std::size_t capacity) {
    auto n = m_source.read(buffer, capacity);
    if (n)
        m_offset += *n;
    return n;
}

// A whole block, or an error: short at the start of the stream means "not a tar"; later, "truncated".
Status TarReader::readBlock(Block& block, bool first) {
    std::size_t have = 0;
    while (have < block.size()) {
        auto n = readSome(block.data() + have, block.size() - have);
        if (!n)
            return n.error();
        if (*n == 0)
            break;
        have += *n;
    }
    // An archive of nothing (tar -cf x.tar -T /dev/null) is only its end-of-archive block: that is a tar too.
    const bool zero = std::all_of(block.begin(), block.end(), [](char c) { return c == '\0'; });
    if (first && (have < block.size() || !(zero || isPosixMagic(block.data()) || isGnuMagic(block.data()))))
        return makeError(ErrorCode::InvalidArgument, "a tar archive is expected, but the body is " +
                                                         sniff(std::string_view(block.data(), have)));
    if (have == 0)
        return malformed(m_offset, m_currentPath,
                         "the archive ends without its end-of-archive block (truncated?)");
    if (have < block.size())
        return malformed(m_offset - have, m_currentPath, "the archive is truncated inside a header");
    return Ok{};
}

Status TarReader::skipRest() {
    char scratch[16 * 1024];
    while (m_dataLeft > 0) {
        auto n = readData(scratch, sizeof scratch);
        if (!n)
            return n.error();
    }
    while (m_paddingLeft > 0) {
        auto n = readSome(scratch,
                          static_cast<std::size_t>(std::min<std::uint64_t>(m_paddingLeft, sizeof scratch)));
        if (!n)
            return n.error();
        if (*n == 0)
            return malformed(m_offset, m_currentPath,
                             "the archive is truncated in the padding after the data");
        m_paddingLeft -= *n;
    }
    return Ok{};
}

Result<std::size_t> TarReader::readData(char* buffer, std::size_t capacity) {
    if (m_dataLeft == 0 || capacity == 0)
        return std::size_t{0};
    auto n = readSome(buffer, static_cast<std::size_t>(std::min<std::uint64_t>(capacity, m_dataLeft)));
    if (!n)
        return n.error();
    if (*n == 0)
        return malformed(m_offset, m_currentPath,
                         "the archive is truncated: " + std::to_string(m_dataLeft) +
                             " more bytes of data were declared");
    m_dataLeft -= *n;
    return n;
}

Result<std::string> TarReader::readMetadata(std::uint64_t size, const std::string& what) {
    if (size > kMaxMetadataBytes)
        return malformed(m_offset - 512, m_currentPath,
                         what + " declares " + std::to_string(size) + " bytes, more than the " +
                             std::to_string(kMaxMetadataBytes) + " a path needs");
    std::string data(static_cast<std::size_t>(size), '\0');
    m_dataLeft = size;
    m_paddingLeft = (512 - size % 512) % 512;
    std::size_t have = 0;
    while (have < data.size()) {
        auto n = readData(data.data() + have, data.size() - have);
        if (!n)
            return n.error();
        have += *n;
    }
    if (auto skipped = skipRest(); !skipped)
        return skipped.error();
    return data;
}

// Records are "LENGTH key=value\n", LENGTH counting the whole record; the value may hold any byte.
Status TarReader::applyPax(const std::string& records) {
    std::string_view rest(records);
    while (!rest.empty()) {
        const auto space = rest.find(' ');
        std::uint64_t length = 0;
        bool digits = space != std::string_view::npos && space > 0 && space < 20;
        for (std::size_t i = 0; digits && i < space; ++i) {
            digits = rest[i] >= '0' && rest[i] <= '9';
            length = length * 10 + static_cast<std::uint64_t>(rest[i] - '0');
        }
        if (!digits || length <= space + 1 || length > rest.size() || rest[length - 1] != '\n')
            return malformed(m_pending.offset, m_currentPath, "a pax extended header record is malformed");
        const std::string_view record = rest.substr(space + 1, length - space - 2);
        rest.remove_prefix(length);
        const auto equals = record.find('=');
        if (equals == std::string_view::npos)
            return malformed(m_pending.offset, m_currentPath, "a pax record has no '='");
        const std::string_view key = record.substr(0, equals), value = record.substr(equals + 1);
        if (key == "path") {
            m_pending.path = std::string(value);
        } else if (key == "linkpath") {
            m_pending.linkTarget = std::string(value);
        } else if (key == "size") {
            std::uint64_t size = 0;
            bool valid = !value.empty() && value.size() < 20;
            for (const char c : value) {
                valid = valid && c >= '0' && c <= '9';
                size = size * 10 + static_cast<std::uint64_t>(c - '0');
            }
            if (!valid)
                return malformed(m_pending.offset, m_currentPath, "the pax size is not a number");
            m_pending.size = size;
        } else if (key.starts_with("GNU.sparse.")) {
            return malformed(m_pending.offset, m_currentPath, "sparse files are not supported");
        }
        // Other keys (mtime, uid, uname, charset, ...) say nothing the extraction uses.
    }
    return Ok{};
}

// A GNU long name ('L') or link name ('K'), or pax records ('x'), for the next entry; 'g' is read and ignored
// (global defaults: nothing in them applies to the extraction).
Status TarReader::readExtended(char flag, std::uint64_t size, const std::string& rawName) {
    m_currentPath = rawName;
    const char* what = flag == 'L'   ? "a GNU long name"
                       : flag == 'K' ? "a GNU long link name"
                                     : "a pax extended header";
    auto data = readMetadata(size, what);
    if (!data)
        return data.error();
    if (flag == 'g')
        return Ok{};
    m_pending.any = true;
    std::string& value = *data;
    if (flag == 'x')
        return applyPax(value);
    // GNU long names end with a NUL; an interior NUL stays, for the policy to refuse.
    while (!value.empty() && value.back() == '\0')
        value.pop_back();
    (flag == 'L' ? m_pending.path : m_pending.linkTarget) = std::move(value);
    return Ok{};
}

// The entry a header declares, with what extended headers before it said; the reader is then positioned
// at its data (a non-regular entry's declared data is skipped as padding, never handed out).
TarEntry TarReader::startEntry(const Block& block, const std::string& rawName, std::uint64_t size,
                               std::uint64_t mode) {
    const char* h = block.data();
    TarEntry entry;
    entry.offset = m_pending.offset;
    entry.typeFlag = h[kTypeOffset];
    entry.type = typeOf(entry.typeFlag);
    entry.mode = static_cast<std::uint32_t>(mode & 07777);
    if (m_pending.path) {
        entry.path = *m_pending.path;
    } else {
        const std::string prefix = isPosixMagic(h) ? field(h, kPrefixOffset, kPrefixSize) : std::string();
        entry.path = prefix.empty() ? rawName : prefix + "/" + rawName;
    }
    // Old tars mark directories as regular files whose name ends with '/'.
    if (entry.type == TarEntryType::Regular && entry.path.ends_with('/'))
        entry.type = TarEntryType::Directory;
    if (entry.type == TarEntryType::Symlink || entry.type == TarEntryType::Hardlink)
        entry.linkTarget = m_pending.linkTarget ? *m_pending.linkTarget : field(h, kLinkOffset, kLinkSize);
    const std::uint64_t dataSize = m_pending.size ? *m_pending.size : size;
    const bool regular = entry.type == TarEntryType::Regular;
    entry.size = regular ? dataSize : 0;
    m_dataLeft = entry.size;
    m_paddingLeft = (regular ? 0 : dataSize) + (512 - dataSize % 512) % 512;
    m_currentPath = entry.path;
    m_pending = Pending{};
    return entry;
}

Result<std::optional<TarEntry>> TarReader::next() {
    if (m_ended)
        return std::optional<TarEntry>{};
    if (auto skipped = skipRest(); !skipped)
        return skipped.error();
    for (;;) {
        Block block{};
        const std::uint64_t at = m_offset;
        if (auto read = readBlock(block, !m_sawHeader); !read)
            return read.error();
        m_sawHeader = true;
        const char* h = block.data();
        if (std::all_of(block.begin(), block.end(), [](char c) { return c == '\0'; })) {
            if (m_pending.any)
                return malformed(at, m_currentPath,
                                 "the archive ends after an extended header, before its entry");
            m_ended = true; // a second zero block may follow; nothing after the first is read
            return std::optional<TarEntry>{};
        }
        const std::string rawName = field(h, kNameOffset, kNameSize);
        if (!isPosixMagic(h) && !isGnuMagic(h))
            return malformed(at, rawName, "the header has no ustar magic");
        if (!checksumMatches(h))
            return malformed(at, rawName, "the header's checksum does not match");
        const auto size = parseNumber(h, kSizeOffset, kSizeSize);
        const auto mode = parseNumber(h, kModeOffset, kModeSize);
        if (!size || !mode)
            return malformed(at, rawName, "the header's size or mode is not a number");
        if (!m_pending.any)
            m_pending.offset = at;
        const char flag = h[kTypeOffset];
        if (flag != 'L' && flag != 'K' && flag != 'x' && flag != 'g')
            return std::optional<TarEntry>(startEntry(block, rawName, *size, *mode));
        if (auto extended = readExtended(flag, *size, rawName); !extended)
            return extended.error();
    }
}

} // namespace warren::tar
