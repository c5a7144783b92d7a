#pragma once
// The PlaneChooser the desktop is given: the choice in the data directory (PlaneChoice), the server's API
// key in the SecretStore as kRemoteKeyName (the keychain, or the 0600 file with its warning), Test
// connection as ServerProbe's two requests, and a task's move as TaskMoves' steps between the window's
// plane and the other side's, opened on the same data directory for the move.

#include "app/control/PlaneChooser.h"
#include "app/remote/ServerKey.h"

#include <memory>
#include <string>

namespace warren::control {
class SecretStore;
}

namespace warren::remote {

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
    std::optional<control::MoveDestination> moveDestination(control::ControlPlane& current) override;
    void moveTask(control::ControlPlane& current, const std::string& taskId, QObject* context,
                  control::Done<control::TaskRecord> done) override;

private:
    control::SecretStore& secrets(); // opened on first use: probing the keychain takes a moment

    std::string m_dataDir;
    bool m_useKeychain;
    std::unique_ptr<control::SecretStore> m_secrets;
};

} // namespace warren::remote
