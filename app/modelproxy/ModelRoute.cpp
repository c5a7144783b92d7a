#include "app/modelproxy/ModelRoute.h"

namespace warren::control {

ModelRoute routeModelRequest(ProviderConfig::Kind kind, const std::string& baseUrl, std::string_view method,
                             std::string_view path, bool hasQuery, std::string_view query) {
    ModelRoute route;
    if (path == "/" && (method == "HEAD" || method == "GET")) {
        route.action = ModelRoute::Action::Probe;
        return route;
    }
    if (method != "POST")
        return route;
    std::string_view upstreamPath;
    if (kind == ProviderConfig::Kind::Anthropic) {
        if (path == "/v1/messages" || path == "/v1/messages/count_tokens") {
            upstreamPath = path; // the base URL is the host; the path is the API's own
            route.modelCall = path == "/v1/messages";
        }
    } else if (kind == ProviderConfig::Kind::OpenAi) {
        if (path == "/v1/responses" || path == "/v1/chat/completions") {
            upstreamPath = path.substr(3); // the base URL ends in the API's version already
            route.modelCall = true;
        }
    }
    if (upstreamPath.empty())
        return route;
    std::string base = baseUrl;
    while (!base.empty() && base.back() == '/')
        base.pop_back();
    route.action = ModelRoute::Action::Forward;
    route.upstreamUrl = base + std::string(upstreamPath);
    if (hasQuery)
        route.upstreamUrl += "?" + std::string(query);
    return route;
}

} // namespace warren::control
