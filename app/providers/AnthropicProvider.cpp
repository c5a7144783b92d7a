#include "app/providers/AnthropicProvider.h"

#include "app/providers/AnthropicStream.h"
#include "app/providers/HttpChatCall.h"
#include "app/providers/RequestBody.h"

namespace warren::control {

namespace {

QByteArray serialized(const nlohmann::json& body) {
    return QByteArray::fromStdString(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

} // namespace

AnthropicProvider::AnthropicProvider(ProviderConfig config, QNetworkAccessManager* network)
    : m_config(std::move(config)), m_network(network), m_dialect(std::make_shared<AnthropicDialect>()) {}

ChatCall* AnthropicProvider::chat(const protocol::LlmChatParams& params, QObject* parent) {
    HttpChatRequest request;
    request.url = QUrl(QString::fromStdString(m_config.baseUrl + "/v1/messages"));
    request.headers = identificationHeaders(m_config);
    if (!m_config.apiKey.empty())
        request.headers.append(qMakePair(QByteArray("x-api-key"), QByteArray::fromStdString(m_config.apiKey)));
    request.headers.append(qMakePair(QByteArray("anthropic-version"), QByteArray("2023-06-01")));
    request.body = serialized(anthropicRequestBody(params, m_config.model, m_config.maxTokens, *m_dialect));
    request.server = ServerContext{m_config.baseUrl, m_config.name, m_config.keyName, m_config.model, m_config.apiKey};
    request.retry = RetryPolicy{m_config.maxRetries, m_config.retryBaseDelay, m_config.maxRetryDelay};
    request.idleTimeout = m_config.requestTimeout;
    request.access = m_config.access;
    request.makeDecoder = [] { return std::make_unique<AnthropicStream>(); };
    request.adapt = [dialect = m_dialect, params, model = m_config.model, limit = m_config.maxTokens](
                        int, const QByteArray& errorBody) -> std::optional<HttpChatRequest::Adaptation> {
        auto adapted = adaptAnthropic(*dialect, readParameterRefusal(errorBody));
        if (!adapted)
            return std::nullopt;
        *dialect = adapted->anthropic;
        return HttpChatRequest::Adaptation{serialized(anthropicRequestBody(params, model, limit, *dialect)),
                                           adapted->what};
    };
    return new HttpChatCall(m_network, std::move(request), parent);
}

std::string AnthropicProvider::describe() const {
    return "Anthropic " + m_config.model + " at " + m_config.baseUrl;
}

} // namespace warren::control
