#include "agent_core/context/Compaction.h"

#include "agent_core/context/TokenEstimate.h"
#include "common/Utf8.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace warren::agent {

using protocol::ChatMessage;

namespace {

constexpr std::string_view kSummaryPrefix = "[Earlier conversation compacted: ";
constexpr std::string_view kSummaryMiddle = " cut. Summary: ";
constexpr std::string_view kHandoffMiddle = " cut. Handoff summary:\n";
constexpr std::string_view kDroppedPrefix = "[output dropped to save context: ";
constexpr std::string_view kNoToolCalls = "no tool calls";
constexpr std::string_view kItemSeparator = "; ";
constexpr std::string_view kOmitted = "...; ";
// The summary must stay small next to the limit (>= 1000 tokens): about 400 tokens at most, the latest
// calls kept when older ones no longer fit.
constexpr std::size_t kMaxSummaryBodyBytes = 1600;
constexpr std::size_t kMaxArgumentBytes = 80;
constexpr std::size_t kMaxOutcomeBytes = 80;
// A compressed tool result is its first line cut to this, then the marker; anything at most
// kCompressedMaxBytes long on one line is left as it is, so compressing twice changes nothing.
constexpr std::size_t kCompressedLineBytes = 200;
constexpr std::size_t kCompressedMaxBytes = 256;
constexpr std::uint64_t kShedKeepRecent = 2;

std::string shortened(std::string_view text, std::size_t maxBytes) {
    const auto prefix = utf8Prefix(text, maxBytes);
    return prefix.size() == text.size() ? std::string(text) : std::string(prefix) + "...";
}

std::string_view firstLine(std::string_view text) {
    const auto end = text.find('\n');
    auto line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    return line;
}

// Blank lines and indentation say nothing in a one-line outcome.
std::string_view firstNonBlankLine(std::string_view text) {
    while (!text.empty()) {
        auto line = firstLine(text);
        if (const auto start = line.find_first_not_of(" \t"); start != std::string_view::npos) {
            line.remove_prefix(start);
            return line.substr(0, line.find_last_not_of(" \t") + 1);
        }
        const auto next = text.find('\n');
        if (next == std::string_view::npos)
            break;
        text.remove_prefix(next + 1);
    }
    return {};
}

std::string compressedToolResult(const std::string& content) {
    if (content.size() <= kCompressedMaxBytes && content.find('\n') == std::string::npos)
        return content;
    const auto kept = utf8Prefix(firstLine(content), kCompressedLineBytes);
    return std::string(kept) + " [" + std::to_string(content.size() - kept.size()) + " bytes elided]";
}

std::string argumentsText(const nlohmann::json& arguments) {
    return arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One line in place of an old tool result: the call it answered and where its output still is.
std::string droppedOutputStub(const protocol::ToolCall* call, const ChatMessage& result) {
    const std::string id = result.toolCallId.value_or("");
    const std::string who =
        call ? call->name + " " + shortened(argumentsText(call->arguments), kMaxArgumentBytes) : "a tool call";
    return std::string(kDroppedPrefix) + who + " returned " + std::to_string(result.content.size()) +
           " bytes; the whole output is in the task's events (the tool_result of call " + id + ")]";
}

struct Summary {
    std::uint64_t cutMessages = 0;
    std::string body; // items separated by "; " ("" when no tool calls were cut), or a handoff summary
};

std::optional<Summary> parseSummary(const ChatMessage& message) {
    std::string_view text = message.content;
    if (message.role != "user" || !text.starts_with(kSummaryPrefix) || !text.ends_with("]"))
        return std::nullopt;
    text.remove_prefix(kSummaryPrefix.size());
    text.remove_suffix(1);
    Summary summary;
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9' && digits < 19)
        summary.cutMessages = summary.cutMessages * 10 + static_cast<std::uint64_t>(text[digits++] - '0');
    if (digits == 0)
        return std::nullopt;
    text.remove_prefix(digits);
    for (const std::string_view noun : {" messages", " message"}) {
        if (text.starts_with(noun)) {
            text.remove_prefix(noun.size());
            break;
        }
    }
    if (text.starts_with(kHandoffMiddle)) {
        text.remove_prefix(kHandoffMiddle.size());
        while (!text.empty() && text.back() == '\n')
            text.remove_suffix(1);
        summary.body = std::string(text);
        return summary;
    }
    if (!text.starts_with(kSummaryMiddle))
        return std::nullopt;
    text.remove_prefix(kSummaryMiddle.size());
    summary.body = text == kNoToolCalls ? std::string() : std::string(text);
    return summary;
}

std::string summaryText(std::uint64_t cutMessages, const std::string& body) {
    return std::string(kSummaryPrefix) + std::to_string(cutMessages) +
           (cutMessages == 1 ? " message" : " messages") + std::string(kSummaryMiddle) +
           (body.empty() ? std::string(kNoToolCalls) : body) + "]";
}

// "read_file {"path":"a.txt"} -> no such file: a.txt" for each call of an assistant message.
std::string callItems(const ChatMessage& assistant,
                      const std::unordered_map<std::string, std::string_view>& results) {
    std::string items;
    for (const auto& call : assistant.toolCalls) {
        const auto arguments = argumentsText(call.arguments);
        std::string item = call.name + " " + shortened(arguments, kMaxArgumentBytes) + " -> ";
        const auto result = results.find(call.id);
        if (result == results.end()) {
            item += "(no result)";
        } else if (result->second.starts_with(kDroppedPrefix)) {
            item += "(output dropped earlier)";
        } else {
            const auto line = firstNonBlankLine(result->second);
            item += line.empty() ? std::string("(no output)") : shortened(line, kMaxOutcomeBytes);
        }
        items += (items.empty() ? "" : std::string(kItemSeparator)) + item;
    }
    return items;
}

// The latest items of earlier + later that fit kMaxSummaryBodyBytes; the cut marked "...; ". Only the
// tail of a long history is looked at, so building the summary stays linear in its bound.
std::string boundedBody(const std::string& earlier, const std::string& later) {
    std::string joined;
    if (later.size() > kMaxSummaryBodyBytes) {
        joined = later.substr(later.size() - kMaxSummaryBodyBytes);
    } else {
        joined = earlier + (earlier.empty() || later.empty() ? "" : std::string(kItemSeparator)) + later;
        if (joined.size() <= kMaxSummaryBodyBytes)
            return joined;
        joined.erase(0, joined.size() - kMaxSummaryBodyBytes);
    }
    // Start after the first whole separator so that no item is shown half-cut; if the tail is one long
    // item, keep its end.
    const auto room = kMaxSummaryBodyBytes - kOmitted.size();
    auto separator = joined.find(kItemSeparator, joined.size() - room);
    std::size_t start =
        separator == std::string::npos ? joined.size() - room : separator + kItemSeparator.size();
    start += utf8ContinuationPrefix(std::string_view(joined).substr(start));
    return std::string(kOmitted) + joined.substr(start);
}

// The leading system messages and the task's user message.
std::size_t headLength(const std::vector<ChatMessage>& messages) {
    std::size_t head = 0;
    while (head < messages.size() && messages[head].role == "system")
        ++head;
    if (head < messages.size() && messages[head].role == "user" && !isCompactionSummary(messages[head]))
        ++head;
    return head;
}

} // namespace

bool isCompactionSummary(const ChatMessage& message) {
    return parseSummary(message).has_value();
}

ChatMessage handoffSummaryMessage(std::uint64_t summarisedMessages, std::string_view handoff) {
    return {"user",
            std::string(kSummaryPrefix) + std::to_string(summarisedMessages) +
                (summarisedMessages == 1 ? " message" : " messages") + std::string(kHandoffMiddle) +
                std::string(handoff) + "\n]",
            {},
            std::nullopt};
}

bool isDroppedOutput(const ChatMessage& message) {
    return message.role == "tool" && std::string_view(message.content).starts_with(kDroppedPrefix);
}

CompactionResult compactHistory(const std::vector<ChatMessage>& messages, const CompactionOptions& options) {
    CompactionResult result;
    result.messages = messages;
    auto& working = result.messages;
    result.estimatedTokensBefore = estimateTokens(messages);

    const std::size_t count = working.size();
    const std::size_t head = headLength(working);
    const auto previous = head < count ? parseSummary(working[head]) : std::nullopt;
    const std::size_t middleStart = head + (previous ? 1 : 0);
    const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(options.keepRecent, count));
    std::size_t tailStart = std::max(middleStart, count - keep);
    while (tailStart > middleStart && tailStart < count && working[tailStart].role == "tool")
        --tailStart;

    if (options.compressToolResults) {
        for (std::size_t i = middleStart; i < tailStart; ++i) {
            if (working[i].role == "tool")
                working[i].content = compressedToolResult(working[i].content);
        }
    }
    std::uint64_t uncut = estimateTokens(working);
    // Old outputs go first, oldest first: the turns, and what each call was, stay in the conversation.
    if (uncut > options.limitTokens) {
        std::unordered_map<std::string, const protocol::ToolCall*> calls;
        for (std::size_t i = middleStart; i < tailStart; ++i) {
            for (const auto& call : working[i].toolCalls)
                calls.emplace(call.id, &call);
        }
        for (std::size_t i = middleStart; i < tailStart && uncut > options.limitTokens; ++i) {
            auto& message = working[i];
            if (message.role != "tool" || isDroppedOutput(message))
                continue;
            const auto call = message.toolCallId ? calls.find(*message.toolCallId) : calls.end();
            ChatMessage stub = message;
            stub.content = droppedOutputStub(call == calls.end() ? nullptr : call->second, message);
            const auto before = estimateTokens(message);
            const auto after = estimateTokens(stub);
            if (after >= before)
                continue; // a short output says more than its stub
            uncut = uncut - before + after;
            message = std::move(stub);
            ++result.droppedOutputs;
        }
    }
    result.estimatedTokensAfter = uncut;
    if (uncut <= options.limitTokens || middleStart >= tailStart)
        return result;

    // suffix[i]: the tokens of working[i..count).
    std::vector<std::uint64_t> suffix(count + 1, 0);
    for (std::size_t i = count; i-- > 0;)
        suffix[i] = suffix[i + 1] + estimateTokens(working[i]);
    const std::uint64_t headTokens = suffix[0] - suffix[head];

    // What the calls returned as the input held it: an output just dropped still gives its first line.
    std::unordered_map<std::string, std::string_view> results;
    for (std::size_t i = middleStart; i < tailStart; ++i) {
        if (messages[i].role == "tool" && messages[i].toolCallId)
            results.emplace(*messages[i].toolCallId, messages[i].content);
    }

    // Try each turn boundary in order: the first that fits cuts the least.
    const Summary earlier = previous.value_or(Summary{});
    std::string items;
    std::optional<std::size_t> chosenEnd;
    std::uint64_t chosenTokens = uncut;
    ChatMessage chosenSummary;
    for (std::size_t end = middleStart + 1; end <= tailStart; ++end) {
        const auto& cut = working[end - 1];
        if (cut.role == "assistant" && !cut.toolCalls.empty()) {
            const auto more = callItems(cut, results);
            items += (items.empty() ? "" : std::string(kItemSeparator)) + more;
            if (items.size() > 2 * kMaxSummaryBodyBytes)
                items.erase(0, items.size() - 2 * kMaxSummaryBodyBytes);
        }
        if (end < tailStart && working[end].role == "tool")
            continue; // would separate tool results from their assistant message
        ChatMessage summary{
            "user",
            summaryText(earlier.cutMessages + (end - middleStart), boundedBody(earlier.body, items)),
            {},
            std::nullopt};
        const std::uint64_t tokens = headTokens + estimateTokens(summary) + suffix[end];
        if (tokens < chosenTokens) {
            chosenTokens = tokens;
            chosenEnd = end;
            chosenSummary = std::move(summary);
        }
        if (tokens <= options.limitTokens)
            break;
    }
    if (!chosenEnd)
        return result;

    result.summaryIndex = head;
    result.summarisedMessages = earlier.cutMessages + (*chosenEnd - middleStart);
    result.cutMessages.assign(messages.begin() + static_cast<std::ptrdiff_t>(head),
                              messages.begin() + static_cast<std::ptrdiff_t>(*chosenEnd));

    std::vector<ChatMessage> compacted;
    compacted.reserve(head + 1 + (count - *chosenEnd));
    std::move(working.begin(), working.begin() + static_cast<std::ptrdiff_t>(head),
              std::back_inserter(compacted));
    compacted.push_back(std::move(chosenSummary));
    std::move(working.begin() + static_cast<std::ptrdiff_t>(*chosenEnd), working.end(),
              std::back_inserter(compacted));
    result.messages = std::move(compacted);
    result.cutCount = *chosenEnd - middleStart;
    result.estimatedTokensAfter = chosenTokens;
    return result;
}

std::vector<ChatMessage> shedHistory(const std::vector<ChatMessage>& messages) {
    return compactHistory(messages, {0, kShedKeepRecent, true}).messages;
}

} // namespace warren::agent
