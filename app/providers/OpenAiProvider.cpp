#include "app/providers/OpenAiProvider.h"

#include "app/providers/HttpChatCall.h"
#include "app/providers/OpenAiStream.h"
#include "app/providers/RequestBody.h"

namespace warren::control {

namespace {

// replace: a conversation holding invalid UTF-8 (a tool's binary output) must not throw here.
QByteArray serialized(const nlohmann::json& body) {
    return QByteArray::fromStdString(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

} // namespace

OpenAiProvider::OpenAiProvider(ProviderConfig config, QNetworkAccessManager* network)
    : m_config(std::move(config)), m_network(network),
      m_dialect(std::make_shared<OpenAiDialect>(openAiDialectFor(m_config.name, m_config.model))) {}

ChatCall* OpenAiProvider::chat(const protocol::LlmChatParams& params, QObject* parent) {
    HttpChatRequest request;
    request.url = QUrl(QString::fromStdString(m_config.baseUrl + "/chat/completions"));
    request.headers = identificationHeaders(m_config);
    // Local servers take no key; sending an empty "Bearer " makes some of them refuse the call.
    if (!m_config.apiKey.empty())
        request.headers.append(qMakePair(QByteArray("Authorization"), QByteArray("Bearer ") + QByteArray::fromStdString(m_config.apiKey)));
    request.body = serialized(openAiRequestBody(params, m_config.model, m_config.maxTokens, *m_dialect));
    request.server = ServerContext{m_config.baseUrl, m_config.name, m_config.keyName, m_config.model, m_config.apiKey};
    request.retry = RetryPolicy{m_config.maxRetries, m_config.retryBaseDelay, m_config.maxRetryDelay};
    request.idleTimeout = m_config.requestTimeout;
    request.access = m_config.access;
    request.makeDecoder = [] { return std::make_unique<OpenAiStream>(); };
    // The dialect is the provider's, so what one call learns holds for the task's later calls.
    request.adapt = [dialect = m_dialect, params, model = m_config.model, limit = m_config.maxTokens](
                        int, const QByteArray& errorBody) -> std::optional<HttpChatRequest::Adaptation> {
        auto adapted = adaptOpenAi(*dialect, readParameterRefusal(errorBody));
        if (!adapted)
            return std::nullopt;
        *dialect = adapted->openAi;
        return HttpChatRequest::Adaptation{serialized(openAiRequestBody(params, model, limit, *dialect)),
                                           adapted->what};
    };
    return new HttpChatCall(m_network, std::move(request), parent);
}

std::string OpenAiProvider::describe() const {
    return "OpenAI-compatible " + m_config.model + " at " + m_config.baseUrl;
}

} // namespace warren::control
