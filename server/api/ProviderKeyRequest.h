#pragma once
// PUT /v1/me/provider-keys/{provider}'s provider, checked strictly: one warrend knows a key for. Pure. (The
// body is app/wire's ProviderKeyBody.)

#include "common/Result.h"

#include <string>

namespace warren::server {

// One of control::providerKeyNames(); an error lists them.
Status checkProviderKeyName(const std::string& provider);

} // namespace warren::server
