#include "app/providers/ProviderConfig.h"

#include "app/providers/ProviderChoice.h"
#include "app/providers/RequestDialect.h"

#include <algorithm>
#include <array>

namespace warren::control {

namespace {

struct KnownProvider {
    const char* name;
    ProviderConfig::Kind kind;
    const char* baseUrl;
    const char* keyName; // empty: a local server without a key
};

constexpr std::array kKnownProviders{
    KnownProvider{"openai", ProviderConfig::Kind::OpenAi, "https://api.openai.com/v1", "openai"},
    KnownProvider{"anthropic", ProviderConfig::Kind::Anthropic, "https://api.anthropic.com", "anthropic"},
    KnownProvider{"ollama", ProviderConfig::Kind::OpenAi, "http://127.0.0.1:11434/v1", ""},
    KnownProvider{"lmstudio", ProviderConfig::Kind::OpenAi, "http://127.0.0.1:1234/v1", ""},
    KnownProvider{"vllm", ProviderConfig::Kind::OpenAi, "http://127.0.0.1:8000/v1", ""},
    KnownProvider{"llamacpp", ProviderConfig::Kind::OpenAi, "http://127.0.0.1:8080/v1", ""},
    KnownProvider{"openrouter", ProviderConfig::Kind::OpenAi, "https://openrouter.ai/api/v1", "openrouter"},
};

const char* const kSpecForms = "scripted:FILE, openai, anthropic, ollama, lmstudio, vllm, llamacpp, openrouter, "
                               "openai-compatible:URL or anthropic:URL";

Error usage(const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, message);
}

bool isHttpUrl(const std::string& url) {
    return (url.starts_with("http://") && url.size() > 7) || (url.starts_with("https://") && url.size() > 8);
}

// The URL as the user wrote it, less a trailing slash: the request paths are appended to it.
std::string withoutTrailingSlash(std::string url) {
    while (url.ends_with('/'))
        url.pop_back();
    return url;
}

} // namespace

const char* providerKindName(ProviderConfig::Kind kind) {
    switch (kind) {
    case ProviderConfig::Kind::OpenAi:
        return "openai";
    case ProviderConfig::Kind::Anthropic:
        return "anthropic";
    case ProviderConfig::Kind::Scripted:
        return "scripted";
    }
    return "unknown";
}

std::vector<std::string> providerKeyNames() {
    std::vector<std::string> names;
    for (const KnownProvider& provider : kKnownProviders)
        names.emplace_back(provider.keyName);
    names.emplace_back("openai-compatible"); // openai-compatible:URL; anthropic:URL uses "anthropic"'s
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    names.erase(std::remove(names.begin(), names.end(), std::string()), names.end());
    return names;
}

Result<ProviderConfig> parseProviderSpec(const std::string& spec, const std::string& model) {
    ProviderConfig config;
    if (const auto choice = ProviderChoice::parse(spec); choice.isScripted()) {
        config.kind = ProviderConfig::Kind::Scripted;
        config.name = ProviderChoice::kScriptedName;
        config.scriptPath = choice.scriptFile();
        if (config.scriptPath.empty())
            return usage("--provider scripted:FILE needs the script file after the colon");
        config.model = model; // ignored by the scripted model; kept so the task shows what was asked
        return config;
    }

    bool known = false;
    for (const KnownProvider& provider : kKnownProviders) {
        if (spec == provider.name) {
            config.kind = provider.kind;
            config.name = provider.name;
            config.baseUrl = provider.baseUrl;
            config.keyName = provider.keyName;
            known = true;
            break;
        }
    }
    if (!known) {
        for (const auto& [prefix, kind] : {std::pair{std::string("openai-compatible:"), ProviderConfig::Kind::OpenAi},
                                           std::pair{std::string("anthropic:"), ProviderConfig::Kind::Anthropic}}) {
            if (!spec.starts_with(prefix))
                continue;
            const std::string url = withoutTrailingSlash(spec.substr(prefix.size()));
            if (!isHttpUrl(url))
                return usage("--provider " + prefix + "URL needs an http:// or https:// URL after the colon, got \"" +
                             spec.substr(prefix.size()) + "\"");
            config.kind = kind;
            config.name = prefix.substr(0, prefix.size() - 1);
            config.baseUrl = url;
            config.keyName = config.name;
            known = true;
        }
    }
    if (!known)
        return usage("unknown provider \"" + spec + "\": use one of " + kSpecForms);
    if (model.empty())
        return usage("the " + config.name + " provider needs a model: pass --model NAME");
    config.model = model;
    config.maxTokens = defaultOutputLimit(config.name, model);
    return config;
}

} // namespace warren::control
