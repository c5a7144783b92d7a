#include "common/FileBeneath.h"

#include "common/UniqueFd.h"

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace warren {

namespace {

BeneathRead outcome(BeneathRead::Outcome kind, int error = 0, mode_t mode = 0) {
    BeneathRead read;
    read.outcome = kind;
    read.error = error;
    read.mode = mode;
    return read;
}

} // namespace

const char* fileKindName(mode_t mode) {
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "not a regular file";
}

BeneathRead readFileBeneath(const std::filesystem::path& dir, const std::string& name, std::size_t maxBytes) {
    using Outcome = BeneathRead::Outcome;
    const UniqueFd base(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!base.valid())
        return outcome(Outcome::Missing, errno);
    open_how how{};
    // O_NONBLOCK: a FIFO opened for reading returns at once instead of waiting for a writer; it is never
    // read (fstat refuses it below). O_NOCTTY: a terminal device never becomes ours.
    how.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, base.get(), name.c_str(), &how, sizeof how)));
    if (!fd.valid()) {
        const int error = errno;
        if (error == ENOENT || error == ENOTDIR)
            return outcome(Outcome::Missing, error);
        if (error == ELOOP || error == ENXIO || error == ENODEV) // a link on the way; a socket or a device
            return outcome(Outcome::NotRegular, error);
        if (error == EXDEV)
            return outcome(Outcome::Outside, error);
        return outcome(Outcome::Failed, error);
    }
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0)
        return outcome(Outcome::Failed, errno);
    if (!S_ISREG(status.st_mode))
        return outcome(Outcome::NotRegular, 0, status.st_mode);
    if (static_cast<std::uint64_t>(status.st_size) > maxBytes)
        return outcome(Outcome::TooLarge);
    // A regular file opened O_NONBLOCK reads as usual. It may grow while it is read: the cap holds anyway.
    BeneathRead read;
    read.data.reserve(static_cast<std::size_t>(status.st_size));
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return outcome(Outcome::Failed, errno);
        if (n == 0)
            break;
        read.data.append(buffer, static_cast<std::size_t>(n));
        if (read.data.size() > maxBytes)
            return outcome(Outcome::TooLarge);
    }
    read.outcome = Outcome::Read;
    return read;
}

} // namespace warren
