#include "app/providers/ProviderCatalog.h"

#include <array>

namespace warren::control {

namespace {

// The local servers' addresses are each server's own default port on this computer.
constexpr std::array kKnownProviders{
    KnownProvider{"openai", "OpenAI", ProviderKind::OpenAi, "https://api.openai.com/v1", "openai"},
    KnownProvider{"anthropic", "Anthropic", ProviderKind::Anthropic, "https://api.anthropic.com",
                  "anthropic"},
    KnownProvider{"openrouter", "OpenRouter", ProviderKind::OpenAi, "https://openrouter.ai/api/v1",
                  "openrouter"},
    KnownProvider{"ollama", "Ollama (local)", ProviderKind::OpenAi, "http://127.0.0.1:11434/v1", ""},
    KnownProvider{"lmstudio", "LM Studio (local)", ProviderKind::OpenAi, "http://127.0.0.1:1234/v1", ""},
    KnownProvider{"vllm", "vLLM (local)", ProviderKind::OpenAi, "http://127.0.0.1:8000/v1", ""},
    KnownProvider{"llamacpp", "llama.cpp server (local)", ProviderKind::OpenAi, "http://127.0.0.1:8080/v1",
                  ""},
    KnownProvider{"openai-compatible:", "OpenAI-compatible server", ProviderKind::OpenAi,
                  "http://127.0.0.1:8080/v1", "openai-compatible"},
    KnownProvider{"anthropic:", "Anthropic-compatible server", ProviderKind::Anthropic,
                  "https://api.anthropic.com", "anthropic"},
};

} // namespace

std::span<const KnownProvider> knownProviders() {
    return kKnownProviders;
}

const KnownProvider* findProvider(std::string_view spec) {
    for (const KnownProvider& provider : kKnownProviders)
        if (provider.takesUrl() ? spec.starts_with(provider.spec) : spec == provider.spec)
            return &provider;
    return nullptr;
}

} // namespace warren::control
