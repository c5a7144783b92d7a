#pragma once
// A flooding agent's events for the ingestion benchmarks: the JSON lines warren-agent writes on stdout
// (JSON-RPC "event" notifications), the rows a task runner makes of them, and the real path's decoding
// (LineReader, decodeMessage, eventFromJson) from one to the other.

#include "agent_core/protocol/Event.h"
#include "app/store/StoreTypes.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace warren::bench {

inline constexpr std::size_t kChunkBytes = 64 * 1024; // how much of the stream one read hands on

// Prints "bench: WHAT" and exits 1.
[[noreturn]] void benchFail(const std::string& what);

// Event seq of a busy task's mix: mostly streamed tool output, with the steps, calls and results around it.
protocol::Event makeEvent(std::uint64_t seq);

// The conversion a task runner makes: the envelope fields as columns, the whole object as the body.
control::EventRow eventRow(const std::string& taskId, const protocol::Event& event, std::string body);

struct AgentStream {
    std::string lines;                   // the agent's stdout, exactly as it writes it
    std::vector<control::EventRow> rows; // the same events as rows (the same bodies)
};
AgentStream agentStream(const std::string& taskId, std::uint64_t count);

// Feeds the stream in kChunkBytes chunks and hands each chunk's rows to sink; returns the number of events
// decoded. Exits on a line that is not an event.
std::uint64_t decodeStream(const std::string& taskId, const std::string& stream,
                           const std::function<void(std::vector<control::EventRow>)>& sink);

} // namespace warren::bench
