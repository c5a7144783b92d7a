// A model server's streamed reply, as bytes: SseParser (fed whole, then again in pieces of the size the
// first byte picks: the events must be the same), then the events through the decoder the first byte picks
// (bit 0: OpenAiStream or AnthropicStream), as HttpChatCall does. Nothing may crash, leak or trip a
// sanitizer, and a reply the decoder returns must be what the agent can be sent: its JSON (the llm.chat
// result) one line that reads back as the same reply, its tool calls' arguments objects nested no deeper
// than the cap. With bit 1 set the bytes are a failed call's body instead (serverErrorText).

#include "FuzzInput.h"

#include "agent_core/protocol/Methods.h"
#include "app/providers/AnthropicStream.h"
#include "app/providers/HttpFailure.h"
#include "app/providers/OpenAiStream.h"
#include "common/http/SseParser.h"
#include "common/JsonFields.h"

#include <QByteArray>

#include <memory>

using namespace warren;
using warren::fuzz::require;

namespace {

std::vector<SseEvent> parseWhole(std::string_view bytes) {
    SseParser parser;
    auto events = parser.feed(bytes);
    auto last = parser.finish();
    events.insert(events.end(), last.begin(), last.end());
    return events;
}

std::vector<SseEvent> parseInPieces(std::string_view bytes, std::size_t piece) {
    SseParser parser;
    std::vector<SseEvent> events;
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
        auto some = parser.feed(bytes.substr(at, piece));
        events.insert(events.end(), some.begin(), some.end());
    }
    auto last = parser.finish();
    events.insert(events.end(), last.begin(), last.end());
    return events;
}

std::size_t depth(const nlohmann::json& value) {
    std::size_t deepest = 0;
    if (value.is_structured())
        for (const auto& item : value)
            deepest = std::max(deepest, depth(item));
    return value.is_structured() ? deepest + 1 : 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::FuzzInput::from(data, size);
    if (input.selector & 2u) {
        const std::string text =
            control::serverErrorText(QByteArray(input.body.data(), static_cast<qsizetype>(input.body.size())));
        require(text.size() <= 500 + 3); // an excerpt of 500 bytes at most, "..." when cut
        return 0;
    }
    const auto events = parseWhole(input.body);
    require(parseInPieces(input.body, input.pieceSize()) == events);

    std::unique_ptr<control::ChatStreamDecoder> decoder;
    if ((input.selector & 1u) == 0)
        decoder = std::make_unique<control::OpenAiStream>();
    else
        decoder = std::make_unique<control::AnthropicStream>();
    for (const auto& event : events) {
        if (!decoder->feed(event))
            return 0; // after an error the decoder is not fed again
    }
    auto reply = decoder->result();
    require(!reply || decoder->complete());
    if (!reply)
        return 0;
    const std::string line = protocol::toJson(*reply).dump();
    require(line.find('\n') == std::string::npos);
    auto again = protocol::llmChatResultFromJson(nlohmann::json::parse(line));
    require(again.ok() && *again == *reply);
    for (const auto& call : reply->toolCalls)
        require(!call.name.empty() && call.arguments.is_object() && depth(call.arguments) <= json_fields::kMaxJsonDepth);
    return 0;
}
