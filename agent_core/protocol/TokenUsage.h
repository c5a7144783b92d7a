#pragma once
// Tokens a model call consumed, as the provider counted them.

#include <cstdint>

namespace warren::protocol {

struct TokenUsage {
    std::uint64_t input = 0;
    std::uint64_t output = 0;
    friend bool operator==(const TokenUsage&, const TokenUsage&) = default;
};

} // namespace warren::protocol
