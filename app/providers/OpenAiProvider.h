#pragma once
// OpenAI-compatible chat completions (OpenAI, Ollama, LM Studio, vLLM, llama.cpp server, OpenRouter):
// POST {baseUrl}/chat/completions, streamed, with `Authorization: Bearer KEY` when a key is set.

#include "app/providers/Provider.h"

namespace warren::control {

class OpenAiProvider : public Provider {
public:
    // network must outlive the provider and its calls.
    OpenAiProvider(ProviderConfig config, QNetworkAccessManager* network);
    ChatCall* chat(const protocol::LlmChatParams& params, QObject* parent) override;
    std::string describe() const override;

private:
    ProviderConfig m_config;
    QNetworkAccessManager* m_network;
};

} // namespace warren::control
