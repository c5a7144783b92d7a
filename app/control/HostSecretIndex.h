#pragma once
// The desktop's list of its secrets bound to hosts (DESIGN §12): a keychain cannot be listed, so each
// binding (name, hosts, header, when it was set) is kept in the settings table ("secrets.hosts") while the
// value stays in the SecretStore alone. What the window's Secrets dialog and new-task bar, and `warren
// secrets list`, show.

#include "app/wire/HostSecretBody.h"
#include "common/Result.h"

#include <string>
#include <vector>

namespace warren::control {

class Store;

Result<std::vector<wire::HostSecretEntry>> loadHostSecretIndex(Store& store); // by name
// entry replaces the one of its name, or is added; removeHostSecretEntry drops it (none: nothing to do).
Status putHostSecretEntry(Store& store, const wire::HostSecretEntry& entry);
Status removeHostSecretEntry(Store& store, const std::string& name);

} // namespace warren::control
