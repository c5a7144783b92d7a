#pragma once
// What a user reads when a model server refuses a call: the server, the status, the server's own words
// and what to do. Pure; never contains the API key, even when a server echoes it back.

#include <QByteArray>

#include <string>

namespace warren::control {

struct ServerContext {
    std::string url;      // the base URL, as configured
    std::string provider; // "openai", "ollama", ...
    std::string keyName;  // the SecretStore entry; empty for a server without a key
    std::string model;
    std::string apiKey;   // only to remove it from anything shown
};

// The server's error message from its JSON body (OpenAI and Anthropic both use error.message; some
// servers send {"error": "text"} or {"detail": ...}), else the body as text; at most 500 bytes.
std::string serverErrorText(const QByteArray& body);

// "the model server at URL answered 401 Unauthorized: <server text>; check the API key stored as ...".
// attempts > 1 says how often it answered so before Warren gave up.
std::string describeHttpStatus(const ServerContext& server, int status, const QByteArray& reason,
                               const QByteArray& body, int attempts);

// message with every occurrence of the key replaced, for any text that passes through from a server.
std::string withoutKey(std::string message, const std::string& apiKey);

} // namespace warren::control
