#pragma once
// Strict UTF-8 validation (RFC 3629): a peer that sends overlong forms, surrogates or code points past
// U+10FFFF is sending bytes that different decoders read differently, so the protocol refuses them.

#include <cstddef>
#include <optional>
#include <string_view>

namespace warren::protocol {

// The offset of the first byte that does not begin a valid UTF-8 sequence, or nullopt when all are valid.
std::optional<std::size_t> firstInvalidUtf8(std::string_view bytes);

} // namespace warren::protocol
