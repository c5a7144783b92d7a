#pragma once
// API keys in the OS keychain (Secret Service: gnome-keyring, KWallet) through qtkeychain. Each job runs to
// completion in a local event loop bounded by a timeout, so a keychain that never answers is an error, not
// a hang. Needs a QCoreApplication.

#include "app/secrets/SecretStore.h"

#include <chrono>

namespace warren::control {

class KeychainSecretStore final : public SecretStore {
public:
    static constexpr std::chrono::milliseconds kJobTimeout{5000};

    explicit KeychainSecretStore(std::string service);

    // Writes, reads back and deletes a probe entry: whether a keychain answers and keeps what it is given.
    Status probe();

    Backend backend() const override { return Backend::Keychain; }
    Result<std::optional<std::string>> read(const std::string& name) override;
    Status write(const std::string& name, const std::string& secret) override;
    Status remove(const std::string& name) override;
    std::string warning() const override { return {}; }

private:
    std::string m_service;
};

} // namespace warren::control
