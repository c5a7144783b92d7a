#include "server/accounts/ProviderKeySecret.h"

#include "common/UniqueFd.h"
#include "server/accounts/SealedSecret.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::accounts {

namespace {

Error refuse(const std::string& path, const std::string& problem) {
    return makeError(ErrorCode::InvalidArgument, "--provider-key-secret " + path + ": " + problem +
                                                     "; make one with `(umask 077 && openssl rand -out " +
                                                     path + " " + std::to_string(kSealKeyBytes) +
                                                     ")`, readable by warrend's user only");
}

} // namespace

Result<std::string> readProviderKeySecret(const std::string& path) {
    // The checks are of the opened file (fstat): through a symbolic link, of its target.
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid())
        return refuse(path, std::string("cannot open it (") + std::strerror(errno) + ")");
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0)
        return refuse(path, std::string("cannot read its mode (") + std::strerror(errno) + ")");
    if (!S_ISREG(info.st_mode))
        return refuse(path, "not a regular file");
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        return refuse(path, "group or others may read or write it (run chmod 600 on it)");
    if (static_cast<std::size_t>(info.st_size) != kSealKeyBytes)
        return refuse(path, "it holds " + std::to_string(info.st_size) + " bytes, not " +
                                std::to_string(kSealKeyBytes));
    std::string secret(kSealKeyBytes, '\0');
    if (::read(fd.get(), secret.data(), secret.size()) != static_cast<ssize_t>(secret.size()))
        return refuse(path, "cannot read it whole");
    return secret;
}

} // namespace warren::accounts
