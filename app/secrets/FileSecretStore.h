#pragma once
// API keys in dataDir/secrets.json, readable only by the user, for machines where no OS keychain answers.
// The file is written whole (temp file created 0600, fsync, rename) and refused when anyone else could
// read it or it belongs to another user.

#include "app/secrets/SecretStore.h"

#include <map>

namespace warren::control {

class FileSecretStore final : public SecretStore {
public:
    explicit FileSecretStore(std::string dataDir);

    Backend backend() const override { return Backend::File; }
    Result<std::optional<std::string>> read(const std::string& name) override;
    Status write(const std::string& name, const std::string& secret) override;
    Status remove(const std::string& name) override;
    std::string warning() const override;

    const std::string& path() const { return m_path; }

private:
    // Every secret in the file; none when the file does not exist yet.
    Result<std::map<std::string, std::string>> load() const;
    Status save(const std::map<std::string, std::string>& secrets) const;

    std::string m_dataDir;
    std::string m_path;
};

} // namespace warren::control
