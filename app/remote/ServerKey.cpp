#include "app/remote/ServerKey.h"

#include "app/secrets/SecretStore.h"

#include <cstdlib>

namespace warren::remote {

Result<std::string> storedServerKey(control::SecretStore& secrets) {
    if (const char* fromEnvironment = std::getenv("WARREN_REMOTE_KEY"); fromEnvironment && *fromEnvironment)
        return std::string(fromEnvironment);
    auto stored = secrets.read(kRemoteKeyName);
    if (!stored)
        return stored.error();
    return stored->value_or(std::string());
}

} // namespace warren::remote
