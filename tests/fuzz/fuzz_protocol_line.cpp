// Feeds arbitrary bytes through everything that reads what a peer sends: LineReader (in two chunks split
// where the first byte says, with a small cap so over-cap lines are reached), then each line through
// decodeMessage, the params readers of the methods and eventFromJson, and the whole input through
// parseScript. None may crash, leak or trip a sanitizer; whatever decodes must serialize to one line that
// decodes again.

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/LineReader.h"
#include "agent_core/protocol/Methods.h"
#include "agent_core/protocol/Script.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace warren::protocol;

namespace {

void requireRoundTrip(const Message& message) {
    const std::string line = serialize(message);
    if (line.find('\n') != std::string::npos || !parseMessage(line).ok())
        __builtin_trap();
}

void exerciseParams(const Message& message) {
    const auto* request = std::get_if<Request>(&message);
    const auto* notification = std::get_if<Notification>(&message);
    const std::string& method = request        ? request->method
                                : notification ? notification->method
                                               : std::string();
    const nlohmann::json& params = request        ? request->params
                                   : notification ? notification->params
                                                  : nlohmann::json();
    if (method == method::kEvent) {
        if (auto event = eventFromJson(params); event.ok()) {
            requireRoundTrip(toNotification(event.value()));
            if (!eventFromJson(toJson(event.value())).ok())
                __builtin_trap();
        }
    } else if (method == method::kLlmChat) {
        (void)llmChatParamsFromJson(params);
    } else if (method == method::kTaskStart) {
        (void)taskStartParamsFromJson(params);
    } else if (method == method::kApprovalRequest) {
        (void)approvalRequestParamsFromJson(params);
    } else if (method == method::kMemorySearch) {
        (void)memorySearchParamsFromJson(params);
    } else if (method == method::kControlCancel || method == method::kControlPause) {
        (void)controlParamsFromJson(params);
    }
    if (const auto* response = std::get_if<Response>(&message)) {
        (void)llmChatResultFromJson(response->result);
        (void)memoryGetResultFromJson(response->result);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);

    LineReader reader(4096);
    const std::size_t split = size == 0 ? 0 : static_cast<std::uint8_t>(input[0]) % size;
    // The reader never holds more than the cap (plus a pending '\r'), whatever the input.
    const auto requireBounded = [&reader] {
        if (reader.bufferedBytes() > reader.maxLineBytes() + 1)
            __builtin_trap();
    };
    auto items = reader.feed(input.substr(0, split));
    requireBounded();
    auto rest = reader.feed(input.substr(split));
    requireBounded();
    items.insert(items.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
    auto last = reader.finish();
    items.insert(items.end(), std::make_move_iterator(last.begin()), std::make_move_iterator(last.end()));

    for (const auto& item : items) {
        if (!item.ok())
            continue;
        auto decoded = decodeMessage(item.value());
        if (const auto* message = std::get_if<Message>(&decoded)) {
            requireRoundTrip(*message);
            exerciseParams(*message);
        } else {
            requireRoundTrip(toErrorResponse(std::get<InvalidMessage>(decoded)));
        }
    }

    (void)parseScript(input, "fuzz");
    return 0;
}
