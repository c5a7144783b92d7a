// What a coding-agent CLI writes on its stdout, as bytes (the CLI runs in the sandbox: its output is
// hostile input): LineReader with the supervisor's cap (fed in pieces of the size the first byte picks), then
// each line through the translator the first byte picks (ClaudeStream, CodexStream, or CodexAppServer: the
// first byte modulo 3), as CliSupervisor does. Nothing may crash, leak or trip a sanitizer; every event must
// be one the protocol's readers accept again, a tool's output no longer than its bound, and whatever the
// supervisor would write back to the CLI (the answer to a permission ask, the refusal of another request)
// exactly one JSON line.

#include "FuzzInput.h"
#include "agent_core/clis/ClaudePermissions.h"
#include "agent_core/clis/ClaudeStream.h"
#include "agent_core/clis/CodexAppServer.h"
#include "agent_core/clis/CodexPermissions.h"
#include "agent_core/clis/CodexStream.h"
#include "agent_core/protocol/LineReader.h"

#include <variant>

using namespace warren;
using namespace warren::agent;
using warren::fuzz::require;

namespace {

void requireOneJsonLine(const std::string& line) {
    require(!line.empty() && line.back() == '\n' && line.find('\n') == line.size() - 1);
    require(nlohmann::json::accept(line));
}

// The supervisor's answers to a permission ask, and the ask as Warren's call: one JSON line each, arguments
// an object.
void requireAnswers(const ClaudeStream&, const CliPermissionAsk& ask, const std::string& line) {
    requireOneJsonLine(claudePermissionAnswer(ask, true, {}));
    requireOneJsonLine(claudePermissionAnswer(ask, false, line));
    require(warrenCallOf(ask.tool, ask.input).arguments.is_object());
}
void requireAnswers(const CodexStream&, const CliPermissionAsk&, const std::string&) {
    require(false); // codex exec never asks
}
void requireAnswers(const CodexAppServer&, const CliPermissionAsk& ask, const std::string&) {
    requireOneJsonLine(codexPermissionAnswer(ask, true));
    requireOneJsonLine(codexPermissionAnswer(ask, false));
    require(codexWarrenCall(ask).arguments.is_object());
}

template <typename Stream> void translateLines(Stream stream, std::string_view bytes, std::size_t piece) {
    protocol::LineReader reader(4096);
    const auto onLines = [&](auto lines) {
        for (const auto& line : lines) {
            if (!line)
                continue;
            const CliLine out = stream.translate(*line);
            for (const auto& event : out.events) {
                std::visit(
                    [](const auto& payload) {
                        require(std::decay_t<decltype(payload)>::fromJson(payload.toJson()).ok());
                        if constexpr (std::is_same_v<std::decay_t<decltype(payload)>,
                                                     protocol::ToolResultData>)
                            require(payload.output.size() <= kCliToolOutputBytes);
                    },
                    event.payload);
            }
            if (!out.reply.empty())
                requireOneJsonLine(out.reply);
            if (out.permission)
                requireAnswers(stream, *out.permission, *line);
        }
    };
    for (std::size_t at = 0; at < bytes.size(); at += piece)
        onLines(reader.feed(bytes.substr(at, piece)));
    onLines(reader.finish());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::FuzzInput::from(data, size);
    switch (input.pick(3)) {
    case 0:
        translateLines(ClaudeStream(), input.body, input.pieceSize());
        break;
    case 1:
        translateLines(CodexStream(), input.body, input.pieceSize());
        break;
    default:
        translateLines(CodexAppServer("the prompt"), input.body, input.pieceSize());
    }
    return 0;
}
