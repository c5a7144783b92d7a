#pragma once
// What a model server accepts in a request, per API, and how Warren learns it. The official services get
// the parameters their current models demand (OpenAI: max_completion_tokens, reasoning_effort only for
// reasoning models); other servers start from what most of them take (max_tokens). A server that refuses
// a parameter with a 400 naming it (OpenAI's error.param, "Unsupported parameter: 'max_tokens' ...",
// Anthropic's "max_tokens: 64000 > 8192, which is the maximum ...") gets the request adapted once, and the
// provider keeps the adapted dialect for the rest of the task. Pure: the refusal's text in, a dialect out.

#include <QByteArray>

#include <cstdint>
#include <optional>
#include <string>

namespace warren::control {

struct OpenAiDialect {
    enum class LimitField { MaxTokens, MaxCompletionTokens };
    LimitField limitField = LimitField::MaxTokens;
    bool reasoningEffort = true; // sends reasoning_effort when the task asks for one
    bool streamOptions = true;   // asks for the usage in the last chunk (stream_options.include_usage)
    std::uint64_t limitCeiling = 0; // the most output tokens the server said it allows; 0: not known
    friend bool operator==(const OpenAiDialect&, const OpenAiDialect&) = default;
};

struct AnthropicDialect {
    bool thinking = true;           // sends thinking when the task asks for reasoning
    std::uint64_t limitCeiling = 0; // from "max_tokens: N > M, which is the maximum ..."; 0: not known
    friend bool operator==(const AnthropicDialect&, const AnthropicDialect&) = default;
};

// OpenAI's reasoning models (o1, o3, o4-mini, the GPT-5 family but gpt-5-chat), with or without a
// router's "openai/" prefix: they refuse max_tokens and temperature, and take reasoning_effort.
bool isOpenAiReasoningModel(const std::string& model);

// providerName as ProviderConfig::name: "openai" gets max_completion_tokens and reasoning_effort only for
// reasoning models; every other server max_tokens and reasoning_effort, until it refuses them.
OpenAiDialect openAiDialectFor(const std::string& providerName, const std::string& model);

// The output token limit a provider sends when the task sets none (max_output_tokens 0): OpenAI 32768 for
// reasoning models (reasoning counts against it) and 16384 for others, Anthropic and OpenRouter 16384,
// servers on this machine or reached by URL 0 (none sent: the server's own, usually the context left).
std::uint64_t defaultOutputLimit(const std::string& providerName, const std::string& model);

// A 400's body, read for the parameter it refuses: error.param, else the name quoted in the message.
struct ParameterRefusal {
    std::string param;   // "max_tokens", "reasoning_effort", ...; empty when the body names none
    std::string code;    // error.code: "unsupported_parameter", "unsupported_value", ...
    std::string message; // error.message
};
ParameterRefusal readParameterRefusal(const QByteArray& body);

// The dialect that meets the refusal, and what changed ("max_completion_tokens instead of max_tokens"),
// or nullopt when it names nothing Warren can change, or asks for what the dialect already does (so a
// server cannot make a call go round in circles).
struct Adapted {
    OpenAiDialect openAi;
    AnthropicDialect anthropic;
    std::string what;
};
std::optional<Adapted> adaptOpenAi(const OpenAiDialect& dialect, const ParameterRefusal& refusal);
std::optional<Adapted> adaptAnthropic(const AnthropicDialect& dialect, const ParameterRefusal& refusal);

} // namespace warren::control
