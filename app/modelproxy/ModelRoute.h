#pragma once
// Which requests the model proxy takes, and where each goes: only the routes the CLIs need. Claude Code
// (Anthropic's Messages) probes with HEAD / and calls /v1/messages and /v1/messages/count_tokens; Codex
// (OpenAI's Responses, or Chat Completions) is given http://127.0.0.1:PORT/v1 as its base URL and calls
// /v1/responses or /v1/chat/completions. Everything else is refused here and never reaches the provider,
// so a token only ever buys a model call. Pure.

#include "app/providers/ProviderConfig.h"

#include <string>
#include <string_view>

namespace warren::control {

struct ModelRoute {
    enum class Action {
        Probe,   // HEAD / or GET /: answered 200 by the proxy itself
        Forward, // to upstreamUrl
        Refuse,  // 404: not a route of this wire format
    };
    Action action = Action::Refuse;
    // Forward: the whole URL, the query string kept ("https://api.anthropic.com/v1/messages?beta=true").
    std::string upstreamUrl;
    // Forward: a call that makes the model answer (not count_tokens), which the admission decides on.
    bool modelCall = false;
};

// baseUrl as ProviderConfig holds it: Anthropic "https://api.anthropic.com" (POST {baseUrl}/v1/messages);
// OpenAI ".../v1" (POST {baseUrl}/responses). query: without its '?'; hasQuery: the target had one.
ModelRoute routeModelRequest(ProviderConfig::Kind kind, const std::string& baseUrl, std::string_view method,
                             std::string_view path, bool hasQuery, std::string_view query);

} // namespace warren::control
