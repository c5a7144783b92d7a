#include "server/api/ProviderKeyRequest.h"

#include "app/providers/ProviderConfig.h"
#include "common/Utf8.h"

#include <algorithm>

namespace warren::server {

namespace {

Error refuse(const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, message);
}

} // namespace

Status checkProviderKeyName(const std::string& provider) {
    const auto names = control::providerKeyNames();
    if (std::find(names.begin(), names.end(), provider) != names.end())
        return Ok{};
    std::string known;
    for (const auto& name : names)
        known += (known.empty() ? "" : ", ") + name;
    return refuse("warrend keeps no keys for a provider named \"" + validUtf8(provider.substr(0, 64)) +
                  "\": use one of " + known);
}

} // namespace warren::server
