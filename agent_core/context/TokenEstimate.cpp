#include "agent_core/context/TokenEstimate.h"

namespace warren::agent {

namespace {

// Role markers and separators the chat templates wrap around each message.
constexpr std::uint64_t kTokensPerMessage = 4;

} // namespace

std::uint64_t estimateTokens(const protocol::ChatMessage& message) {
    std::uint64_t bytes = message.role.size() + message.content.size();
    for (const auto& call : message.toolCalls) {
        bytes += call.id.size() + call.name.size() +
                 call.arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size();
    }
    if (message.toolCallId)
        bytes += message.toolCallId->size();
    return (bytes + kBytesPerToken - 1) / kBytesPerToken + kTokensPerMessage;
}

std::uint64_t estimateTokens(const std::vector<protocol::ChatMessage>& messages) {
    std::uint64_t total = 0;
    for (const auto& message : messages)
        total += estimateTokens(message);
    return total;
}

} // namespace warren::agent
