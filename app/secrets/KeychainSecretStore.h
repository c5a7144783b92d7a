#pragma once
// API keys in the OS keychain (Secret Service: gnome-keyring, KWallet) through qtkeychain. Each job runs on a
// keychain thread of its own while the caller waits, at most kJobTimeout, without an event loop: a keychain
// that never answers is an error, not a hang, and nothing of the caller's runs in the middle of the call.
// Needs a QCoreApplication.

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
