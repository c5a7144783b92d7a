#pragma once
// A model-independent estimate of what a conversation costs in tokens: about four bytes per token for
// English and code, plus a few tokens of framing per message. Compaction only needs it to be consistent
// and roughly right; the control plane counts the real tokens.

#include "agent_core/protocol/Methods.h"

#include <cstdint>
#include <vector>

namespace warren::agent {

// The estimate's rate: about four bytes of English or code per token.
inline constexpr std::uint64_t kBytesPerToken = 4;

// Role, content, tool call ids and names, and the arguments' JSON text: bytes / 4 rounded up, plus the
// per-message framing.
std::uint64_t estimateTokens(const protocol::ChatMessage& message);
std::uint64_t estimateTokens(const std::vector<protocol::ChatMessage>& messages);

} // namespace warren::agent
