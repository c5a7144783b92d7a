#pragma once
// The provider keys' bodies (docs/SERVER.md). Pure.
//
//   PUT /v1/me/provider-keys/{provider}   {"key"}: written by the client, read strictly by the server
//   GET /v1/me/provider-keys              {"provider_keys": [{"provider", "updated_at"}, ...]}
//
// No message of the key's reader repeats the body: a refused body may well be the key, and an error
// answer, like a log line, is no place for it.

#include "common/Result.h"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace warren::wire {

inline constexpr std::size_t kMaxProviderKeyBytes = 4096;

struct ProviderKeyBody {
    std::string key;

    nlohmann::json toJson() const;
    // The body's bytes: JSON (UTF-8) of one object whose only field is "key", a string of 1 to
    // kMaxProviderKeyBytes visible ASCII characters (it goes into an HTTP header as it is).
    static Result<ProviderKeyBody> fromJson(std::string_view body);
};

struct ProviderKeyEntry {
    std::string provider;
    std::string updatedAt; // RFC 3339
};

struct ProviderKeyList {
    std::vector<ProviderKeyEntry> keys;

    nlohmann::json toJson() const;
    // Leniently: an answer of another shape lists nothing, an entry without a provider is skipped.
    static ProviderKeyList fromJson(const nlohmann::json& answer);
    bool lists(const std::string& provider) const;
};

} // namespace warren::wire
