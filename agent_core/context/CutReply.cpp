#include "agent_core/context/CutReply.h"

#include <algorithm>

namespace warren::agent {

CutReplyPlan planForCutReply(std::uint64_t outputTokens, std::uint64_t askedLimit, unsigned cutsInARow) {
    if (cutsInARow >= kMaxCutRepliesInARow)
        return {CutReplyPlan::Action::Stop, 0};
    if (cutsInARow > 1)
        return {CutReplyPlan::Action::TellModel, 0};
    // Without a count or a limit there is nothing to double: more room cannot be asked for by number.
    const std::uint64_t reached = std::max(outputTokens, askedLimit);
    if (reached == 0 || reached >= kMaxOutputRoom)
        return {CutReplyPlan::Action::TellModel, 0};
    return {CutReplyPlan::Action::AskAgain, std::min(reached * 2, kMaxOutputRoom)};
}

std::string describeCutReply(std::uint64_t outputTokens, std::uint64_t cutToolCalls) {
    std::string text = "the reply was cut at the output limit";
    if (outputTokens)
        text += " after " + std::to_string(outputTokens) + " tokens";
    if (cutToolCalls)
        text += ", in the middle of a tool call (not run)";
    return text;
}

std::string cutReplyNotice(std::uint64_t outputTokens, std::uint64_t cutToolCalls) {
    std::string text = "[warren] Your previous reply was cut off at the output token limit";
    if (outputTokens)
        text += " (" + std::to_string(outputTokens) + " tokens)";
    text += cutToolCalls ? " in the middle of a tool call. None of its tool calls were run."
                         : ". None of its tool calls were run.";
    text += " Continue in smaller pieces: keep each reply short, and split large content over several calls "
            "(for example, write the first part of a large file with write_file and add the rest with "
            "edit_file).";
    return text;
}

} // namespace warren::agent
