#pragma once
// Builds tar archives in memory for the upload tests, hostile ones included: any name, type, link target,
// declared size (more than the data given), a wrong checksum, GNU long names, pax records. Just enough of
// ustar to say exactly which bytes a test sends.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warren::tar::test {

struct TarHeader {
    std::string name;
    char type = '0';
    std::uint32_t mode = 0644;
    std::string link;
    std::string prefix;                        // ustar prefix field
    std::optional<std::uint64_t> declaredSize; // default: the data's size
    bool gnuMagic = false;
    bool badChecksum = false;
    bool noMagic = false;

    // Chained setters: designated initializers that leave fields out trip -Wmissing-field-initializers.
    static TarHeader named(std::string name) {
        TarHeader header;
        header.name = std::move(name);
        return header;
    }
    TarHeader& typed(char t) {
        type = t;
        return *this;
    }
    TarHeader& withMode(std::uint32_t m) {
        mode = m;
        return *this;
    }
    TarHeader& linkingTo(std::string target) {
        link = std::move(target);
        return *this;
    }
    TarHeader& withPrefix(std::string p) {
        prefix = std::move(p);
        return *this;
    }
    TarHeader& declaring(std::uint64_t size) {
        declaredSize = size;
        return *this;
    }
    TarHeader& gnu() {
        gnuMagic = true;
        return *this;
    }
    TarHeader& corruptChecksum() {
        badChecksum = true;
        return *this;
    }
    TarHeader& withoutMagic() {
        noMagic = true;
        return *this;
    }
};

class TarBuilder {
public:
    TarBuilder& entry(const TarHeader& header, const std::string& data = {}) {
        const std::uint64_t size = header.declaredSize ? *header.declaredSize : data.size();
        char block[512] = {};
        put(block, 0, 100, header.name);
        octal(block, 100, 8, header.mode);
        octal(block, 108, 8, 1000);
        octal(block, 116, 8, 1000);
        octal(block, 124, 12, size);
        octal(block, 136, 12, 1700000000);
        block[156] = header.type;
        put(block, 157, 100, header.link);
        if (!header.noMagic)
            std::memcpy(block + 257,
                        header.gnuMagic ? "ustar  \0"
                                        : "ustar\0"
                                          "00",
                        8);
        put(block, 345, 155, header.prefix);
        std::memset(block + 148, ' ', 8);
        unsigned sum = 0;
        for (const char c : block)
            sum += static_cast<unsigned char>(c);
        if (header.badChecksum)
            sum += 1;
        std::snprintf(block + 148, 8, "%06o", sum);
        m_bytes.append(block, sizeof block);
        m_bytes += data;
        if (data.size() % 512)
            m_bytes.append(512 - data.size() % 512, '\0');
        return *this;
    }
    TarBuilder& file(const std::string& name, const std::string& data, std::uint32_t mode = 0644) {
        return entry(TarHeader::named(name).typed('0').withMode(mode), data);
    }
    TarBuilder& directory(const std::string& name, std::uint32_t mode = 0755) {
        return entry(TarHeader::named(name).typed('5').withMode(mode));
    }
    TarBuilder& symlink(const std::string& name, const std::string& target) {
        return entry(TarHeader::named(name).typed('2').withMode(0777).linkingTo(target));
    }
    // A GNU 'L' (or 'K' for a link target) record for the next entry.
    TarBuilder& gnuLong(char type, const std::string& value) {
        return entry(TarHeader::named("././@LongLink").typed(type).gnu(), value + std::string(1, '\0'));
    }
    // A pax 'x' header for the next entry, records as key/value pairs.
    TarBuilder& pax(const std::vector<std::pair<std::string, std::string>>& records) {
        std::string data;
        for (const auto& [key, value] : records)
            data += paxRecord(key, value);
        return entry(TarHeader::named("PaxHeaders/x").typed('x'), data);
    }
    TarBuilder& raw(const std::string& bytes) {
        m_bytes += bytes;
        return *this;
    }
    std::string finish() const { return m_bytes + std::string(1024, '\0'); }
    std::string unfinished() const { return m_bytes; }

    static std::string paxRecord(const std::string& key, const std::string& value) {
        const std::string body = " " + key + "=" + value + "\n";
        std::size_t length = body.size() + 1;
        while (std::to_string(length).size() + body.size() != length)
            ++length;
        return std::to_string(length) + body;
    }

private:
    static void put(char* block, std::size_t offset, std::size_t size, const std::string& value) {
        std::memcpy(block + offset, value.data(), std::min(size, value.size()));
    }
    // Octal where it fits, else GNU base-256 (0x80, then the value big-endian).
    static void octal(char* block, std::size_t offset, std::size_t size, std::uint64_t value) {
        if (value >> (3 * (size - 1))) {
            std::memset(block + offset, 0, size);
            block[offset] = static_cast<char>(0x80);
            for (std::size_t i = size - 1; i > 0 && value; --i, value >>= 8)
                block[offset + i] = static_cast<char>(value & 0xff);
            return;
        }
        std::snprintf(block + offset, size, "%0*llo", static_cast<int>(size - 1),
                      static_cast<unsigned long long>(value));
    }

    std::string m_bytes;
};

// An archive of many one-byte files, filesEach to a directory ("d0/f0", ...): mostly metadata, the upload
// that costs a server the most work for its size (the stall attacks and their benchmark).
inline std::string smallFilesArchive(int directories, int filesEach) {
    TarBuilder tar;
    for (int d = 0; d < directories; ++d)
        for (int f = 0; f < filesEach; ++f)
            tar.file("d" + std::to_string(d) + "/f" + std::to_string(f), "x");
    return tar.finish();
}

} // namespace warren::tar::test
