#include "app/providers/Provider.h"

#include "app/providers/AnthropicProvider.h"
#include "app/providers/OpenAiProvider.h"
#include "app/providers/ScriptedProvider.h"

#include <QUrl>

namespace warren::control {

void ChatCall::finish(Result<protocol::LlmChatResult> result) {
    if (m_finished)
        return;
    m_finished = true;
    m_result = std::move(result);
    emit finished();
}

namespace {

// The hosted services refuse every call without a key; saying so before the first call is kinder than
// a 401. Servers reached by URL or on localhost may not need one.
bool needsKey(const ProviderConfig& config) {
    return config.name == "openai" || config.name == "anthropic" || config.name == "openrouter";
}

} // namespace

QList<QPair<QByteArray, QByteArray>> identificationHeaders(const ProviderConfig& config) {
    QList<QPair<QByteArray, QByteArray>> headers{
        qMakePair(QByteArray("User-Agent"), QByteArray("warren/" WARREN_VERSION))};
    const QUrl url(QString::fromStdString(config.baseUrl));
    const QString host = url.host().toLower();
    if (config.name == "openrouter" || host == QLatin1String("openrouter.ai") ||
        host.endsWith(QLatin1String(".openrouter.ai"))) {
        // The referer is the project's home page when the build names one; none is better than a made-up one.
        if (const QByteArray homepage(WARREN_HOMEPAGE); !homepage.isEmpty())
            headers.append(qMakePair(QByteArray("HTTP-Referer"), homepage));
        headers.append(qMakePair(QByteArray("X-Title"), QByteArray("Warren")));
    }
    return headers;
}

Result<std::unique_ptr<Provider>> createProvider(const ProviderConfig& config, QNetworkAccessManager* network) {
    if (config.kind == ProviderConfig::Kind::Scripted) {
        if (config.scriptPath.empty())
            return makeError(ErrorCode::InvalidArgument, "the scripted provider needs a script file (scripted:FILE)");
        auto scripted = ScriptedProvider::load(config.scriptPath);
        if (!scripted)
            return scripted.error();
        return std::unique_ptr<Provider>(std::move(scripted).value());
    }
    const std::string name = config.name.empty() ? providerKindName(config.kind) : config.name;
    if (!network)
        return makeError(ErrorCode::System, "the " + name + " provider was created without a network access manager");
    if (config.model.empty())
        return makeError(ErrorCode::InvalidArgument, "the " + name + " provider needs a model: pass --model NAME");
    const QUrl url(QString::fromStdString(config.baseUrl), QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")) ||
        url.host().isEmpty())
        return makeError(ErrorCode::InvalidArgument,
                         "the " + name + " provider's URL \"" + config.baseUrl + "\" is not an http(s) URL");
    if (config.apiKey.empty() && needsKey(config))
        return makeError(ErrorCode::InvalidArgument, "no API key is stored as '" + config.keyName + "' for the " +
                                                         name + " provider: add it with warren secrets set " +
                                                         config.keyName);
    if (config.kind == ProviderConfig::Kind::Anthropic)
        return std::unique_ptr<Provider>(std::make_unique<AnthropicProvider>(config, network));
    return std::unique_ptr<Provider>(std::make_unique<OpenAiProvider>(config, network));
}

} // namespace warren::control
