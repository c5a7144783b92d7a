#pragma once
// Where an upload's bytes come from, read in pieces: the HTTP edge streams a body to a file, which may be
// hundreds of MB, so nothing here holds a body whole. FdByteSource reads a descriptor; StringByteSource
// reads bytes already in memory (tests, small bodies).

#include "common/Result.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <unistd.h>

namespace warren::tar {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Up to capacity bytes into buffer; 0 only at the end of the stream.
    virtual Result<std::size_t> read(char* buffer, std::size_t capacity) = 0;
};

class FdByteSource final : public ByteSource {
public:
    explicit FdByteSource(int fd) : m_fd(fd) {}
    Result<std::size_t> read(char* buffer, std::size_t capacity) override {
        for (;;) {
            const ssize_t n = ::read(m_fd, buffer, capacity);
            if (n >= 0)
                return static_cast<std::size_t>(n);
            if (errno != EINTR)
                return makeError(ErrorCode::System,
                                 std::string("cannot read the upload: ") + std::strerror(errno));
        }
    }

private:
    int m_fd;
};

class StringByteSource final : public ByteSource {
public:
    explicit StringByteSource(std::string_view bytes) : m_bytes(bytes) {}
    Result<std::size_t> read(char* buffer, std::size_t capacity) override {
        const std::size_t n = std::min(capacity, m_bytes.size());
        std::memcpy(buffer, m_bytes.data(), n);
        m_bytes.remove_prefix(n);
        return n;
    }

private:
    std::string_view m_bytes;
};

} // namespace warren::tar
