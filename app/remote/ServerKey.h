#pragma once
// Where every face finds the server's API key: WARREN_REMOTE_KEY, else the SecretStore's kRemoteKeyName (the
// keychain, or the 0600 file). RemoteControlPlane opens with it; Settings store it (RemotePlaneChooser).

#include "common/Result.h"

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

} // namespace warren::remote
