#pragma once
// Where warrend's server-wide provider keys may go, and which provider endpoints a user may name. A key the
// operator gives warrend (OPENAI_API_KEY, ...) is for the endpoint it was given for: a hosted service's own
// URL, or the operator's --provider. Any other endpoint is the user's: it gets the user's own key or none,
// and it is never at an address inside the server's host or networks unless the operator allows that
// destination (--allow-internal). Pure.

#include "app/egress/InsideDestinations.h"
#include "app/providers/ProviderConfig.h"
#include "common/Result.h"

#include <string>

namespace warren::server {

// Whether provider is an endpoint the operator configured: the fixed URL of a hosted provider with a key
// (openai, anthropic, openrouter) for that key, or the endpoint of operatorSpec (warrend serve --provider),
// with its key. URLs compare as URLs (case of scheme and host, a default port, a trailing slash).
bool isOperatorEndpoint(const control::ProviderConfig& provider, const std::string& operatorSpec);

// Checked when a task is created: an endpoint a user names whose host is an address inside, or a name the
// machine answers for itself (localhost), not allowed by access. Names that DNS resolves inside are
// refused when the call connects (HttpChatCall). Ok for the operator's endpoints and a scripted model.
Status checkProviderEndpoint(const control::ProviderConfig& provider, const std::string& operatorSpec,
                             const control::InsideAccess& access);

} // namespace warren::server
