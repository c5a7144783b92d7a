#include "bench/AgentEventStream.h"

#include "agent_core/protocol/EventTypes.h"
#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/LineReader.h"
#include "agent_core/protocol/Methods.h"

#include <cstdio>
#include <cstdlib>

namespace warren::bench {

using namespace warren::control;

[[noreturn]] void benchFail(const std::string& what) {
    std::fprintf(stderr, "bench: %s\n", what.c_str());
    std::exit(1);
}

// A busy task's mix: mostly streamed tool output, with the steps, calls and results around it.
protocol::Event makeEvent(std::uint64_t seq) {
    protocol::Event event;
    event.seq = seq;
    event.ts = 1'780'000'000'000 + static_cast<protocol::UnixMillis>(seq);
    event.step = 1 + seq / 50;
    switch (seq % 50) {
    case 0:
        event.type = protocol::event_type::kStepStarted;
        break;
    case 1:
        event.type = protocol::event_type::kToolCall;
        event.tool = "shell";
        event.data = {{"id", "call-" + std::to_string(seq)}, {"arguments", {{"command", "make -j2 all"}}}};
        break;
    case 49:
        event.type = protocol::event_type::kToolResult;
        event.tool = "shell";
        event.durationMs = 1234;
        event.data = {{"id", "call-" + std::to_string(seq - 48)}, {"exit_code", 0}, {"output_bytes", 4096}};
        break;
    default:
        event.type = protocol::event_type::kToolOutput;
        event.tool = "shell";
        event.data = {
            {"stream", "stdout"},
            {"text", "[" + std::to_string(seq) + "/200000] CXX app/store/Store.cpp -> Store.cpp.o\n"}};
        break;
    }
    return event;
}

// The conversion a task runner makes: the event's envelope fields as columns, the whole object as the body.
EventRow eventRow(const std::string& taskId, const protocol::Event& event, std::string body) {
    EventRow row;
    row.taskId = taskId;
    row.seq = event.seq;
    row.ts = protocol::formatTimestamp(event.ts);
    row.type = event.type;
    row.step = event.step;
    row.tool = event.tool.value_or("");
    row.body = std::move(body);
    return row;
}

// Feeds the stream in chunks and hands each chunk's rows to sink; returns the number of events decoded.
std::uint64_t decodeStream(const std::string& taskId, const std::string& stream,
                           const std::function<void(std::vector<EventRow>)>& sink) {
    protocol::LineReader reader;
    std::uint64_t decoded = 0;
    for (std::size_t offset = 0; offset < stream.size(); offset += kChunkBytes) {
        std::vector<EventRow> rows;
        for (auto& line : reader.feed(std::string_view(stream).substr(offset, kChunkBytes))) {
            if (!line)
                benchFail(line.error().message);
            auto message = protocol::decodeMessage(line.value());
            auto* decodedMessage = std::get_if<protocol::Message>(&message);
            auto* notification =
                decodedMessage ? std::get_if<protocol::Notification>(decodedMessage) : nullptr;
            if (!notification || notification->method != protocol::method::kEvent)
                benchFail("a line is not an event notification: " + line.value().substr(0, 80));
            auto event = protocol::eventFromJson(notification->params);
            if (!event)
                benchFail(event.error().message);
            rows.push_back(eventRow(taskId, event.value(), notification->params.dump()));
            ++decoded;
        }
        sink(std::move(rows));
    }
    if (!reader.finish().empty())
        benchFail("the stream ends in the middle of a line");
    return decoded;
}

AgentStream agentStream(const std::string& taskId, std::uint64_t count) {
    AgentStream out;
    out.rows.reserve(count);
    for (std::uint64_t seq = 1; seq <= count; ++seq) {
        const auto event = makeEvent(seq);
        const auto notification = protocol::toNotification(event);
        out.lines += protocol::serialize(protocol::Message{notification});
        out.lines += '\n';
        out.rows.push_back(eventRow(taskId, event, notification.params.dump()));
    }
    return out;
}

} // namespace warren::bench
