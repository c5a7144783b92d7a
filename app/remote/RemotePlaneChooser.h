#pragma once
// The PlaneChooser the desktop is given: the choice in the data directory (PlaneChoice), the server's API
// key in the SecretStore as kRemoteKeyName (the keychain, or the 0600 file with its warning), and Test
// connection as ServerProbe's two requests.

#include "app/control/PlaneChooser.h"

#include <memory>
#include <string>

namespace warren::control {
class SecretStore;
}

namespace warren::remote {

// The name the server's API key is kept under in the SecretStore (`warren secrets set remote`).
inline constexpr const char* kRemoteKeyName = "remote";

// The server's API key as every face finds it: WARREN_REMOTE_KEY, else the one stored as kRemoteKeyName;
// empty when there is neither.
Result<std::string> storedServerKey(control::SecretStore& secrets);

class RemotePlaneChooser : public control::PlaneChooser {
public:
    // useKeychain false: the 0600 file only (tests).
    RemotePlaneChooser(std::string dataDir, bool useKeychain = true);
    ~RemotePlaneChooser() override;

    Result<control::PlaneChoice> current() override;
    void test(const std::string& url, const std::string& key, QObject* context,
              control::Done<control::ServerAccount> done) override;
    Status save(const control::PlaneChoice& choice, const std::string& key) override;
    Result<bool> hasKey() override;
    std::string keyStorageWarning() override;

private:
    control::SecretStore& secrets(); // opened on first use: probing the keychain takes a moment

    std::string m_dataDir;
    bool m_useKeychain;
    std::unique_ptr<control::SecretStore> m_secrets;
};

} // namespace warren::remote
