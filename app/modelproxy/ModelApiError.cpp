#include "app/modelproxy/ModelApiError.h"

#include <nlohmann/json.hpp>

namespace warren::control {

namespace {

const char* anthropicType(int status) {
    switch (status) {
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 503: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
    }
}

// OpenAI's type and code for the statuses the proxy answers.
std::pair<const char*, const char*> openAiTypeAndCode(int status) {
    switch (status) {
    case 401: return {"invalid_request_error", "invalid_api_key"};
    case 403: return {"permission_error", "refused_by_warren"};
    case 404: return {"invalid_request_error", "unknown_url"};
    case 413: return {"invalid_request_error", "request_too_large"};
    case 429: return {"requests", "rate_limit_exceeded"};
    default: return {status >= 500 ? "server_error" : "invalid_request_error", "warren_proxy"};
    }
}

} // namespace

std::string modelApiErrorBody(ProviderConfig::Kind kind, int status, std::string_view message) {
    nlohmann::json body;
    if (kind == ProviderConfig::Kind::Anthropic) {
        body = {{"type", "error"}, {"error", {{"type", anthropicType(status)}, {"message", message}}}};
    } else {
        const auto [type, code] = openAiTypeAndCode(status);
        body = {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code}}}};
    }
    // Replaced, not thrown on: a message may quote bytes the client sent that are not UTF-8.
    return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

const char* modelProxyReason(int status) {
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 417: return "Expectation Failed";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

std::string modelApiErrorAnswer(ProviderConfig::Kind kind, int status, std::string_view message) {
    const std::string body = modelApiErrorBody(kind, status, message);
    return "HTTP/1.1 " + std::to_string(status) + " " + modelProxyReason(status) +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\nConnection: close\r\n\r\n" + body;
}

} // namespace warren::control
