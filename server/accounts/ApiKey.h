#pragma once
// A user's API key for warrend: "wrn_" and 52 characters that spell 32 random bytes (getrandom) in a
// lowercase Crockford base-32 alphabet (no i, l, o, u: nothing to misread when a key is copied by eye,
// nothing a URL or a shell needs to escape). The key is shown once; the database keeps only its SHA-256
// and a short prefix by which an operator can name it (revoke-key). Pure, but for generate().

#include "common/Result.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace warren::accounts {

inline constexpr std::string_view kApiKeyPrefix = "wrn_";
inline constexpr std::size_t kApiKeyRandomBytes = 32;
inline constexpr std::size_t kApiKeyBodyLength = (kApiKeyRandomBytes * 8 + 4) / 5; // 52
inline constexpr std::size_t kApiKeyLength = kApiKeyPrefix.size() + kApiKeyBodyLength;
// How much of a key the database keeps in the clear, "wrn_" included: 8 of the 52 characters (40 of
// 256 bits), enough to tell one user's keys apart in list-users, far too few to help guess the rest.
inline constexpr std::size_t kApiKeyDisplayLength = kApiKeyPrefix.size() + 8;

namespace api_key {

// The alphabet, one character per 5 bits.
inline constexpr std::string_view kAlphabet = "0123456789abcdefghjkmnpqrstvwxyz";

// The key that spells these bytes (the generator's pure half, tested with fixed bytes).
std::string encode(std::span<const std::uint8_t, kApiKeyRandomBytes> bytes);

// A new key from the kernel's random source; fails only if getrandom does.
Result<std::string> generate();

// Whether text has a key's shape: the prefix, exactly 52 characters of the alphabet, and the unused low
// bits of the last one zero (so every byte string has one spelling and every spelling one byte string).
bool isWellFormed(std::string_view text);

// The SHA-256 of the key's text, in lowercase hex: what the database stores and looks keys up by.
std::string hash(std::string_view key);

// The prefix kept in the clear (kApiKeyDisplayLength characters of a well-formed key).
std::string displayPrefix(std::string_view key);

// The key in an Authorization header, accepted only as exactly "Bearer " followed by a well-formed key
// (the scheme compared ASCII case-insensitively, as RFC 9110 says; nothing before, after or between but
// the one space). Anything else is no key: the caller answers 401 the same way for every such header.
std::optional<std::string> fromAuthorizationHeader(std::string_view header);

// Equal without an early exit, so the time taken does not tell how many leading characters matched.
bool constantTimeEquals(std::string_view a, std::string_view b);

} // namespace api_key
} // namespace warren::accounts
