#include "app/providers/OpenAiProvider.h"

#include "app/providers/HttpChatCall.h"
#include "app/providers/OpenAiStream.h"
#include "app/providers/RequestBody.h"

namespace warren::control {

OpenAiProvider::OpenAiProvider(ProviderConfig config, QNetworkAccessManager* network)
    : m_config(std::move(config)), m_network(network) {}

ChatCall* OpenAiProvider::chat(const protocol::LlmChatParams& params, QObject* parent) {
    HttpChatRequest request;
    request.url = QUrl(QString::fromStdString(m_config.baseUrl + "/chat/completions"));
    // Local servers take no key; sending an empty "Bearer " makes some of them refuse the call.
    if (!m_config.apiKey.empty())
        request.headers.append(qMakePair(QByteArray("Authorization"), QByteArray("Bearer ") + QByteArray::fromStdString(m_config.apiKey)));
    // replace: a conversation holding invalid UTF-8 (a tool's binary output) must not throw here.
    request.body = QByteArray::fromStdString(openAiRequestBody(params, m_config.model, m_config.maxTokens)
                                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    request.server = ServerContext{m_config.baseUrl, m_config.name, m_config.keyName, m_config.model, m_config.apiKey};
    request.retry = RetryPolicy{m_config.maxRetries, m_config.retryBaseDelay, m_config.maxRetryDelay};
    request.idleTimeout = m_config.requestTimeout;
    request.makeDecoder = [] { return std::make_unique<OpenAiStream>(); };
    return new HttpChatCall(m_network, std::move(request), parent);
}

std::string OpenAiProvider::describe() const {
    return "OpenAI-compatible " + m_config.model + " at " + m_config.baseUrl;
}

} // namespace warren::control
