#pragma once
// API keys. The OS keychain (Secret Service through qtkeychain) when one answers; otherwise a file only
// the user can read (0600, in the data directory), and warning() says so, so every face of Warren can show
// it. Keys are read just before a provider needs them and are never written anywhere else.

#include "common/Result.h"

#include <memory>
#include <optional>
#include <string>

namespace warren::control {

class SecretStore {
public:
    enum class Backend { Keychain, File };

    // Probes the keychain (a bounded wait); falls back to dataDir/secrets.json. service names the
    // keychain entries ("warren").
    static std::unique_ptr<SecretStore> open(const std::string& dataDir, const std::string& service = "warren");
    // Tests: force one backend.
    static std::unique_ptr<SecretStore> openFile(const std::string& dataDir);
    static Result<std::unique_ptr<SecretStore>> openKeychain(const std::string& service);

    virtual ~SecretStore() = default;
    virtual Backend backend() const = 0;
    virtual Result<std::optional<std::string>> read(const std::string& name) = 0;
    virtual Status write(const std::string& name, const std::string& secret) = 0;
    virtual Status remove(const std::string& name) = 0;
    // Empty with the keychain; with the file backend, what the user should know and do.
    virtual std::string warning() const = 0;
};

} // namespace warren::control
