// Feeds arbitrary bytes, as an upload body, through TarReader (read in pieces whose size the first byte
// picks, so every field and block boundary gets split) and UploadPolicy. Nothing may crash or trip a
// sanitizer, and whatever the policy admits must be a path inside the tree: relative, without "..", empty
// or NUL components, a symlink's target relative and NUL-free, and a regular entry's data never more than
// its declared size.
// Built and run like fuzz_protocol_line (docs/PROTOCOL.md, "Fuzzing"), with its own seeds (plain tars from
// GNU tar in the gnu, pax and ustar formats, each after the byte that picks the piece size):
//   build-fuzz/tests/fuzz/fuzz_upload_tar -max_total_time=60 build-fuzz/corpus-upload-tar
//   tests/fuzz/corpus-upload-tar

#include "common/tar/TarReader.h"
#include "common/tar/UploadPolicy.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

using namespace warren::tar;

namespace {

class PieceSource final : public ByteSource {
public:
    PieceSource(std::string_view bytes, std::size_t piece) : m_bytes(bytes), m_piece(piece) {}
    warren::Result<std::size_t> read(char* buffer, std::size_t capacity) override {
        const std::size_t n = std::min({capacity, m_piece, m_bytes.size()});
        std::memcpy(buffer, m_bytes.data(), n);
        m_bytes.remove_prefix(n);
        return n;
    }

private:
    std::string_view m_bytes;
    std::size_t m_piece;
};

void require(bool condition) {
    if (!condition)
        __builtin_trap();
}

void requireInside(const std::string& path) {
    require(path.empty() || (path.front() != '/' && path.back() != '/'));
    require(path.find('\0') == std::string::npos);
    std::size_t start = 0;
    while (!path.empty() && start <= path.size()) {
        const std::size_t end = std::min(path.find('/', start), path.size());
        const std::string_view part(path.data() + start, end - start);
        require(!part.empty() && part != "." && part != "..");
        start = end + 1;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    const std::size_t piece = 1 + data[0] % 64 * 17;
    PieceSource source(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), piece);
    TarReader reader(source);
    UploadLimits limits;
    limits.maxEntries = 64;
    limits.maxTotalBytes = 1 << 20;
    UploadPolicy policy(limits);
    char buffer[700];
    for (;;) {
        auto entry = reader.next();
        if (!entry || !*entry)
            break;
        auto admitted = policy.admit(**entry);
        if (!admitted)
            break;
        requireInside(admitted->path);
        if (admitted->type == TarEntryType::Symlink)
            require(!admitted->linkTarget.empty() && admitted->linkTarget.front() != '/' &&
                    admitted->linkTarget.find('\0') == std::string::npos);
        std::uint64_t read = 0;
        for (;;) {
            auto n = reader.readData(buffer, sizeof buffer);
            if (!n || *n == 0)
                break;
            read += *n;
        }
        require(read <= admitted->size);
    }
    (void)policy.finish();
    return 0;
}
