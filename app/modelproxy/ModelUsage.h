#pragma once
// What a model call cost, read from its answer as the answer passes through the proxy: Anthropic's
// message_start and message_delta usage, the Responses API's response.completed usage, Chat Completions'
// usage chunk (when the client asked for it), or the usage of a whole JSON answer. One reader for all three
// formats: each names its counts input_tokens/output_tokens or prompt_tokens/completion_tokens, in the
// object itself, its "message" (Anthropic's message_start) or its "response" (the Responses API). Pure.

#include "common/http/SseParser.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace warren::control {

struct ModelUsage {
    std::uint64_t inputTokens = 0;  // with Anthropic's cache reads and writes
    std::uint64_t outputTokens = 0;
    std::string model;              // as the answer names it; empty when it does not
};

class ModelUsageReader {
public:
    // eventStream: the answer is text/event-stream; otherwise one JSON document, read at finish (up to
    // kMaxJsonBytes; a larger one is counted as no usage).
    explicit ModelUsageReader(bool eventStream) : m_eventStream(eventStream) {}
    void feed(std::string_view bytes);
    void finish();
    const ModelUsage& usage() const { return m_usage; }

    static constexpr std::size_t kMaxJsonBytes = 16u * 1024 * 1024;

private:
    void take(std::string_view json);

    bool m_eventStream;
    SseParser m_parser;
    std::string m_json;
    bool m_tooLarge = false;
    ModelUsage m_usage;
};

// The top-level "model" of a request body, or empty (not JSON, none, not a string). Reads only the top
// level: the conversation under it is skipped, not built.
std::string requestModel(std::string_view body);

} // namespace warren::control
