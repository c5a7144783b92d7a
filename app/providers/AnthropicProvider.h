#pragma once
// Anthropic Messages API: POST {baseUrl}/v1/messages, streamed, with `x-api-key` (when set) and
// `anthropic-version: 2023-06-01`.

#include "app/providers/Provider.h"
#include "app/providers/RequestDialect.h"

#include <memory>

namespace warren::control {

class AnthropicProvider : public Provider {
public:
    // network must outlive the provider and its calls.
    AnthropicProvider(ProviderConfig config, QNetworkAccessManager* network);
    ChatCall* chat(const protocol::LlmChatParams& params, QObject* parent) override;
    std::string describe() const override;

private:
    ProviderConfig m_config;
    QNetworkAccessManager* m_network;
    std::shared_ptr<AnthropicDialect> m_dialect; // what the server takes, learned from its refusals during the task
};

} // namespace warren::control
