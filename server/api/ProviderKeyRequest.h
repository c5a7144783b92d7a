#pragma once
// PUT /v1/me/provider-keys/{provider}'s input, checked strictly: a provider warrend knows a key for, and
// the body {"key": "..."} with nothing else. Pure. No message repeats the body: a refused body may well be
// the key, and an error answer, like a log line, is no place for it.

#include "common/Result.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace warren::server {

inline constexpr std::size_t kMaxProviderKeyBytes = 4096;

// One of control::providerKeyNames(); an error lists them.
Status checkProviderKeyName(const std::string& provider);

// The key from the body: JSON (UTF-8) of one object whose only field is "key", a string of 1 to
// kMaxProviderKeyBytes visible ASCII characters (it goes into an HTTP header as it is).
Result<std::string> parseProviderKeyBody(std::string_view body);

} // namespace warren::server
