#include "app/modelproxy/ModelUsage.h"

#include "common/JsonFields.h"

#include <nlohmann/json.hpp>

namespace warren::control {

namespace {

using nlohmann::json;

std::uint64_t count(const json& usage, const char* name) {
    const auto it = usage.find(name);
    return it != usage.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

bool has(const json& usage, const char* name) {
    const auto it = usage.find(name);
    return it != usage.end() && it->is_number_unsigned();
}

// A document's usage into out: a count that is present replaces the one before (Anthropic's message_delta
// carries the running output count, and on newer models the input count again).
void readUsage(const json& usage, ModelUsage& out) {
    if (!usage.is_object())
        return;
    if (has(usage, "input_tokens"))
        out.inputTokens = count(usage, "input_tokens") + count(usage, "cache_creation_input_tokens") +
                          count(usage, "cache_read_input_tokens");
    else if (has(usage, "prompt_tokens"))
        out.inputTokens = count(usage, "prompt_tokens");
    if (has(usage, "output_tokens"))
        out.outputTokens = count(usage, "output_tokens");
    else if (has(usage, "completion_tokens"))
        out.outputTokens = count(usage, "completion_tokens");
}

void readDocument(const json& document, ModelUsage& out) {
    if (!document.is_object())
        return;
    const auto member = [&document](const char* name) -> const json* {
        const auto it = document.find(name);
        return it == document.end() ? nullptr : &*it;
    };
    for (const json* holder : {&document, member("message"), member("response")}) {
        if (holder == nullptr || !holder->is_object())
            continue;
        if (const auto model = holder->find("model"); model != holder->end() && model->is_string())
            out.model = model->get<std::string>();
        if (const auto usage = holder->find("usage"); usage != holder->end())
            readUsage(*usage, out);
    }
}

} // namespace

void ModelUsageReader::take(std::string_view text) {
    // The provider's bytes: read with the depth cap, and by type (an answer is not trusted to be well formed).
    if (const auto document = json_fields::parseJson(text))
        readDocument(*document, m_usage);
}

void ModelUsageReader::feed(std::string_view bytes) {
    if (!m_eventStream) {
        if (m_json.size() + bytes.size() > kMaxJsonBytes)
            m_tooLarge = true;
        if (!m_tooLarge)
            m_json.append(bytes);
        return;
    }
    for (const SseEvent& event : m_parser.feed(bytes))
        take(event.data);
}

void ModelUsageReader::finish() {
    if (!m_eventStream) {
        if (!m_tooLarge)
            take(m_json);
        m_json.clear();
        return;
    }
    for (const SseEvent& event : m_parser.finish())
        take(event.data);
}

std::string requestModel(std::string_view body) {
    // Every top-level member but "model" is skipped as it is read: the messages are never built, so a body of
    // 32 MiB costs no tree of its own, and nesting under them (the parser is iterative) builds nothing.
    const json::parser_callback_t topLevelOnly = [](int depth, json::parse_event_t event, json& parsed) {
        return event != json::parse_event_t::key || depth != 1 || parsed == "model";
    };
    const json document = json::parse(body, topLevelOnly, false);
    if (!document.is_object())
        return {};
    const auto model = document.find("model");
    return model != document.end() && model->is_string() ? model->get<std::string>() : std::string();
}

} // namespace warren::control
