#include "app/providers/RequestDialect.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <regex>

namespace warren::control {

using nlohmann::json;

namespace {

std::string lower(std::string text) {
    for (char& c : text)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

// The first number after marker in text, or 0.
std::uint64_t numberAfter(const std::string& text, const std::regex& pattern) {
    std::smatch match;
    if (!std::regex_search(text, match, pattern) || match.size() < 2)
        return 0;
    try {
        return std::stoull(match[1].str());
    } catch (...) {
        return 0;
    }
}

const char* limitFieldName(OpenAiDialect::LimitField field) {
    return field == OpenAiDialect::LimitField::MaxTokens ? "max_tokens" : "max_completion_tokens";
}

} // namespace

bool isOpenAiReasoningModel(const std::string& model) {
    std::string name = lower(model);
    if (name.starts_with("openai/"))
        name = name.substr(7);
    if (name.starts_with("gpt-5"))
        return !contains(name, "-chat"); // gpt-5-chat-latest is the non-reasoning ChatGPT model
    return name.starts_with("o1") || name.starts_with("o3") || name.starts_with("o4") ||
           name.starts_with("codex-");
}

OpenAiDialect openAiDialectFor(const std::string& providerName, const std::string& model) {
    OpenAiDialect dialect;
    if (providerName == "openai") {
        // OpenAI deprecated max_tokens: every current model takes max_completion_tokens, reasoning models
        // take nothing else. reasoning_effort is refused by the models that do not reason.
        dialect.limitField = OpenAiDialect::LimitField::MaxCompletionTokens;
        dialect.reasoningEffort = isOpenAiReasoningModel(model);
    }
    return dialect;
}

std::uint64_t defaultOutputLimit(const std::string& providerName, const std::string& model) {
    if (providerName == "openai")
        return isOpenAiReasoningModel(model) ? 32768 : 16384;
    if (providerName == "anthropic" || providerName == "openrouter")
        return 16384;
    return 0;
}

ParameterRefusal readParameterRefusal(const QByteArray& body) {
    ParameterRefusal refusal;
    const json document = json::parse(body.toStdString(), nullptr, false);
    if (document.is_discarded() || !document.is_object())
        return refusal;
    const auto error = document.find("error");
    if (error == document.end())
        return refusal;
    if (error->is_string()) {
        refusal.message = error->get<std::string>();
    } else if (error->is_object()) {
        refusal.message = error->value("message", std::string());
        if (const auto param = error->find("param"); param != error->end() && param->is_string())
            refusal.param = param->get<std::string>();
        if (const auto code = error->find("code"); code != error->end() && code->is_string())
            refusal.code = code->get<std::string>();
    }
    if (refusal.param.empty()) {
        // Servers that copy OpenAI's words without its error.param, and Anthropic ("max_tokens: ...").
        static const std::regex quoted(R"((?:Unsupported parameter|Unsupported value|Unrecognized request argument supplied):\s*'?([A-Za-z_.]+)'?)");
        static const std::regex leading(R"(^([a-z_]+):\s)");
        std::smatch match;
        if (std::regex_search(refusal.message, match, quoted) || std::regex_search(refusal.message, match, leading))
            refusal.param = match[1].str();
    }
    return refusal;
}

std::optional<Adapted> adaptOpenAi(const OpenAiDialect& dialect, const ParameterRefusal& refusal) {
    const std::string message = lower(refusal.message);
    const std::string current = limitFieldName(dialect.limitField);
    Adapted adapted{dialect, {}, {}};
    if (refusal.param == current) {
        // "max_tokens is too large: 100000. This model supports at most 16384 completion tokens".
        static const std::regex atMost(R"(at most (\d+))");
        if (const std::uint64_t ceiling = numberAfter(message, atMost);
            ceiling > 0 && ceiling != dialect.limitCeiling) {
            adapted.openAi.limitCeiling = ceiling;
            adapted.what = current + " of at most " + std::to_string(ceiling);
            return adapted;
        }
        if (refusal.code == "unsupported_value" || contains(message, "too large"))
            return std::nullopt;
        adapted.openAi.limitField = dialect.limitField == OpenAiDialect::LimitField::MaxTokens
                                        ? OpenAiDialect::LimitField::MaxCompletionTokens
                                        : OpenAiDialect::LimitField::MaxTokens;
        adapted.what = std::string(limitFieldName(adapted.openAi.limitField)) + " instead of " + current;
        return adapted;
    }
    if (refusal.param == "reasoning_effort" && dialect.reasoningEffort) {
        adapted.openAi.reasoningEffort = false;
        adapted.what = "no reasoning_effort";
        return adapted;
    }
    if ((refusal.param == "stream_options" || refusal.param.starts_with("stream_options.")) && dialect.streamOptions) {
        adapted.openAi.streamOptions = false;
        adapted.what = "no stream_options";
        return adapted;
    }
    return std::nullopt;
}

std::optional<Adapted> adaptAnthropic(const AnthropicDialect& dialect, const ParameterRefusal& refusal) {
    Adapted adapted{{}, dialect, {}};
    // "max_tokens: 16384 > 8192, which is the maximum allowed number of output tokens for claude-..."
    if (refusal.param == "max_tokens") {
        static const std::regex maximum(R"(>\s*(\d+),? which is the maximum)");
        const std::uint64_t ceiling = numberAfter(refusal.message, maximum);
        if (ceiling == 0 || ceiling == dialect.limitCeiling)
            return std::nullopt;
        adapted.anthropic.limitCeiling = ceiling;
        adapted.what = "max_tokens of at most " + std::to_string(ceiling);
        return adapted;
    }
    // "'claude-3-5-haiku-20241022' does not support thinking."
    if (dialect.thinking && (refusal.param == "thinking" || contains(lower(refusal.message), "does not support thinking"))) {
        adapted.anthropic.thinking = false;
        adapted.what = "no extended thinking";
        return adapted;
    }
    return std::nullopt;
}

} // namespace warren::control
