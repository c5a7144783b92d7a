#include "common/FileText.h"

#include "common/UniqueFd.h"
#include "common/WriteAll.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace warren {

namespace {

// What a user can do about the errors that are not bugs.
std::string hintFor(int error) {
    switch (error) {
    case ENOSPC:
    case EDQUOT:
        return " (the disk is full: free some space)";
    case EFBIG:
        return " (the file size limit is reached: raise it with ulimit -f)";
    case EROFS:
        return " (the file system is read-only: mount it read-write)";
    case EACCES:
    case EPERM:
        return " (permission denied: make the directory writable for this user)";
    default:
        return "";
    }
}

} // namespace

Error fileError(const std::string& what, int error) {
    return makeError(error == ENOENT ? ErrorCode::NotFound : ErrorCode::System,
                     what + ": " + std::strerror(error) + hintFor(error));
}

Result<std::string> readFileText(const std::filesystem::path& path) {
    const UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file.valid())
        return fileError("cannot open " + path.string(), errno);
    std::string content;
    char buffer[65536];
    for (;;) {
        const ssize_t got = ::read(file.get(), buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return fileError("cannot read " + path.string(), errno);
        if (got == 0)
            break;
        content.append(buffer, static_cast<std::size_t>(got));
    }
    return content;
}

Result<PrivateFile> openPrivateFile(const std::filesystem::path& path) {
    PrivateFile file{UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)), 0};
    if (!file.fd.valid())
        return makeError(ErrorCode::InvalidArgument, std::string("cannot open it (") + std::strerror(errno) + ")");
    struct stat info {};
    if (::fstat(file.fd.get(), &info) != 0)
        return makeError(ErrorCode::InvalidArgument, std::string("cannot read its mode (") + std::strerror(errno) + ")");
    if (!S_ISREG(info.st_mode))
        return makeError(ErrorCode::InvalidArgument, "not a regular file");
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        return makeError(ErrorCode::InvalidArgument, "group or others may read or write it (run chmod 600 on it)");
    file.size = static_cast<std::uint64_t>(info.st_size);
    return file;
}

Status writeFileText(const std::filesystem::path& path, std::string_view text, mode_t mode) {
    const UniqueFd file(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
    if (!file.valid())
        return fileError("cannot write " + path.string(), errno);
    if (::fchmod(file.get(), mode) != 0 || !writeAll(file.get(), text))
        return fileError("cannot write " + path.string(), errno);
    return Ok{};
}

} // namespace warren
