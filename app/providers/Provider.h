#pragma once
// A model provider: one llm.chat call at a time per ChatCall, streamed. The tool proxy hands the agent's
// conversation to a Provider and relays the result; the provider holds the real key, which never leaves
// the control plane. Implementations: OpenAiProvider (OpenAI-compatible chat completions: OpenAI, Ollama,
// LM Studio, vLLM, llama.cpp server, OpenRouter), AnthropicProvider (Messages API), ScriptedProvider.

#include "agent_core/protocol/Methods.h"
#include "app/providers/ProviderConfig.h"
#include "common/Result.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>
#include <memory>

class QNetworkAccessManager;

namespace warren::control {

// One model call in flight. Signals are delivered on the thread that created it; finished() is emitted
// exactly once (also after abort(), with an error), and result() is valid from then on.
class ChatCall : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual void abort() = 0; // stop the request; finished() follows with an error "aborted"
    const Result<protocol::LlmChatResult>& result() const { return m_result; }

signals:
    void delta(const QString& text); // a streamed piece of the reply's text, in order
    void retrying(int attempt, qint64 delayMs, const QString& why); // a 429/5xx/dropped call will be retried
    void adapted(const QString& what); // the server refused a parameter; the call goes on with what it takes
    void finished();

protected:
    void finish(Result<protocol::LlmChatResult> result); // sets result() and emits finished() once

private:
    Result<protocol::LlmChatResult> m_result{makeError(ErrorCode::System, "the model call has not finished")};
    bool m_finished = false;
};

class Provider {
public:
    virtual ~Provider() = default;
    // The call is parented to parent; the caller deletes it (deleteLater) after finished().
    virtual ChatCall* chat(const protocol::LlmChatParams& params, QObject* parent) = 0;
    virtual std::string describe() const = 0; // "OpenAI-compatible gpt-4o-mini at http://127.0.0.1:8080/v1"
};

// Headers every model request carries: User-Agent warren/VERSION; for OpenRouter (by name, or a URL on
// openrouter.ai) its app attribution, HTTP-Referer and X-Title.
QList<QPair<QByteArray, QByteArray>> identificationHeaders(const ProviderConfig& config);

// config.apiKey must already hold the key (from SecretStore) for providers that need one. network may
// be null for the scripted provider. An error names what is wrong in the configuration.
Result<std::unique_ptr<Provider>> createProvider(const ProviderConfig& config, QNetworkAccessManager* network);

} // namespace warren::control
