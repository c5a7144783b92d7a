#include "server/accounts/SealedSecret.h"

#include <climits>
#include <memory>
#include <openssl/evp.h>
#include <openssl/rand.h>

namespace warren::accounts {

namespace {

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

const unsigned char* bytes(std::string_view text) {
    return reinterpret_cast<const unsigned char*>(text.data());
}

unsigned char* bytes(std::string& text) {
    return reinterpret_cast<unsigned char*>(text.data());
}

Error failed(const std::string& what) {
    return makeError(ErrorCode::System, "cannot " + what + ": OpenSSL's AES-256-GCM failed");
}

Status checkSizes(std::string_view key, std::string_view aad, std::size_t text) {
    if (key.size() != kSealKeyBytes)
        return makeError(ErrorCode::InvalidArgument, "a sealing key is " + std::to_string(kSealKeyBytes) +
                                                         " bytes, not " + std::to_string(key.size()));
    if (aad.size() > INT_MAX || text > INT_MAX - kSealTagBytes)
        return makeError(ErrorCode::InvalidArgument, "a sealed secret is at most 2 GiB");
    return Ok{};
}

} // namespace

Result<Sealed> seal(std::string_view key, std::string_view aad, std::string_view plaintext) {
    if (auto sizes = checkSizes(key, aad, plaintext.size()); !sizes)
        return sizes.error();
    Sealed sealed;
    sealed.nonce.resize(kSealNonceBytes);
    if (RAND_bytes(bytes(sealed.nonce), static_cast<int>(kSealNonceBytes)) != 1)
        return failed("draw a random nonce");
    CipherContext context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
    sealed.ciphertext.resize(plaintext.size() + kSealTagBytes);
    int length = 0;
    // GCM's default nonce length is 12 bytes: no EVP_CTRL_GCM_SET_IVLEN needed.
    if (!context ||
        EVP_EncryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, bytes(key), bytes(sealed.nonce)) != 1 ||
        EVP_EncryptUpdate(context.get(), nullptr, &length, bytes(aad), static_cast<int>(aad.size())) != 1 ||
        EVP_EncryptUpdate(context.get(), bytes(sealed.ciphertext), &length, bytes(plaintext),
                          static_cast<int>(plaintext.size())) != 1 ||
        EVP_EncryptFinal_ex(context.get(), bytes(sealed.ciphertext) + length, &length) != 1 ||
        EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kSealTagBytes),
                            bytes(sealed.ciphertext) + plaintext.size()) != 1)
        return failed("seal a secret");
    return sealed;
}

Result<std::string> unseal(std::string_view key, std::string_view aad, const Sealed& sealed) {
    if (auto sizes = checkSizes(key, aad, sealed.ciphertext.size()); !sizes)
        return sizes.error();
    const Error refused =
        makeError(ErrorCode::InvalidArgument, "the sealed secret does not open with this key and binding");
    if (sealed.nonce.size() != kSealNonceBytes || sealed.ciphertext.size() < kSealTagBytes)
        return refused;
    const std::size_t textSize = sealed.ciphertext.size() - kSealTagBytes;
    std::string tag = sealed.ciphertext.substr(textSize);
    std::string plaintext(textSize, '\0');
    CipherContext context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
    int length = 0;
    if (!context ||
        EVP_DecryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, bytes(key), bytes(sealed.nonce)) != 1 ||
        EVP_DecryptUpdate(context.get(), nullptr, &length, bytes(aad), static_cast<int>(aad.size())) != 1 ||
        EVP_DecryptUpdate(context.get(), bytes(plaintext), &length, bytes(sealed.ciphertext),
                          static_cast<int>(textSize)) != 1 ||
        EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kSealTagBytes),
                            bytes(tag)) != 1)
        return failed("open a sealed secret");
    // The tag is checked here: until it passes, plaintext is not the secret and is not handed out.
    if (EVP_DecryptFinal_ex(context.get(), bytes(plaintext) + length, &length) != 1)
        return refused;
    return plaintext;
}

} // namespace warren::accounts
