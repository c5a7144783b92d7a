#include "app/providers/ProviderConfig.h"

#include "app/providers/ProviderChoice.h"
#include "app/providers/RequestDialect.h"

#include <algorithm>

namespace warren::control {

namespace {

// The forms a --provider value takes, for an error: "scripted:FILE, openai, ..., openai-compatible:URL,
// anthropic:URL".
std::string specForms() {
    std::string forms = "scripted:FILE";
    for (const KnownProvider& provider : knownProviders())
        forms += ", " + std::string(provider.spec) + (provider.takesUrl() ? "URL" : "");
    return forms;
}

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
    for (const KnownProvider& provider : knownProviders())
        names.emplace_back(provider.keyName);
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

    const KnownProvider* known = findProvider(spec);
    if (!known)
        return usage("unknown provider \"" + spec + "\": use one of " + specForms());
    config.kind = known->kind;
    config.keyName = known->keyName;
    if (known->takesUrl()) {
        const std::string prefix(known->spec);
        const std::string url = withoutTrailingSlash(spec.substr(prefix.size()));
        if (!isHttpUrl(url))
            return usage("--provider " + prefix +
                         "URL needs an http:// or https:// URL after the colon, got \"" +
                         spec.substr(prefix.size()) + "\"");
        config.name = prefix.substr(0, prefix.size() - 1);
        config.baseUrl = url;
    } else {
        config.name = known->spec;
        config.baseUrl = known->baseUrl;
    }
    if (model.empty())
        return usage("the " + config.name + " provider needs a model: pass --model NAME");
    config.model = model;
    config.maxTokens = defaultOutputLimit(config.name, model);
    return config;
}

} // namespace warren::control
