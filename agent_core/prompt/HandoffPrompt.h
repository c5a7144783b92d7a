#pragma once
// The handoff summary: when compaction must cut turns, the model is asked once, without tools, to write
// what a successor needs to carry on (resources/prompts/handoff.md), under four fixed headings: goal,
// done, pending, state of the code and tests. Pure: the request and the check of the answer; the loop
// makes the call (TaskRun) and falls back to the mechanical summary when the answer does not pass.

#include "agent_core/protocol/Methods.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

// The headings the answer must hold, in order.
inline constexpr std::string_view kHandoffHeadings[] = {"## Goal", "## Done", "## Pending",
                                                         "## State of the code and tests"};

// The estimated tokens a handoff summary may take: an eighth of context_window_limit. Compaction leaves
// that much room for it, so the conversation with the summary in place stays under the limit.
std::uint64_t handoffSummaryLimit(std::uint64_t contextWindowLimit);

// The request's messages: handoff.md as the system message, then one user message with the task and
// the cut messages as a transcript (each tool output shortened, the oldest messages left out, an earlier
// summary kept, so that the request stays under contextWindowLimit) and the word limit.
std::vector<protocol::ChatMessage> handoffRequest(std::string_view task,
                                                  const std::vector<protocol::ChatMessage>& cut,
                                                  std::uint64_t contextWindowLimit);

// handoff.md's version ("1"), for the log.
std::string handoffPromptVersion();

// The answer as the summary to put in place (trimmed), or why it cannot be used: it called tools, is
// empty, lacks a heading, or is over handoffSummaryLimit.
struct HandoffVerdict {
    std::optional<std::string> summary;
    std::string problem; // when summary is nullopt: "the answer is empty", ...
};
HandoffVerdict checkHandoffSummary(const protocol::LlmChatResult& reply, std::uint64_t contextWindowLimit);

} // namespace warren::agent
