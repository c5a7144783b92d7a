#pragma once
// The model providers Warren knows: each by its `--provider` name with the address it is reached at, and
// the two forms that take a server's URL. One table, read by parseProviderSpec (what a task connects to)
// and by the faces' lists (Settings shows each provider's real address from it). Pure, no Qt.

#include <span>
#include <string_view>

namespace warren::control {

enum class ProviderKind { OpenAi, Anthropic, Scripted };

struct KnownProvider {
    std::string_view spec;    // "openai"; a form that takes a URL ends with ':' ("openai-compatible:")
    std::string_view label;   // what a face lists it as: "OpenAI", "Ollama (local)"
    ProviderKind kind;        // the API it speaks
    std::string_view baseUrl; // where a named provider is reached; for a URL form, an example of one
    std::string_view keyName; // the SecretStore entry of its key; empty: a local server, no key

    bool takesUrl() const { return spec.ends_with(':'); }
    bool needsKey() const { return !keyName.empty(); }
};

// Every known provider, named ones first, in the order a face lists them.
std::span<const KnownProvider> knownProviders();

// The entry a `--provider` value belongs to: its name, or a URL form's prefix followed by anything
// ("openai-compatible:" and "openai-compatible:http://host/v1" alike); null for any other (scripted:FILE).
const KnownProvider* findProvider(std::string_view spec);

} // namespace warren::control
