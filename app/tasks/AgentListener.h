#pragma once
// The control plane's end of `warren-agent serve --connect`: a listening socket that hands each connection
// whose hello (protocol/AgentHello.h) carries a valid task token of the `channel` scope to the runner that
// expects that task's agent, once per launch. TaskRunner makes one per launch, on a Unix socket in the
// task's own directory, mounted into that sandbox alone; warrend's cluster listener (`--agent-address`, on
// TCP) serves all its cluster tasks the same way, told apart by the token's task. Both take the same checks:
// the transport only decides who can reach the listener, never what it accepts.
//
// A hello whose stream is "model" (a CLI's model call from a cluster's pod, which has no socket of this host
// to reach the task's ModelProxy on) is taken with a token of the `llm` scope, any number of times while the
// task serves its model calls here (serveModel), and the connection handed to it.
//
// A connection is refused (an error line, then closed, and `refused` says why) when its hello is late
// (kHelloTimeout), over kMaxHelloBytes, malformed or of another protocol version, when its token does not
// verify, or when no agent of its task is expected (one already connected). At most kMaxPending
// connections wait for their hello at once; one more is closed unread.

#include "app/proxy/TaskToken.h"
#include "app/tasks/PodTokens.h"
#include "common/Result.h"
#include "common/UniqueFd.h"

#include <QObject>
#include <QString>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QSocketNotifier;
class QTimer;

namespace warren::control {

class AgentListener : public QObject {
    Q_OBJECT
public:
    // The agent's connection (non-blocking, close-on-exec) and what it sent after its hello.
    using Accept = std::function<void(UniqueFd connection, std::string afterHello)>;

    static constexpr std::chrono::milliseconds kHelloTimeout{10'000};
    static constexpr std::size_t kMaxPending = 16;

    // Listens on a Unix socket at path (what is there is replaced), readable and writable by its owner only:
    // the sandbox's uid gets it with the task's directories.
    static Result<std::unique_ptr<AgentListener>> listenUnix(const std::string& path, const TaskTokens& tokens,
                                                             std::chrono::milliseconds helloTimeout = kHelloTimeout);
    // Listens on TCP at HOST:PORT (a name or an address, [...] for IPv6; port 0: any free port, see port()).
    static Result<std::unique_ptr<AgentListener>> listenTcp(const std::string& hostPort, const TaskTokens& tokens,
                                                            std::chrono::milliseconds helloTimeout = kHelloTimeout);
    ~AgentListener() override; // closes every connection not handed on, and removes the socket file

    // The next agent of this task to say hello: with a token of this control plane's, or one whose digest is
    // among podTokens, unexpired (a pod left running by a replica that died: PodTokens.h).
    void expect(const std::string& taskId, Accept accept, std::vector<PodToken> podTokens = {});
    // Every model stream of this task, until forget; forget ends both.
    void serveModel(const std::string& taskId, Accept accept);
    void forget(const std::string& taskId);
    std::uint16_t port() const; // TCP: the port bound (the kernel's choice for port 0); Unix: 0

signals:
    void refused(const QString& why);

private:
    struct Pending {
        UniqueFd fd;
        std::string received;
        QSocketNotifier* notifier = nullptr;
        QTimer* deadline = nullptr;
    };

    AgentListener(UniqueFd socket, std::string path, const TaskTokens& tokens, std::chrono::milliseconds helloTimeout);
    void onAcceptable();
    void onReadable(std::list<Pending>::iterator pending);
    void onHello(std::list<Pending>::iterator pending, std::size_t lineEnd);
    void refuse(std::list<Pending>::iterator pending, const std::string& why);
    void drop(std::list<Pending>::iterator pending);

    UniqueFd m_socket;
    std::string m_path;
    const TaskTokens& m_tokens;
    std::chrono::milliseconds m_helloTimeout;
    QSocketNotifier* m_acceptNotifier = nullptr;
    std::list<Pending> m_pending;
    struct Expected {
        Accept accept;
        std::vector<PodToken> podTokens;
    };
    std::optional<std::string>
    podTokenTask(const std::string& token) const; // the expected task it is a pod's

    std::map<std::string, Expected> m_expected;
    std::map<std::string, Accept> m_models;
};

} // namespace warren::control
