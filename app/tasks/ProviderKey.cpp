#include "app/tasks/ProviderKey.h"

#include "app/secrets/SecretStore.h"

#include <cctype>
#include <cstdlib>

namespace warren::control {

std::string keyEnvironmentVariable(const std::string& keyName) {
    std::string name;
    for (char c : keyName)
        name += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : '_';
    if (name == "OPENAI" || name == "ANTHROPIC" || name == "OPENROUTER")
        return name + "_API_KEY";
    return "WARREN_" + name + "_API_KEY";
}

Result<std::string> lookUpKey(const ProviderConfig& config, SecretStore* secrets) {
    if (config.keyName.empty())
        return std::string();
    if (secrets) {
        auto stored = secrets->read(config.keyName);
        if (stored && *stored && !(*stored)->empty())
            return **stored;
    }
    const std::string variable = keyEnvironmentVariable(config.keyName);
    if (const char* value = std::getenv(variable.c_str()); value && *value)
        return std::string(value);
    return makeError(ErrorCode::NotFound, "no API key for " + config.name + ": store one with `warren secrets set " +
                                              config.keyName + "` (it reads the key from stdin) or set " +
                                              variable);
}

} // namespace warren::control
