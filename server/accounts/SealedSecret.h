#pragma once
// A secret sealed at rest with AES-256-GCM (OpenSSL's EVP): a fresh random 96-bit nonce per seal, and
// additional authenticated data that the ciphertext is bound to, so that it opens only with the same key
// and the same binding (warrend binds a user's provider key to the user's id and the provider's name: a
// row copied to another user or provider does not open). Pure apart from the random nonce; no Qt.

#include "common/Result.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace warren::accounts {

inline constexpr std::size_t kSealKeyBytes = 32;   // AES-256
inline constexpr std::size_t kSealNonceBytes = 12; // GCM's 96-bit nonce
inline constexpr std::size_t kSealTagBytes = 16;   // GCM's full 128-bit tag

struct Sealed {
    std::string nonce;      // kSealNonceBytes raw bytes
    std::string ciphertext; // as long as the plaintext, then the kSealTagBytes tag
};

// key: kSealKeyBytes raw bytes; a key of another size is InvalidArgument.
Result<Sealed> seal(std::string_view key, std::string_view aad, std::string_view plaintext);
// The plaintext, or InvalidArgument when the key, the aad, the nonce, the ciphertext or the tag differ from
// what was sealed (GCM cannot tell which, and neither does the message).
Result<std::string> unseal(std::string_view key, std::string_view aad, const Sealed& sealed);

} // namespace warren::accounts
