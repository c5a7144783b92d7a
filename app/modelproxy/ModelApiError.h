#pragma once
// The proxy's own refusals, written the way the API the CLI speaks writes its errors, so the CLI shows the
// message instead of failing to read the answer. Pure.

#include "app/providers/ProviderConfig.h"

#include <string>
#include <string_view>

namespace warren::control {

// Anthropic: {"type":"error","error":{"type":"authentication_error","message":...}};
// OpenAI: {"error":{"message":...,"type":...,"param":null,"code":...}}. The type follows the status.
std::string modelApiErrorBody(ProviderConfig::Kind kind, int status, std::string_view message);

// "Unauthorized" for 401 and the like; "Error" for a status this proxy never answers itself.
const char* modelProxyReason(int status);

// A whole HTTP/1.1 answer with that error body, Content-Length and "Connection: close".
std::string modelApiErrorAnswer(ProviderConfig::Kind kind, int status, std::string_view message);

} // namespace warren::control
