#include "server/accounts/ProviderKeySecret.h"

#include "common/FileText.h"
#include "server/accounts/SealedSecret.h"

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
    auto file = openPrivateFile(path);
    if (!file)
        return refuse(path, file.error().message);
    if (file->size != kSealKeyBytes)
        return refuse(path, "it holds " + std::to_string(file->size) + " bytes, not " + std::to_string(kSealKeyBytes));
    std::string secret(kSealKeyBytes, '\0');
    if (::read(file->fd.get(), secret.data(), secret.size()) != static_cast<ssize_t>(secret.size()))
        return refuse(path, "cannot read it whole");
    return secret;
}

} // namespace warren::accounts
