#include "server/accounts/ApiKey.h"

#include "server/accounts/Sha256.h"

#include <cerrno>
#include <cstring>
#include <sys/random.h>

namespace warren::accounts::api_key {

namespace {

constexpr int kBitsPerChar = 5;
constexpr unsigned kCharMask = (1U << kBitsPerChar) - 1;
// 52 characters carry 260 bits; the last one holds one bit of the key and four zero bits.
constexpr unsigned kPaddingBits = kApiKeyBodyLength * kBitsPerChar - kApiKeyRandomBytes * 8;

int alphabetIndex(char c) {
    const auto at = kAlphabet.find(c);
    return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

char asciiLower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

} // namespace

std::string encode(std::span<const std::uint8_t, kApiKeyRandomBytes> bytes) {
    std::string key(kApiKeyPrefix);
    key.reserve(kApiKeyLength);
    unsigned buffer = 0;
    int bits = 0;
    for (const std::uint8_t byte : bytes) {
        buffer = (buffer << 8) | byte;
        bits += 8;
        while (bits >= kBitsPerChar) {
            bits -= kBitsPerChar;
            key.push_back(kAlphabet[(buffer >> bits) & kCharMask]);
        }
    }
    if (bits > 0)
        key.push_back(kAlphabet[(buffer << (kBitsPerChar - bits)) & kCharMask]);
    return key;
}

Result<std::string> generate() {
    std::array<std::uint8_t, kApiKeyRandomBytes> bytes{};
    std::size_t filled = 0;
    while (filled < bytes.size()) {
        const ssize_t got = getrandom(bytes.data() + filled, bytes.size() - filled, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return makeError(ErrorCode::System, std::string("could not read random bytes for an API key "
                                                            "(getrandom: ") +
                                                    std::strerror(errno) + "); no key was created");
        }
        filled += static_cast<std::size_t>(got);
    }
    std::string key = encode(bytes);
    bytes.fill(0);
    return key;
}

bool isWellFormed(std::string_view text) {
    if (text.size() != kApiKeyLength || !text.starts_with(kApiKeyPrefix))
        return false;
    const std::string_view body = text.substr(kApiKeyPrefix.size());
    for (const char c : body)
        if (alphabetIndex(c) < 0)
            return false;
    const auto last = static_cast<unsigned>(alphabetIndex(body.back()));
    return (last & ((1U << kPaddingBits) - 1)) == 0;
}

std::string hash(std::string_view key) {
    return sha256Hex(key);
}

std::string displayPrefix(std::string_view key) {
    return std::string(key.substr(0, kApiKeyDisplayLength));
}

std::optional<std::string> fromAuthorizationHeader(std::string_view header) {
    constexpr std::string_view kScheme = "bearer ";
    if (header.size() < kScheme.size())
        return std::nullopt;
    for (std::size_t i = 0; i < kScheme.size(); ++i)
        if (asciiLower(header[i]) != kScheme[i])
            return std::nullopt;
    const std::string_view key = header.substr(kScheme.size());
    if (!isWellFormed(key))
        return std::nullopt;
    return std::string(key);
}

bool constantTimeEquals(std::string_view a, std::string_view b) {
    // The lengths are public (every key and every hash has a fixed one); the contents are not.
    if (a.size() != b.size())
        return false;
    unsigned char difference = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a[i] ^ b[i]);
    return difference == 0;
}

} // namespace warren::accounts::api_key
