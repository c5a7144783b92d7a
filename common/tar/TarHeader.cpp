#include "common/tar/TarHeader.h"

#include <algorithm>
#include <cstring>

namespace warren::tar {

namespace {

constexpr std::size_t kBlock = 512;
constexpr std::size_t kNameSize = 100, kLinkSize = 100;
constexpr std::uint64_t kMaxOctalSize = 077777777777; // 11 octal digits

// value as zero-padded octal in width - 1 digits and a NUL.
void putOctal(char* field, std::size_t width, std::uint64_t value) {
    for (std::size_t i = width - 1; i-- > 0; value >>= 3)
        field[i] = static_cast<char>('0' + (value & 7));
    field[width - 1] = '\0';
}

void putText(char* field, std::size_t width, const std::string& text) {
    std::memcpy(field, text.data(), std::min(width, text.size()));
}

// "LENGTH key=value\n", LENGTH counting the whole record, its own digits too.
std::string paxRecord(const std::string& key, const std::string& value) {
    const std::size_t body = key.size() + value.size() + 3; // ' ', '=', '\n'
    std::size_t length = body + 1;
    while (std::to_string(length).size() + body != length)
        length = std::to_string(length).size() + body;
    return std::to_string(length) + " " + key + "=" + value + "\n";
}

std::string ustarBlock(const std::string& name, char type, std::uint32_t mode, std::uint64_t size,
                       std::int64_t mtime, const std::string& linkTarget) {
    std::string block(kBlock, '\0');
    char* h = block.data();
    putText(h + 0, kNameSize, name);
    putOctal(h + 100, 8, mode & 07777);
    putOctal(h + 108, 8, 0); // uid
    putOctal(h + 116, 8, 0); // gid
    putOctal(h + 124, 12, std::min(size, kMaxOctalSize));
    putOctal(h + 136, 12, static_cast<std::uint64_t>(std::clamp<std::int64_t>(mtime, 0, kMaxOctalSize)));
    h[156] = type;
    putText(h + 157, kLinkSize, linkTarget);
    std::memcpy(h + 257,
                "ustar\0"
                "00",
                8);
    // The checksum is summed with its own field as spaces, then written as six digits, NUL, space.
    std::memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (const char c : block)
        sum += static_cast<unsigned char>(c);
    putOctal(h + 148, 7, sum);
    h[155] = ' ';
    return block;
}

} // namespace

std::uint64_t tarPadding(std::uint64_t size) {
    return (kBlock - size % kBlock) % kBlock;
}

std::string tarHeaders(const TarMember& member) {
    const std::string path = member.type == TarMember::Type::Directory ? member.path + "/" : member.path;
    const std::string& link = member.type == TarMember::Type::Symlink ? member.linkTarget : std::string();
    const std::uint64_t size = member.type == TarMember::Type::File ? member.size : 0;
    const char type = member.type == TarMember::Type::File        ? '0'
                      : member.type == TarMember::Type::Directory ? '5'
                                                                  : '2';
    std::string records;
    if (path.size() > kNameSize)
        records += paxRecord("path", path);
    if (link.size() > kLinkSize)
        records += paxRecord("linkpath", link);
    if (size > kMaxOctalSize)
        records += paxRecord("size", std::to_string(size));
    if (records.empty())
        return ustarBlock(path, type, member.mode, size, member.mtime, link);
    // The ustar header behind the pax one keeps what fits; a reader that knows pax takes the records.
    std::string headers =
        ustarBlock("PaxHeaders/" + path.substr(0, kNameSize - 11), 'x', 0644, records.size(), 0, {});
    headers += records;
    headers.append(tarPadding(records.size()), '\0');
    headers += ustarBlock(path.substr(0, kNameSize), type, member.mode, size, member.mtime,
                          link.substr(0, kLinkSize));
    return headers;
}

} // namespace warren::tar
