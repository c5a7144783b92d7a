#pragma once
// Tokens a model call consumed, as the provider counted them.

#include <cstdint>

namespace warren::protocol {

struct TokenUsage {
    std::uint64_t input = 0;
    std::uint64_t output = 0;
    // Of output: the tokens the model spent reasoning before it answered (OpenAI's
    // completion_tokens_details.reasoning_tokens). 0 when the API does not count them apart; on the wire
    // only when not 0, so a reply without reasoning reads as it always did.
    std::uint64_t reasoning = 0;
    friend bool operator==(const TokenUsage&, const TokenUsage&) = default;
};

} // namespace warren::protocol
