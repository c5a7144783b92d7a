#pragma once
// The control plane's end of a CLI's model calls (DESIGN §11): a transparent, authenticated reverse proxy
// for the wire formats Claude Code and Codex speak. One per running task, listening on a Unix socket that is
// mounted into the task's sandbox (warren-agent forwards 127.0.0.1:PORT there, bytes unchanged). Per
// connection it reads one request (ModelRequestHead), takes only the CLI's routes (ModelRoute), checks the
// task token the CLI holds as its API key, asks the task whether the call may go (admission: the workspace
// snapshot, the budget), then forwards the body unchanged with the real key in place of the token and
// streams the answer back as it arrives, the key masked out of it (KeyMask). Each forwarded call is reported
// with its usage (ModelUsage). The sandbox side is one request per connection (Connection: close). The calls
// share one QNetworkAccessManager, which keeps its connections to the provider alive between calls; over
// HTTP/1.1 it opens at most six to one host, so a seventh concurrent call waits for one of them to end
// (an HTTPS provider speaks HTTP/2, which carries them all on one connection).

#include "agent_core/protocol/EventPayloads.h"
#include "app/egress/InsideDestinations.h"
#include "app/providers/ProviderConfig.h"
#include "common/Result.h"
#include "common/UniqueFd.h"

#include <QObject>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

class QLocalServer;
class QNetworkAccessManager;

namespace warren::control {

// Where the calls go, and with which key. kind: Anthropic or OpenAi; baseUrl as ProviderConfig's
// (Anthropic "https://api.anthropic.com", OpenAI ".../v1"). access, when set (warrend, an endpoint a user
// named): every call resolves the host itself and connects only to an address insideReachable allows,
// with the name kept as Host and TLS peer name; redirects are never followed, with or without it.
struct ModelUpstream {
    ProviderConfig::Kind kind = ProviderConfig::Kind::Anthropic;
    std::string baseUrl;
    std::string apiKey; // never in anything sent to the sandbox, reported, or logged
    std::optional<InsideAccess> access;
};

// A model call about to be forwarded, for the admission.
struct ModelCallInfo {
    std::string method;
    std::string path;  // as the CLI sent it: "/v1/messages"
    std::string model; // the request body's "model"; empty when it names none
};

// A forwarded call, once it ended (or was refused by the admission).
struct ModelCall {
    std::string method;
    std::string path; // as the CLI sent it, without the query
    int status = 0;   // as answered to the CLI; 0: no answer started (the CLI went away first)
    std::string model;
    std::uint64_t inputTokens = 0;
    std::uint64_t outputTokens = 0;
    std::int64_t durationMs = 0;  // from the request's arrival to the answer's end
    std::int64_t firstByteMs = -1; // from the request's arrival to the answer's first byte; -1: none came
    std::string error;             // why it failed (the provider's message for a 4xx/5xx); empty when it worked
};

// The call as the task's model_call event records it.
protocol::ModelCallData modelCallEvent(const ModelCall& call);

struct ModelProxyLimits {
    std::chrono::milliseconds requestTimeout{30'000}; // the head and body must have arrived by then
    std::chrono::milliseconds idleTimeout{300'000};   // the provider sent nothing for this long: 504 / cut
    std::uint64_t maxBody = 32u * 1024 * 1024;
    int maxConnections = 64;
};

class ModelProxy : public QObject {
    Q_OBJECT
public:
    // Ok, or why the call is refused; the refusal is answered in the API's own error shape: 503 for an
    // ErrorCode::Unavailable (the CLI retries), 403 otherwise (it stops).
    using Done = std::function<void(Status)>;
    using Admission = std::function<void(const ModelCallInfo& call, Done done)>;
    using TokenCheck = std::function<Status(const std::string& token)>;

    // Listens on socketPath (created 0777 inside a directory only the control plane can enter, so the
    // sandbox's user can connect); the file is removed when the proxy goes. An empty socketPath: no socket,
    // the connections come through adopt() (a cluster's pod, over warrend's agents' listener).
    static Result<std::unique_ptr<ModelProxy>> listen(const std::string& socketPath, ModelUpstream upstream,
                                                      TokenCheck checkToken, ModelProxyLimits limits = {});
    ~ModelProxy() override; // closes every connection and aborts every call

    // Asked before each model call is forwarded (not for HEAD / nor count_tokens); the call waits until
    // done is called, on this thread, once. Unset: every call goes.
    void setAdmission(Admission admit) { m_admit = std::move(admit); }
    // A connection accepted elsewhere (AgentListener's model stream), served as one of the socket's;
    // received: what was already read of it past its hello. Its request is checked as every other one (the
    // token too).
    void adopt(UniqueFd connection, const std::string& received);
    std::string socketPath() const { return m_socketPath; }

signals:
    void called(const warren::control::ModelCall& call);

private:
    class Connection;
    ModelProxy(std::string socketPath, ModelUpstream upstream, TokenCheck checkToken, ModelProxyLimits limits);
    void accept();

    std::string m_socketPath;
    ModelUpstream m_upstream;
    TokenCheck m_checkToken;
    ModelProxyLimits m_limits;
    Admission m_admit;
    QLocalServer* m_server = nullptr;
    QNetworkAccessManager* m_network = nullptr;
    int m_open = 0;
};

} // namespace warren::control
