#include "agent_core/prompt/HandoffPrompt.h"

#include "agent_core/context/Compaction.h"
#include "agent_core/context/TokenEstimate.h"
#include "agent_core/prompt/PromptText.h"
#include "common/Utf8.h"

#include <algorithm>
#include <iterator>

// The request's instructions, embedded from resources/prompts by prompt/CMakeLists.txt.
namespace warren::resources {
extern const std::string_view promptHandoffMd;
} // namespace warren::resources

namespace warren::agent {

using protocol::ChatMessage;

namespace {

// A tool output in the transcript: its head is what the successor needs (what the call found), and the
// whole stays in the task's events.
constexpr std::size_t kMaxOutputBytes = 1500;
constexpr std::size_t kMaxTaskBytes = 4000;
constexpr std::uint64_t kMinHandoffTokens = 125;

std::string shortened(std::string_view text, std::size_t maxBytes) {
    const auto prefix = utf8Prefix(text, maxBytes);
    if (prefix.size() == text.size())
        return std::string(text);
    return std::string(prefix) + "\n[... " + std::to_string(text.size() - prefix.size()) + " more bytes]";
}

std::string entry(const ChatMessage& message) {
    if (isCompactionSummary(message))
        return "[an earlier note, for the part before]\n" + message.content;
    if (message.role == "tool")
        return "[result of call " + message.toolCallId.value_or("?") + "]\n" +
               shortened(message.content, kMaxOutputBytes);
    std::string text = "[" + message.role + "]\n" + message.content;
    for (const auto& call : message.toolCalls) {
        text += (text.back() == '\n' ? "" : "\n") + std::string("-> call ") + call.id + ": " + call.name + " " +
                shortened(call.arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                          kMaxOutputBytes);
    }
    return text;
}

bool hasHeading(std::string_view text, std::string_view heading) {
    for (auto at = text.find(heading); at != std::string_view::npos; at = text.find(heading, at + 1)) {
        if (at == 0 || text[at - 1] == '\n')
            return true;
    }
    return false;
}

} // namespace

std::uint64_t handoffSummaryLimit(std::uint64_t contextWindowLimit) {
    return std::max(kMinHandoffTokens, contextWindowLimit / 8);
}

std::string handoffPromptVersion() {
    return versionOf(resources::promptHandoffMd);
}

std::vector<ChatMessage> handoffRequest(std::string_view task, const std::vector<ChatMessage>& cut,
                                        std::uint64_t contextWindowLimit) {
    const std::string instructions(withoutHeader(resources::promptHandoffMd));
    const std::uint64_t words = handoffSummaryLimit(contextWindowLimit) / 2;
    const std::string head = "The task:\n" + shortened(task, kMaxTaskBytes) +
                             "\n\nThe part of the conversation being removed, oldest first:\n\n";
    const std::string tail = "\n\nWrite the handoff note now, under " + std::to_string(words) + " words.";

    // What the transcript may take: the window, less the instructions, the frame and the answer's room.
    const std::uint64_t fixed = estimateTokens(std::vector<ChatMessage>{
        {"system", instructions, {}, std::nullopt}, {"user", head + tail, {}, std::nullopt}});
    const std::uint64_t reserved = fixed + handoffSummaryLimit(contextWindowLimit);
    const std::uint64_t roomBytes =
        contextWindowLimit > reserved ? (contextWindowLimit - reserved) * kBytesPerToken : 0;

    // An earlier note is kept whole; of the rest, the latest entries that fit.
    std::vector<std::string> entries;
    std::size_t first = 0;
    std::uint64_t used = 0;
    std::string earlier;
    if (!cut.empty() && isCompactionSummary(cut.front())) {
        earlier = entry(cut.front());
        used += earlier.size() + 2;
        first = 1;
    }
    std::size_t leftOut = 0;
    for (std::size_t i = cut.size(); i-- > first;) {
        auto text = entry(cut[i]);
        if (used + text.size() + 2 > roomBytes) {
            leftOut = i - first + 1;
            break;
        }
        used += text.size() + 2;
        entries.push_back(std::move(text));
    }
    std::string transcript = earlier.empty() ? std::string() : earlier + "\n\n";
    if (leftOut)
        transcript += "[" + std::to_string(leftOut) + " older messages left out for room]\n\n";
    for (auto it = entries.rbegin(); it != entries.rend(); ++it)
        transcript += *it + (std::next(it) == entries.rend() ? "" : "\n\n");

    return {{"system", instructions, {}, std::nullopt}, {"user", head + transcript + tail, {}, std::nullopt}};
}

HandoffVerdict checkHandoffSummary(const protocol::LlmChatResult& reply, std::uint64_t contextWindowLimit) {
    if (!reply.toolCalls.empty())
        return {std::nullopt, "the answer called a tool instead of writing the summary"};
    if (reply.finishReason == "length")
        return {std::nullopt, "the answer was cut by the output limit"};
    std::string_view text = reply.content;
    const auto goal = text.find(kHandoffHeadings[0]);
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return {std::nullopt, "the answer is empty"};
    for (const auto heading : kHandoffHeadings) {
        if (!hasHeading(text, heading))
            return {std::nullopt, "the answer lacks the heading \"" + std::string(heading) + "\""};
    }
    text.remove_prefix(goal); // anything said before the note is not part of it
    text = text.substr(0, text.find_last_not_of(" \t\r\n") + 1);
    const ChatMessage asSent{"user", std::string(text), {}, std::nullopt};
    const auto tokens = estimateTokens(asSent);
    const auto limit = handoffSummaryLimit(contextWindowLimit);
    if (tokens > limit)
        return {std::nullopt, "the answer is about " + std::to_string(tokens) + " tokens, over the " +
                                  std::to_string(limit) + " a summary may take (an eighth of context_window_limit)"};
    return {std::string(text), {}};
}

} // namespace warren::agent
