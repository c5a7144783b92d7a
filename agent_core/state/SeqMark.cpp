#include "agent_core/state/SeqMark.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <utility>

namespace warren::agent {

namespace {

constexpr std::size_t kSize = 8;

// Little-endian on disk, whatever the host: the state directory may move between machines.
std::array<unsigned char, kSize> encode(std::uint64_t value) {
    std::array<unsigned char, kSize> bytes{};
    for (std::size_t i = 0; i < kSize; ++i)
        bytes[i] = static_cast<unsigned char>(value >> (8 * i));
    return bytes;
}

std::uint64_t decode(const std::array<unsigned char, kSize>& bytes) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < kSize; ++i)
        value |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
    return value;
}

Error fileError(const std::filesystem::path& file, const char* what, int error) {
    return makeError(ErrorCode::System,
                     "seq mark " + file.string() + ": " + what + ": " + std::strerror(error));
}

} // namespace

Result<SeqMark> SeqMark::open(const std::filesystem::path& stateDir) {
    const auto file = stateDir / "seq";
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return fileError(file, "cannot open", errno);
    SeqMark mark(fd, 0);

    std::array<unsigned char, kSize> bytes{};
    ssize_t got = -1;
    do
        got = ::pread(fd, bytes.data(), kSize, 0);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return fileError(file, "cannot read", errno);
    if (got != 0 && got != static_cast<ssize_t>(kSize))
        return makeError(
            ErrorCode::InvalidArgument,
            "seq mark " + file.string() + " is corrupt (" + std::to_string(got) +
                " bytes, expected 8); move it away together with checkpoint.json to start fresh");
    if (got == static_cast<ssize_t>(kSize))
        mark.m_last = decode(bytes);

    // Allocate the block now, so that record() later only overwrites it.
    const auto initial = encode(mark.m_last);
    if (::pwrite(fd, initial.data(), kSize, 0) != static_cast<ssize_t>(kSize))
        return fileError(file, "cannot write", errno);
    return mark;
}

SeqMark::SeqMark(SeqMark&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)), m_last(other.m_last) {}

SeqMark& SeqMark::operator=(SeqMark&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
        m_last = other.m_last;
    }
    return *this;
}

SeqMark::~SeqMark() {
    if (m_fd >= 0)
        ::close(m_fd);
}

void SeqMark::record(std::uint64_t seq) {
    const auto bytes = encode(seq);
    while (::pwrite(m_fd, bytes.data(), kSize, 0) < 0 && errno == EINTR) {
    }
}

} // namespace warren::agent
