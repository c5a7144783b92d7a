#pragma once
// How to reach a model: which protocol, where, which model. Parsed from `--provider`/`--model` and the
// settings; the key itself is looked up in the SecretStore under keyName just before use and is never
// part of anything stored or shown.

#include "app/egress/InsideDestinations.h"
#include "app/providers/ProviderCatalog.h"
#include "common/Result.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warren::control {

struct ProviderConfig {
    using Kind = ProviderKind;
    Kind kind = Kind::Scripted;
    std::string name;        // what the user calls it: "openai", "anthropic", "ollama", "scripted"
    std::string baseUrl;     // OpenAI: ".../v1" (POST {baseUrl}/chat/completions); Anthropic: "https://api.anthropic.com" (POST {baseUrl}/v1/messages)
    std::string model;       // required for OpenAi and Anthropic
    std::string scriptPath;  // Scripted: the script file
    std::string keyName;     // SecretStore entry; empty: no key (local servers)
    std::string apiKey;      // filled at launch from the SecretStore; never serialized
    // Set at launch on warrend for an endpoint a user named: the call connects only to an address its host
    // resolves to outside the server's host and networks (or one the operator allows), checked when it
    // connects, and follows no redirect. nullopt: wherever baseUrl points (the desktop; the operator's own).
    std::optional<InsideAccess> access;
    // The output token limit of a reply when the task sets none (max_output_tokens): defaultOutputLimit()
    // for the provider and model; 0 sends none (Anthropic, which requires one, then asks for 4096).
    std::uint64_t maxTokens = 0;
    int maxRetries = 4;                       // on 429, 5xx and dropped connections
    std::chrono::milliseconds retryBaseDelay{500}; // doubled per attempt, unless Retry-After says otherwise
    std::chrono::milliseconds maxRetryDelay{30000};
    std::chrono::milliseconds requestTimeout{120000}; // no byte for this long: the call fails
};

const char* providerKindName(ProviderConfig::Kind kind); // "openai", "anthropic", "scripted"

// `--provider` values: "scripted:FILE", or one of knownProviders() (ProviderCatalog.h): a name ("openai",
// "ollama", ...) gets its address and key name from there, a URL form ("openai-compatible:URL",
// "anthropic:URL") the URL after the colon; model comes from `--model`. An unknown name is an error listing
// the known ones.
Result<ProviderConfig> parseProviderSpec(const std::string& spec, const std::string& model);

// Every keyName a spec above can give, once each: "anthropic", "openai", "openai-compatible", "openrouter".
std::vector<std::string> providerKeyNames();

} // namespace warren::control
