#pragma once
// Keeps the conversation sent to the model under context_window_limit. The system message and the task's
// user message always stay, and so do the latest messages. First the outputs of old tool calls (before the
// latest messages, oldest first) are replaced by a one-line stub naming the call and saying where the
// whole output is (the task's tool_result event): the turns stay, only their bulk goes. Only when that is
// not enough are the oldest turns replaced by one user message, the summary: mechanical (how many messages
// were cut and which tool calls they held, with the first line of each result), or a handoff summary the
// model wrote (the loop asks for it; handoffSummaryMessage puts it in place). Cuts fall on turn boundaries
// only: a tool message is never kept without the assistant message whose tool_calls it answers, since model
// APIs refuse such a conversation. Compacting again folds the earlier summary into the new one, so there is
// never more than one.

#include "agent_core/protocol/Methods.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

struct CompactionOptions {
    std::uint64_t limitTokens = 32000; // context_window_limit, in estimateTokens() units
    std::uint64_t keepRecent = 8;      // keep_recent_messages: more are kept when the latest turn is longer
    bool compressToolResults = false;  // compress_history: tool results before the recent messages are cut
                                       // to their first line even when under the limit
};

struct CompactionResult {
    std::vector<protocol::ChatMessage> messages;
    std::uint64_t droppedOutputs = 0; // old tool results replaced by a stub
    std::uint64_t cutCount = 0; // messages of the input replaced by the summary (an earlier summary not
                                // counted); 0 when nothing was cut
    std::uint64_t estimatedTokensBefore = 0;
    std::uint64_t estimatedTokensAfter = 0;
    // When turns were cut: where the (mechanical) summary is in messages, how many messages of the
    // conversation it stands for (an earlier summary's included), and what it replaced as the input held
    // it, outputs whole: an earlier summary first, then the cut turns. A model writes its summary from these.
    std::size_t summaryIndex = 0;
    std::uint64_t summarisedMessages = 0;
    std::vector<protocol::ChatMessage> cutMessages;
};

// Cuts as few turns as bring the estimate under limitTokens; when no cut does, the one that leaves the
// fewest tokens (or none, if cutting would not help).
CompactionResult compactHistory(const std::vector<protocol::ChatMessage>& messages,
                                const CompactionOptions& options);

// For low memory (on_low_memory): cuts every turn but the latest and shortens the older tool results.
std::vector<protocol::ChatMessage> shedHistory(const std::vector<protocol::ChatMessage>& messages);

// Whether message is a summary compactHistory wrote, or handoffSummaryMessage: "[Earlier conversation
// compacted: ...]".
bool isCompactionSummary(const protocol::ChatMessage& message);

// The summary message for a handoff summary the model wrote, standing for summarisedMessages messages.
protocol::ChatMessage handoffSummaryMessage(std::uint64_t summarisedMessages, std::string_view handoff);

// Whether a tool result is a stub compactHistory left in place of an old output.
bool isDroppedOutput(const protocol::ChatMessage& message);

} // namespace warren::agent
