#include "app/secrets/SecretStore.h"

#include "app/secrets/FileSecretStore.h"
#include "app/secrets/KeychainSecretStore.h"

namespace warren::control {

std::unique_ptr<SecretStore> SecretStore::open(const std::string& dataDir, const std::string& service) {
    if (auto keychain = openKeychain(service))
        return std::move(keychain.value());
    return openFile(dataDir);
}

std::unique_ptr<SecretStore> SecretStore::openFile(const std::string& dataDir) {
    return std::make_unique<FileSecretStore>(dataDir);
}

Result<std::unique_ptr<SecretStore>> SecretStore::openKeychain(const std::string& service) {
    auto keychain = std::make_unique<KeychainSecretStore>(service);
    if (auto probed = keychain->probe(); !probed)
        return probed.error();
    return std::unique_ptr<SecretStore>(std::move(keychain));
}

} // namespace warren::control
