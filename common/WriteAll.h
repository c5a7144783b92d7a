#pragma once
// Writes all of bytes to fd, however the kernel splits it (pipes, signals). False with errno set when a
// write fails; the caller says what it was writing.

#include <cerrno>
#include <string_view>
#include <unistd.h>

namespace warren {

inline bool writeAll(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t written = ::write(fd, bytes.data(), bytes.size());
        if (written < 0 && errno == EINTR)
            continue;
        if (written < 0)
            return false;
        bytes.remove_prefix(static_cast<std::size_t>(written));
    }
    return true;
}

} // namespace warren
