#pragma once
// The operator's secret that seals the provider keys users store (`warrend serve --provider-key-secret
// FILE`): exactly kSealKeyBytes random bytes in a regular file no one but its owner may read, made with
//   (umask 077 && openssl rand -out FILE 32)
// It lives outside the database, so that a copy of the database alone opens no key.

#include "common/Result.h"

#include <string>

namespace warren::accounts {

// The file's bytes; an error naming the file and saying how to make a good one when it is missing, not a
// regular file, readable or writable by group or others, or not exactly 32 bytes.
Result<std::string> readProviderKeySecret(const std::string& path);

} // namespace warren::accounts
