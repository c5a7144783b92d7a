#pragma once
// The cluster client's HTTP edge: blocking HTTP/1.1 over TCP, with TLS through OpenSSL for an https://
// server (the server verified against the kubeconfig's CA and host, our client certificate presented when
// there is one) and a bearer token when there is one. One connection per call: the client makes a handful
// of calls per sandbox, and a watch holds its own connection. No Qt.
//
// Every call has a deadline and may be interrupted by a descriptor the caller makes readable (as
// RunningSandbox::wait does); every failure is an Error that says what to check.

#include "common/Result.h"
#include "common/http/ChunkedDecoder.h"
#include "common/http/ResponseHead.h"
#include "sandbox/cluster/client/KubeConfig.h"
#include "sandbox/cluster/client/KubeRequests.h"

#include <chrono>
#include <memory>
#include <string>

namespace warren::kube {

inline constexpr std::size_t kMaxResponseBody = 16 * 1024 * 1024;
inline constexpr std::size_t kMaxWatchLine = 4 * 1024 * 1024;

struct HttpAnswer {
    int status = 0;
    std::string contentType;
    std::string body;
};

class Connection;

// A watch's open response: its body, line by line, as the server sends them.
class WatchStream {
public:
    explicit WatchStream(std::unique_ptr<Connection> connection, ResponseHead head, std::string pending);
    ~WatchStream();
    WatchStream(const WatchStream&) = delete;
    WatchStream& operator=(const WatchStream&) = delete;

    enum class Outcome {
        Line,        // line holds one event (without its newline)
        Ended,       // the server closed the stream: its timeoutSeconds passed, or the connection dropped
        Interrupted, // interruptFd became readable
        TimedOut,    // the deadline passed
    };
    struct Read {
        Outcome outcome = Outcome::Ended;
        std::string line;
    };
    // An Error only for what reconnecting will not fix (a line over kMaxWatchLine, a malformed chunk).
    Result<Read> nextLine(std::chrono::steady_clock::time_point deadline, int interruptFd = -1);

private:
    std::unique_ptr<Connection> m_connection;
    ResponseHead m_head;
    std::string m_raw;   // bytes read, not decoded yet
    std::string m_lines; // decoded body, not yet split into lines
    ChunkedDecoder m_chunks;
    bool m_ended = false;
};

class KubeHttp {
public:
    // Loads the CA and the client certificate now, so a bad file fails here and names itself.
    static Result<std::unique_ptr<KubeHttp>> create(const KubeConfig& config);
    ~KubeHttp();
    KubeHttp(const KubeHttp&) = delete;
    KubeHttp& operator=(const KubeHttp&) = delete;

    // Any complete answer, whatever its status (describeApiFailure words a failed one); an Error when there
    // was none (cannot connect, TLS, timeout, interrupted, too large).
    Result<HttpAnswer> send(const ApiRequest& request, std::chrono::milliseconds timeout, int interruptFd = -1);

    // Opens a watch: a stream when the server answers 200, else the server's complete answer (a 410, a 403).
    struct WatchStart {
        std::unique_ptr<WatchStream> stream;
        HttpAnswer refused;
    };
    Result<WatchStart> watch(const ApiRequest& request, std::chrono::milliseconds timeout, int interruptFd = -1);

    const KubeConfig& config() const { return m_config; }

private:
    struct Tls;
    KubeHttp(KubeConfig config, std::string host, std::string port, bool tls);
    Result<std::unique_ptr<Connection>> open(std::chrono::steady_clock::time_point deadline, int interruptFd);
    Result<std::pair<std::unique_ptr<Connection>, std::pair<ResponseHead, std::string>>>
    exchange(const ApiRequest& request, std::chrono::steady_clock::time_point deadline, int interruptFd);
    // The body after head (raw: what was read past it), by its framing, at most kMaxResponseBody.
    Result<std::string> readBody(Connection& connection, const ResponseHead& head, std::string& raw,
                                 std::chrono::steady_clock::time_point deadline, int interruptFd);

    KubeConfig m_config;
    std::string m_host; // without brackets
    std::string m_port;
    std::unique_ptr<Tls> m_tls; // null for http://
};

} // namespace warren::kube
