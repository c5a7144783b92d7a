#include "server/uploads/ArtifactFile.h"

#include "common/UniqueFd.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace warren::uploads {

namespace {

using Outcome = ArtifactRead::Outcome;

ArtifactRead problem(Outcome outcome, std::string message) {
    ArtifactRead read;
    read.outcome = outcome;
    read.message = std::move(message);
    return read;
}

const char* kindOf(mode_t mode) {
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

} // namespace

ArtifactRead readArtifact(const std::filesystem::path& outputDir, const std::string& name, std::size_t maxBytes) {
    const std::string quoted = "artifact \"" + name + "\"";
    const UniqueFd dir(::open(outputDir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.valid())
        return problem(Outcome::Missing, "the task left no output");
    open_how how{};
    // O_NONBLOCK: a FIFO opened for reading returns at once instead of waiting for a writer; it is never
    // read (fstat refuses it below). O_NOCTTY: a terminal device never becomes ours.
    how.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, dir.get(), name.c_str(), &how, sizeof how)));
    if (!fd.valid()) {
        if (errno == ENOENT || errno == ENOTDIR)
            return problem(Outcome::Missing, quoted + " is no longer in the task's output");
        if (errno == ELOOP)
            return problem(Outcome::NotRegular, quoted + " is (or goes through) a symbolic link; only regular "
                                                         "files are served");
        if (errno == ENXIO || errno == ENODEV) // a socket, or a device with no driver behind it
            return problem(Outcome::NotRegular, quoted + " is a socket or a device; only regular files are served");
        if (errno == EXDEV)
            return problem(Outcome::NotRegular, quoted + " leads out of the task's output; only files in it "
                                                         "are served");
        return problem(Outcome::Failed, quoted + " cannot be opened: " + std::strerror(errno));
    }
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0)
        return problem(Outcome::Failed, quoted + " cannot be examined: " + std::strerror(errno));
    if (!S_ISREG(status.st_mode))
        return problem(Outcome::NotRegular,
                       quoted + " is " + kindOf(status.st_mode) + "; only regular files are served");
    const auto tooLarge = [&] {
        return problem(Outcome::TooLarge, quoted + " is larger than the " + std::to_string(maxBytes) +
                                              " bytes this server serves");
    };
    if (static_cast<std::uint64_t>(status.st_size) > maxBytes)
        return tooLarge();
    // A regular file opened O_NONBLOCK reads as usual. It may grow while it is read: the cap holds anyway.
    ArtifactRead read;
    read.data.reserve(static_cast<std::size_t>(status.st_size));
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return problem(Outcome::Failed, quoted + " cannot be read: " + std::strerror(errno));
        if (n == 0)
            break;
        read.data.append(buffer, static_cast<std::size_t>(n));
        if (read.data.size() > maxBytes)
            return tooLarge();
    }
    read.outcome = Outcome::Read;
    return read;
}

} // namespace warren::uploads
