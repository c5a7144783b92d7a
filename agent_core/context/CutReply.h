#pragma once
// What the loop does with a reply the output token limit cut (finish_reason "length"): a tool call cut in
// its arguments is never run, and the calls before it are not run either (they may be half of one plan).
// The first cut of a row asks the same question again with twice the room; a second tells the model it
// was cut and to work in smaller pieces; kMaxCutRepliesInARow stops the task. Pure: the loop acts.

#include <cstdint>
#include <string>

namespace warren::agent {

// The most room an asked-again request gets. A model whose own ceiling is lower says so with a 400 the
// control plane adapts to (docs/ARCHITECTURE.md, "Model requests").
inline constexpr std::uint64_t kMaxOutputRoom = 128000;
inline constexpr unsigned kMaxCutRepliesInARow = 3;

struct CutReplyPlan {
    enum class Action { AskAgain, TellModel, Stop };
    Action action = Action::TellModel;
    std::uint64_t room = 0; // AskAgain: the output limit of the new request
};

// outputTokens: what the cut reply used (its limit, near enough, when the server counted); askedLimit:
// the limit the request asked for, 0 when it left it to the provider; cutsInARow: this one included.
CutReplyPlan planForCutReply(std::uint64_t outputTokens, std::uint64_t askedLimit, unsigned cutsInARow);

// "the reply was cut at the output limit after 4096 tokens, in the middle of a tool call (not run)".
std::string describeCutReply(std::uint64_t outputTokens, std::uint64_t cutToolCalls);

// The message the model reads after a cut reply whose calls were not run.
std::string cutReplyNotice(std::uint64_t outputTokens, std::uint64_t cutToolCalls);

} // namespace warren::agent
