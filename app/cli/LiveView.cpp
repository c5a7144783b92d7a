#include "app/cli/LiveView.h"

#include "app/timeline/CallDescription.h"
#include "app/timeline/LimitsDescription.h"
#include "app/timeline/NetworkDescription.h"
#include "app/timeline/SetupDescription.h"
#include "app/timeline/SleepDescription.h"
#include "common/Utf8.h"

#include <optional>

namespace warren::control {
namespace {

using nlohmann::json;
using timeline::withThousands;

constexpr std::size_t kMaxDescriptionChars = 200;       // a tool call's arguments on its one line
constexpr std::size_t kMaxPartialLineBytes = 64 * 1024; // output without a newline is shown in pieces
constexpr std::size_t kFailureOutputLines = 3; // of a failed call's result when it printed nothing itself
constexpr const char* kReplacement = "\xEF\xBF\xBD"; // U+FFFD

// ANSI SGR parameters for what LiveView adds.
constexpr std::string_view kDim = "2";
constexpr std::string_view kBold = "1";
constexpr std::string_view kRed = "31";
constexpr std::string_view kGreen = "32";
constexpr std::string_view kYellow = "33";
constexpr std::string_view kCyan = "36";

// ---- sanitizing -------------------------------------------------------------------------------------------

unsigned char byteAt(std::string_view text, std::size_t i) {
    return static_cast<unsigned char>(text[i]);
}

bool isBidiControl(char32_t codePoint) {
    return (codePoint >= 0x202A && codePoint <= 0x202E) || (codePoint >= 0x2066 && codePoint <= 0x2069);
}

// The C1 control a position holds, as a raw byte (0x80..0x9F, not UTF-8) or encoded as U+0080..U+009F;
// with the number of bytes it takes. nullopt when there is none.
struct C1 {
    unsigned char code;
    std::size_t length;
};
std::optional<C1> c1At(std::string_view text, std::size_t i) {
    const unsigned char c = byteAt(text, i);
    if (c >= 0x80 && c <= 0x9F)
        return C1{c, 1};
    if (c == 0xC2 && i + 1 < text.size() && byteAt(text, i + 1) >= 0x80 && byteAt(text, i + 1) <= 0x9F)
        return C1{byteAt(text, i + 1), 2};
    return std::nullopt;
}

// After a CSI introducer: parameter and intermediate bytes, then one final byte. A sequence cut short by
// anything else ends there, and what it had consumed is dropped.
std::size_t skipCsi(std::string_view text, std::size_t i) {
    while (i < text.size() && byteAt(text, i) >= 0x20 && byteAt(text, i) <= 0x3F)
        ++i;
    if (i < text.size() && byteAt(text, i) >= 0x40 && byteAt(text, i) <= 0x7E)
        ++i;
    return i;
}

// After an OSC, DCS, SOS, PM or APC introducer: everything up to its terminator (BEL, ESC \ or C1 ST),
// or to the end when it has none. Another ESC ends it and starts a sequence of its own.
std::size_t skipControlString(std::string_view text, std::size_t i) {
    while (i < text.size()) {
        const unsigned char c = byteAt(text, i);
        if (c == 0x07)
            return i + 1;
        if (c == 0x1B)
            return i + 1 < text.size() && text[i + 1] == '\\' ? i + 2 : i;
        if (auto c1 = c1At(text, i); c1 && c1->code == 0x9C)
            return i + c1->length;
        ++i;
    }
    return i;
}

bool startsControlString(unsigned char c1Code) {
    return c1Code == 0x90 || c1Code == 0x98 || c1Code == 0x9D || c1Code == 0x9E || c1Code == 0x9F;
}

// After ESC: the rest of the sequence it starts.
std::size_t skipEscape(std::string_view text, std::size_t i) {
    if (i >= text.size())
        return i;
    const unsigned char c = byteAt(text, i);
    if (c == '[')
        return skipCsi(text, i + 1);
    if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_')
        return skipControlString(text, i + 1);
    if (c >= 0x20 && c <= 0x2F) { // ESC ( B and the like: intermediates, then a final byte
        while (i < text.size() && byteAt(text, i) >= 0x20 && byteAt(text, i) <= 0x2F)
            ++i;
        if (i < text.size() && byteAt(text, i) >= 0x30 && byteAt(text, i) <= 0x7E)
            ++i;
        return i;
    }
    if (c >= 0x30 && c <= 0x7E) // ESC c (reset), ESC 7 / ESC 8 (cursor save/restore), ...
        return i + 1;
    return i; // a lone ESC: only it is dropped
}

// ---- formatting -------------------------------------------------------------------------------------------

// One line: newlines shown as ↵, tabs as spaces (a path or command must not fake a line of its own).
std::string oneLine(std::string_view text) {
    const std::string clean = sanitizeForTerminal(text);
    std::string out;
    out.reserve(clean.size());
    for (char c : clean) {
        if (c == '\n')
            out += " \xE2\x86\xB5 "; // ↵
        else if (c == '\t')
            out += ' ';
        else
            out += c;
    }
    return out;
}

// At most maxBytes bytes, cut at a character boundary, with … when cut.
std::string truncated(const std::string& text, std::size_t maxBytes) {
    if (text.size() <= maxBytes)
        return text;
    return std::string(utf8Prefix(text, maxBytes)) + "\xE2\x80\xA6"; // …
}

std::string formatDuration(std::uint64_t ms) {
    if (ms < 1000)
        return std::to_string(ms) + " ms";
    if (ms < 60'000) {
        const std::uint64_t tenths = ms / 100;
        return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " s";
    }
    const std::uint64_t seconds = ms / 1000;
    return std::to_string(seconds / 60) + " min " + std::to_string(seconds % 60) + " s";
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = text.find('\n', start);
        if (end == std::string::npos) {
            if (start < text.size())
                lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

} // namespace

std::string sanitizeForTerminal(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const unsigned char c = byteAt(text, i);
        if (c == '\n' || c == '\t') {
            out += static_cast<char>(c);
            ++i;
        } else if (c == '\r') {
            out += '\n';
            i += i + 1 < text.size() && text[i + 1] == '\n' ? 2u : 1u;
        } else if (c == 0x1B) {
            i = skipEscape(text, i + 1);
        } else if (c < 0x20 || c == 0x7F) {
            ++i;
        } else if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
        } else if (auto c1 = c1At(text, i)) {
            i += c1->length;
            if (c1->code == 0x9B)
                i = skipCsi(text, i);
            else if (startsControlString(c1->code))
                i = skipControlString(text, i);
        } else if (const auto character = utf8CharAt(text, i); !character) {
            out += kReplacement;
            ++i;
        } else {
            if (!isBidiControl(character->codePoint))
                out.append(text.substr(i, character->length));
            i += character->length;
        }
    }
    return out;
}

LiveView::LiveView(LiveViewOptions options) : m_options(std::move(options)) {}

std::string LiveView::paint(std::string_view code, const std::string& text) const {
    if (!m_options.color)
        return text;
    return "\x1b[" + std::string(code) + "m" + text + "\x1b[0m";
}

std::string LiveView::render(const json& event) {
    try {
        return renderEvent(event);
    } catch (const std::exception& error) {
        // The renderers check every field they read; this only keeps a missed case from killing the CLI.
        return closeModelText() + paint(kDim, "(unreadable event: " + oneLine(error.what()) + ")") + "\n";
    }
}

std::string LiveView::closeModelText() {
    if (!m_inModelText)
        return {};
    m_inModelText = false;
    const bool atLineStart = m_modelTextAtLineStart;
    m_modelTextAtLineStart = true;
    return atLineStart ? std::string() : "\n";
}

std::string LiveView::unreadable(const std::string& why) {
    return closeModelText() + paint(kDim, "(unreadable event: " + truncated(oneLine(why), 200) + ")") + "\n";
}

std::string LiveView::renderEvent(const json& event) {
    auto read = timeline::readEvent(event);
    if (!read)
        return unreadable(read.error().message);
    m_fold.apply(*read);
    const protocol::Event& envelope = read->envelope;
    std::string text = std::visit([&](const auto& data) { return renderData(envelope, data); }, read->payload);
    if (envelope.agent)
        text = nested(envelope, text);
    if (!text.empty())
        m_atLineStart = text.back() == '\n';
    return text;
}

std::string LiveView::nested(const protocol::Event& envelope, const std::string& text) {
    const auto depth = m_depth.find(*envelope.agent);
    const std::string prefix = std::string(2 * (depth == m_depth.end() ? 1 : depth->second), ' ') +
                               paint(kDim, "\xE2\x94\x82 " + oneLine(*envelope.agent)) + " ";
    std::string out;
    bool lineStart = m_atLineStart;
    for (const char c : text) {
        if (lineStart && c != '\n')
            out += prefix;
        out += c;
        lineStart = c == '\n';
    }
    return out;
}

std::string LiveView::line(const protocol::Event& envelope, const protocol::AgentStartedData& data) {
    m_depth[envelope.agent.value_or("")] = data.depth;
    return paint(kBold, "\xE2\x86\xB3 started (" + oneLine(data.role) + ") by " +
                            (data.parent ? oneLine(*data.parent) : std::string("the task's agent")) + ": ") +
           truncated(oneLine(data.brief), 200) + "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::AgentFinishedData& data) {
    using protocol::FinishReason;
    std::string headline = data.reason == FinishReason::Finished ? paint(kGreen, "\xE2\x9C\x93 finished")
                           : data.reason == FinishReason::Paused ? paint(kYellow, "\xE2\x96\xA0 paused")
                                                                 : paint(kRed, "\xE2\x9C\x97 " + std::string(toString(data.reason)));
    std::string files;
    for (const auto& file : data.files)
        files += (files.empty() ? "" : ", ") + oneLine(file);
    return headline + (data.summary.empty() ? "" : ": " + truncated(oneLine(data.summary), 300)) +
           (files.empty() ? "" : paint(kDim, " \xC2\xB7 changed " + files)) + "\n";
}

std::string LiveView::renderData(const protocol::Event&, const protocol::ModelDeltaData& data) {
    const std::string text = sanitizeForTerminal(data.text);
    std::string out = flushOutput();
    if (text.empty())
        return out;
    m_inModelText = true;
    m_deltasShown = true;
    m_modelTextAtLineStart = text.back() == '\n';
    return out + text;
}

// Silent: the model text stays open across them.
std::string LiveView::renderData(const protocol::Event&, const protocol::CheckpointData&) {
    return {};
}
std::string LiveView::renderData(const protocol::Event&, const protocol::ResourceSampleData&) {
    return {};
}

std::string LiveView::renderData(const protocol::Event&, const protocol::ToolOutputData& data) {
    return closeModelText() + toolOutput(data);
}

std::string LiveView::renderData(const protocol::Event& envelope, const protocol::ToolResultData& data) {
    return closeModelText() + toolResult(envelope, data);
}

// The other types end the streamed text and the open call's output, then print their line.
std::string LiveView::renderData(const protocol::Event& envelope, const auto& data) {
    std::string out = closeModelText() + flushOutput();
    return out + line(envelope, data);
}

std::string LiveView::line(const protocol::Event&, const protocol::TaskStartedData& data) {
    if (!data.taskId.empty())
        m_options.taskId = data.taskId;
    std::string presetList;
    for (const auto& preset : data.presets)
        presetList += (presetList.empty() ? "" : ", ") + oneLine(preset);
    std::string body = paint(kBold, "\xE2\x97\x8F task " + oneLine(data.taskId)) +
                       (presetList.empty() ? "" : paint(kDim, " \xC2\xB7 presets: " + presetList)) + "\n";
    for (const auto& promptLine : splitLines(sanitizeForTerminal(data.prompt)))
        body += "  " + promptLine + "\n";
    return body;
}

std::string LiveView::line(const protocol::Event&, const protocol::ProjectInstructionsData& data) {
    return paint(kDim, "\xC2\xB7 project instructions: " + oneLine(data.path) + " (" + std::to_string(data.bytes) +
                           " bytes" + (data.truncated ? ", cut to the cap" : "") + ")") +
           "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::TaskResumedData& data) {
    return paint(kBold, "\xE2\x86\xBB resumed from step " + std::to_string(data.fromStep)) +
           (data.interruptedToolCall
                ? paint(kDim, " (call " + oneLine(*data.interruptedToolCall) + " was interrupted)")
                : "") +
           "\n";
}

// The user's reply, whole (like the prompt under task_started).
std::string LiveView::line(const protocol::Event&, const protocol::UserMessageData& data) {
    std::string body = paint(kBold, "\xE2\x97\x8F you replied") + "\n";
    for (const auto& replyLine : splitLines(sanitizeForTerminal(data.text)))
        body += "  " + replyLine + "\n";
    return body;
}

std::string LiveView::line(const protocol::Event& envelope, const protocol::StepStartedData&) {
    m_deltasShown = false;
    return "\n" +
           paint(kDim, "\xE2\x94\x80\xE2\x94\x80 step " + std::to_string(envelope.step) +
                           " \xE2\x94\x80\xE2\x94\x80") +
           "\n";
}

std::string LiveView::line(const protocol::Event& envelope, const protocol::ModelResponseData& data) {
    // The text was already streamed by model_delta: the response only ends the reply, and adds what the
    // model thought when its API showed it, and what its reasoning cost.
    std::string body;
    if (!m_deltasShown && !data.content.empty()) {
        body = sanitizeForTerminal(data.content);
        if (body.back() != '\n')
            body += '\n';
    }
    m_deltasShown = false;
    if (!data.reasoning.empty())
        body += paint(kDim, "thought: " + truncated(oneLine(sanitizeForTerminal(data.reasoning)), 400)) + "\n";
    if (envelope.tokenUsage && envelope.tokenUsage->reasoning > 0)
        body += paint(kDim, "(" + withThousands(envelope.tokenUsage->reasoning) + " reasoning tokens)") + "\n";
    return body;
}

// The card the fold made of the call (tool_call and approval_requested always make one, last).
std::string LiveView::callArguments() const {
    return truncated(oneLine(m_fold.cards().back().arguments), kMaxDescriptionChars);
}

std::string LiveView::line(const protocol::Event& envelope, const protocol::ToolCallData&) {
    if (!envelope.tool)
        return unreadable("event.tool: missing");
    m_deltasShown = false;
    return paint(kCyan, "\xE2\x96\xB6 ") + paint(kBold, oneLine(*envelope.tool)) + "  " + callArguments() +
           "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::FileChangedData& data) {
    std::string mark = "M";
    std::string_view colour = kYellow;
    if (data.change == protocol::FileChange::Created) {
        mark = "A";
        colour = kGreen;
    } else if (data.change == protocol::FileChange::Deleted) {
        mark = "D";
        colour = kRed;
    }
    // Line counts of the change's diff, where the tool knew them ("+3 −1", with a minus sign).
    std::string counts;
    if (data.added || data.removed)
        counts = "  " + paint(kGreen, "+" + std::to_string(data.added.value_or(0))) + " " +
                 paint(kRed, "\xE2\x88\x92" + std::to_string(data.removed.value_or(0)));
    else if (data.binary)
        counts = "  " + paint(kDim, "binary");
    return "  " + paint(colour, mark) + " " + oneLine(data.path) + counts + "\n";
}

std::string LiveView::line(const protocol::Event& envelope, const protocol::ApprovalRequestedData& data) {
    if (!envelope.tool)
        return unreadable("event.tool: missing");
    return paint(kYellow, "? ") + paint(kBold, oneLine(*envelope.tool)) + " " + callArguments() +
           (data.reason.empty() ? "" : " \xE2\x80\x94 " + oneLine(data.reason)) + "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::ApprovalResolvedData& data) {
    return "  " +
           (data.approved ? paint(kGreen, "\xE2\x9C\x93 approved") : paint(kRed, "\xE2\x9C\x97 denied")) +
           (data.decidedBy ? " by " + oneLine(*data.decidedBy) : "") +
           (data.note && !data.note->empty() ? ": " + oneLine(*data.note) : "") + "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::HookData& data) {
    // A hook without a command is an in-process callback: only the ones that tell the user something
    // (memory pressure, an error) are worth a line.
    const bool telling = data.name == "on_low_memory" || data.name == "on_error";
    if (!data.command && !data.error && !telling)
        return {};
    std::string body = paint(kDim, "\xE2\x9A\x99 hook " + oneLine(data.name));
    if (data.command)
        body += paint(kDim, ": " + truncated(oneLine(*data.command), kMaxDescriptionChars));
    else if (!data.detail.empty())
        body += paint(kDim, ": " + truncated(oneLine(data.detail), kMaxDescriptionChars));
    if (data.error)
        body += " " + paint(kRed, "\xC2\xB7 failed: ") + oneLine(*data.error);
    else if (data.exitCode)
        body += " " + (*data.exitCode == 0 ? paint(kDim, "\xC2\xB7 exit 0")
                                           : paint(kRed, "\xC2\xB7 exit " + std::to_string(*data.exitCode)));
    return body + "\n";
}

// The whole plan each time it changes: the terminal cannot redraw the one printed before.
std::string LiveView::line(const protocol::Event&, const protocol::PlanUpdatedData& data) {
    std::string out = paint(kBold, "plan") + (data.explanation.empty() ? "" : ": " + oneLine(data.explanation)) + "\n";
    for (const protocol::PlanStep& step : data.steps) {
        const std::string mark(timeline::planMark(step.status));
        const std::string text = oneLine(step.step);
        switch (step.status) {
        case protocol::PlanStatus::Completed:
            out += "  " + paint(kGreen, mark) + " " + paint(kDim, text) + "\n";
            break;
        case protocol::PlanStatus::InProgress:
            out += "  " + paint(kYellow, mark) + " " + paint(kBold, text) + "\n";
            break;
        case protocol::PlanStatus::Pending:
            out += "  " + paint(kDim, mark) + " " + text + "\n";
            break;
        }
    }
    return out;
}

std::string LiveView::line(const protocol::Event&, const protocol::GuardData& data) {
    const bool stop = data.action == protocol::GuardAction::Stop;
    return paint(stop ? kRed : kYellow, std::string("\xE2\x9A\xA0 ") +
                                            (stop ? "stopped by " : "warning from ") + "guard " +
                                            oneLine(data.guard)) +
           (data.detail.empty() ? "" : ": " + oneLine(data.detail)) + "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::ErrorData& data) {
    if (const auto setup = timeline::describeSetup(data)) // an MCP server that failed: the task goes on
        return paint(kYellow, "\xE2\x9A\xA0 " + oneLine(setup->title)) +
               (setup->detail.empty() ? "" : paint(kYellow, ": ") + oneLine(setup->detail)) + "\n";
    return paint(kRed, data.fatal ? "\xE2\x9C\x97 fatal error: " : "\xE2\x9C\x97 error: ") +
           oneLine(data.message) + "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::LogData& data) {
    if (const auto setup = timeline::describeSetup(data)) {
        if (setup->warning)
            return paint(kYellow, "warning: ") + oneLine(setup->title) + "\n";
        // ✦ the skills offered or changed; ⚙ an MCP server started.
        const bool skills = setup->topic == timeline::SetupDescription::Topic::Skills;
        return paint(skills ? kCyan : kDim, (skills ? "\xE2\x9C\xA6 " : "\xE2\x9A\x99 ") + oneLine(setup->title)) +
               "\n";
    }
    if (data.level == protocol::LogLevel::Warn)
        return paint(kYellow, "warning: ") + oneLine(data.message) + "\n";
    if (data.level == protocol::LogLevel::Error)
        return paint(kRed, "error: ") + oneLine(data.message) + "\n";
    return {};
}

std::string LiveView::line(const protocol::Event&, const protocol::NetworkRequestData& data) {
    const timeline::NetworkDescription described = timeline::describeNetworkRequest(data);
    if (!described.warning)
        return paint(kDim, "\xE2\x87\xA2 " + oneLine(described.title)) + "\n"; // ⇢
    return paint(kYellow, "\xE2\x87\xA2 " + oneLine(described.title) + ": ") + oneLine(described.detail) + "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::ModelCallData& data) {
    const std::string call = "model call: " + oneLine(data.model.empty() ? data.path : data.model) + " (" +
                             std::to_string(data.status) + ")";
    if (data.error)
        return paint(kYellow, "\xE2\x87\xA2 " + call + ": ") + oneLine(*data.error) + "\n";
    return paint(kDim, "\xE2\x87\xA2 " + call + ", " + std::to_string(data.inputTokens) + " tokens in, " +
                           std::to_string(data.outputTokens) + " out") + "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::LimitsAppliedData& data) {
    return paint(kDim, "limits: " + timeline::describeLimits(data)) + "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::TaskSleptData& data) {
    return paint(kDim, timeline::describeSleep(data)) + "\n";
}

std::string LiveView::line(const protocol::Event&, const protocol::TaskFinishedData& data) {
    std::string headline;
    switch (data.reason) {
    case protocol::FinishReason::Finished:
        headline = paint(kGreen, "\xE2\x9C\x93 finished");
        break;
    case protocol::FinishReason::Failed:
        headline = paint(kRed, "\xE2\x9C\x97 failed");
        break;
    case protocol::FinishReason::Guard:
        headline = paint(kRed, "\xE2\x9C\x97 stopped by a guard");
        break;
    case protocol::FinishReason::Waiting:
        headline = paint(kCyan, "? the agent waits for your reply");
        break;
    case protocol::FinishReason::Cancelled:
    case protocol::FinishReason::Paused:
        headline = paint(kYellow, "\xE2\x96\xA0 " + std::string(toString(data.reason)));
        break;
    }
    std::string body = "\n" + headline;
    const auto lines = splitLines(sanitizeForTerminal(data.summary.value_or("")));
    for (std::size_t i = 0; i < lines.size(); ++i)
        body += (i == 0 ? ": " : "\n  ") + lines[i];
    return body + "\n";
}

std::string LiveView::outputLine(bool stderrStream, std::string_view rawLine) {
    if (!rawLine.empty() && rawLine.back() == '\r') // the \r of a \r\n line end, not an overwrite
        rawLine.remove_suffix(1);
    std::string out;
    for (const auto& line : splitLines(sanitizeForTerminal(rawLine) + "\n")) {
        if (m_options.maxOutputLines != 0 && m_outputLinesShown >= m_options.maxOutputLines) {
            ++m_outputLinesHidden;
            continue;
        }
        ++m_outputLinesShown;
        out += (stderrStream ? "  " + paint(kRed, "!") + " " : std::string("    ")) + line + "\n";
    }
    return out;
}

std::string LiveView::toolOutput(const protocol::ToolOutputData& data) {
    const std::string& id = data.id;
    const std::string& text = data.text;
    std::string out;
    if (id != m_openCall) {
        out += flushOutput();
        m_openCall = id;
        m_outputLinesShown = 0;
        m_outputLinesHidden = 0;
    }
    const bool isStderr = data.stream == protocol::OutputStream::Stderr;
    std::string& partial = isStderr ? m_partialStderr : m_partialStdout;
    partial += text;
    // Whole lines only: an escape sequence split across two chunks is then seen whole and removed whole.
    std::size_t start = 0;
    for (auto end = partial.find('\n'); end != std::string::npos; end = partial.find('\n', start)) {
        out += outputLine(isStderr, partial.substr(start, end - start));
        start = end + 1;
    }
    partial.erase(0, start);
    if (partial.size() > kMaxPartialLineBytes) {
        out += outputLine(isStderr, partial);
        partial.clear();
    }
    return out;
}

std::string LiveView::flushOutput() {
    std::string out;
    if (!m_partialStdout.empty())
        out += outputLine(false, m_partialStdout);
    if (!m_partialStderr.empty())
        out += outputLine(true, m_partialStderr);
    m_partialStdout.clear();
    m_partialStderr.clear();
    if (m_outputLinesHidden > 0) {
        const std::string task = m_options.taskId.empty() ? "TASK" : oneLine(m_options.taskId);
        out += paint(kDim, "    \xE2\x80\xA6 " + withThousands(m_outputLinesHidden) +
                               (m_outputLinesHidden == 1 ? " more line" : " more lines") + " (warren show " +
                               task + " for all)") +
               "\n";
        // Further output of the same call is counted as hidden again, not shown from the top.
        m_outputLinesHidden = 0;
    }
    return out;
}

std::string LiveView::toolResult(const protocol::Event& envelope, const protocol::ToolResultData& data) {
    const std::string& id = data.id;
    const auto& exitCode = data.exitCode;
    const bool timedOut = data.timedOut;
    const bool denied = data.denied;
    const bool cached = data.cached;
    const bool interrupted = data.interrupted;
    const bool truncatedForModel = data.truncated;
    const std::string* output = &data.output;
    const auto& durationMs = envelope.durationMs;

    std::string out = flushOutput();
    const bool shownAny = id == m_openCall && m_outputLinesShown > 0;
    m_openCall.clear();
    m_outputLinesShown = 0;

    std::string status;
    bool good = false;
    if (interrupted)
        status = "interrupted";
    else if (denied)
        status = "denied";
    else if (timedOut)
        status = "timed out";
    else if (!exitCode)
        status = "did not finish";
    else {
        good = *exitCode == 0;
        status = "exit " + std::to_string(*exitCode);
    }

    // A failed call that printed nothing (a file tool's refusal, say) would otherwise fail silently.
    if (!good && !denied && !shownAny && output && !output->empty()) {
        const auto lines = splitLines(sanitizeForTerminal(*output));
        for (std::size_t i = 0; i < lines.size() && i < kFailureOutputLines; ++i)
            out += "    " + lines[i] + "\n";
        if (lines.size() > kFailureOutputLines)
            out += paint(kDim, "    \xE2\x80\xA6") + "\n";
    }
    std::string line = good ? paint(kGreen, "\xE2\x9C\x93 " + status) : paint(kRed, "\xE2\x9C\x97 " + status);
    std::string details;
    if (cached)
        details += " \xC2\xB7 cached";
    if (durationMs)
        details += " \xC2\xB7 " + formatDuration(*durationMs);
    if (truncatedForModel)
        details += " \xC2\xB7 output capped for the model";
    return out + "  " + line + paint(kDim, details) + "\n";
}

std::string LiveView::summary(const std::string& status, std::uint64_t steps, std::uint64_t tokensIn,
                              std::uint64_t tokensOut, std::uint64_t elapsedMs) const {
    std::string_view colour = kYellow;
    if (status == "succeeded")
        colour = kGreen;
    else if (status == "failed")
        colour = kRed;
    const std::string details = " \xC2\xB7 " + withThousands(steps) + (steps == 1 ? " step" : " steps") +
                                " \xC2\xB7 " + withThousands(tokensIn) + " in / " + withThousands(tokensOut) +
                                " out tokens \xC2\xB7 " + formatDuration(elapsedMs);
    return paint(colour, oneLine(status)) + paint(kDim, details) + "\n";
}

} // namespace warren::control
