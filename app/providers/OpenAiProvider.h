#pragma once
// OpenAI-compatible chat completions (OpenAI, Ollama, LM Studio, vLLM, llama.cpp server, OpenRouter):
// POST {baseUrl}/chat/completions, streamed, with `Authorization: Bearer KEY` when a key is set. The body's
// dialect (RequestDialect.h) follows the provider and model, and what the server refuses.

#include "app/providers/Provider.h"
#include "app/providers/RequestDialect.h"

#include <memory>

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
    std::shared_ptr<OpenAiDialect> m_dialect; // what the server takes, learned from its refusals during the task
};

} // namespace warren::control
