#include "app/providers/HttpFailure.h"

#include "app/providers/ChatStreamDecoder.h"
#include "common/JsonFields.h"

#include <nlohmann/json.hpp>

namespace warren::control {

using nlohmann::json;

namespace {

constexpr std::size_t kServerTextLimit = 500;

std::string hint(const ServerContext& server, int status) {
    if (status == 401 || status == 403) {
        if (server.keyName.empty())
            return "the server wants an API key, and the " + server.provider + " provider has none";
        return "check the API key stored as '" + server.keyName + "' (warren secrets set " + server.keyName + ")";
    }
    if (status == 404)
        return "check the URL and that the server has the model '" + server.model + "'";
    if (status == 429)
        return "the account is rate limited or out of quota; wait, or check its plan and billing";
    if (status >= 500)
        return "the server failed; try again later";
    return "the request was refused";
}

} // namespace

std::string serverErrorText(const QByteArray& body) {
    const std::string text = body.trimmed().toStdString();
    const auto parsed = json_fields::parseJson(text); // depth-capped: it->dump() below recurses
    const json document = parsed ? *parsed : json();
    if (document.is_object()) {
        for (const char* key : {"error", "detail", "message"}) {
            const auto it = document.find(key);
            if (it == document.end())
                continue;
            if (it->is_string())
                return excerpt(it->get<std::string>(), kServerTextLimit);
            if (it->is_object()) {
                const auto message = it->find("message");
                if (message != it->end() && message->is_string())
                    return excerpt(message->get<std::string>(), kServerTextLimit);
            }
            return excerpt(it->dump(), kServerTextLimit);
        }
    }
    return excerpt(text, kServerTextLimit);
}

std::string describeHttpStatus(const ServerContext& server, int status, const QByteArray& reason,
                               const QByteArray& body, int attempts) {
    std::string message = "the model server at " + server.url + " answered " + std::to_string(status);
    if (!reason.isEmpty())
        message += " " + reason.toStdString();
    if (attempts > 1)
        message += " " + std::to_string(attempts) + " times, and Warren gave up";
    if (const std::string text = serverErrorText(body); !text.empty())
        message += ": " + text;
    message += "; " + hint(server, status);
    return withoutKey(std::move(message), server.apiKey);
}

std::string withoutKey(std::string message, const std::string& apiKey) {
    if (apiKey.empty())
        return message;
    const std::string replacement = "[the API key]";
    for (auto at = message.find(apiKey); at != std::string::npos; at = message.find(apiKey, at + replacement.size()))
        message.replace(at, apiKey.size(), replacement);
    return message;
}

} // namespace warren::control
