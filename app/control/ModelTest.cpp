#include "app/control/ModelTest.h"

#include "app/providers/Provider.h"

#include <QTimer>
#include <memory>
#include <utility>

namespace warren::control {

ProviderConfig modelTestConfig(ProviderConfig config) {
    config.maxTokens = 8;
    config.maxRetries = 0;
    return config;
}

Error modelTestTimedOut(const ProviderConfig& config) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(kConnectionTestTimeout).count();
    const bool local = config.keyName.empty() || config.baseUrl.find("://127.") != std::string::npos ||
                       config.baseUrl.find("://localhost") != std::string::npos ||
                       config.baseUrl.find("://[::1]") != std::string::npos; // a server on this computer
    return makeError(
        ErrorCode::Unavailable,
        "no answer from the model server at " + config.baseUrl + " within " + std::to_string(seconds) +
            " s. Check that the server is running there and that the address is right" +
            (local ? std::string("; a local server that is still loading the model answers once it has: "
                                 "test again then")
                   : std::string("; check this computer's network and proxy")) +
            ".");
}

void runModelTest(const ProviderConfig& config, QNetworkAccessManager* network, QObject* context,
                  std::function<void(Status)> done) {
    auto created = createProvider(modelTestConfig(config), network);
    if (!created)
        return done(created.error());
    std::shared_ptr<Provider> held = std::move(*created);
    protocol::LlmChatParams params;
    protocol::ChatMessage question;
    question.role = "user";
    question.content = "Reply with the word OK.";
    params.messages.push_back(std::move(question));
    // The call and its deadline are the context's children: deleting the context aborts both.
    ChatCall* call = held->chat(params, context);
    auto* deadline = new QTimer(call);
    deadline->setSingleShot(true);
    auto answer = std::make_shared<std::function<void(Status)>>(std::move(done)); // whichever comes first
    QObject::connect(call, &ChatCall::finished, context, [call, held, answer] {
        call->deleteLater();
        if (auto reply = std::exchange(*answer, nullptr))
            reply(call->result() ? Status(Ok{}) : Status(call->result().error()));
    });
    QObject::connect(deadline, &QTimer::timeout, context,
                     [call, answer, timedOut = modelTestTimedOut(config)] {
                         auto reply = std::exchange(*answer, nullptr);
                         call->abort(); // its finished() answers no one now
                         if (reply)
                             reply(timedOut);
                     });
    deadline->start(kConnectionTestTimeout);
}

} // namespace warren::control
