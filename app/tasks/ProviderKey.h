#pragma once
// The API key a provider needs, looked up just before launch: the SecretStore entry named by the provider
// (`warren secrets set NAME`), else the environment variable users already have (OPENAI_API_KEY,
// ANTHROPIC_API_KEY, OPENROUTER_API_KEY, WARREN_<NAME>_API_KEY). The key stays in this process.

#include "app/providers/ProviderConfig.h"
#include "common/Result.h"

#include <string>

namespace warren::control {

class SecretStore;

// "" for a provider that needs no key; an error saying how to store one when it needs one and none is set.
Result<std::string> lookUpKey(const ProviderConfig& config, SecretStore* secrets);
std::string keyEnvironmentVariable(const std::string& keyName); // "openai" -> "OPENAI_API_KEY"

} // namespace warren::control
