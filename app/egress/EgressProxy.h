#pragma once
// The control plane's end of a task's allow-list network. It listens on a Unix socket that is mounted into
// the task's sandbox (the agent forwards 127.0.0.1:3128 there), reads one HTTP proxy request per
// connection (ProxyHead), lets it through only to a listed host (EgressPolicy) on an address outside this
// machine's networks, and then pipes bytes both ways with bounded buffers. Every request is reported,
// allowed or refused, for the task's timeline. The refusal is an HTTP answer the tool prints, saying why.
// With an asker (`--network ask`), a DNS name no rule lists is asked about instead of refused, the
// connection held until the answer.

#include "app/egress/EgressAsker.h"
#include "app/egress/EgressInterceptor.h"
#include "app/egress/EgressPolicy.h"
#include "app/egress/InsideDestinations.h"
#include "common/Result.h"

#include <QObject>
#include <QString>
#include <memory>
#include <string>
#include <vector>

class QLocalServer;

namespace warren::control {

struct EgressDecision {
    std::string method; // "CONNECT", "GET", ...; empty when the head could not be read
    std::string host;
    std::uint16_t port = 0;
    bool allowed = false;
    std::string address; // allowed: the address connected to
    std::string reason;  // refused: why, as the tool was told
};

class EgressProxy : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxConnections = 128;

    // Listens on socketPath (created 0777 inside a directory only the control plane can enter, so the
    // sandbox's user can connect); the file is removed when the proxy goes. inside: who decides which
    // addresses inside this machine and its networks a rule reaches (the desktop's user, or warrend's
    // operator), checked on the address each connection is made to. pinned: --resolve, names this task
    // reaches at the address given instead of DNS's (inside the machine only where inside lets it).
    static Result<std::unique_ptr<EgressProxy>> listen(const std::string& socketPath, std::vector<HostRule> rules,
                                                       InsideAccess inside = {},
                                                       std::vector<PinnedAddress> pinned = {});
    ~EgressProxy() override; // closes every connection

    // CONNECTs to the hosts interceptor names are handed to it once allowed; it outlives the proxy.
    void setInterceptor(EgressInterceptor* interceptor) { m_interceptor = interceptor; }
    // Names no rule lists are asked about (host:port as the client wrote them, address literals never); it
    // outlives the proxy.
    void setAsker(EgressAsker* asker) { m_asker = asker; }
    // One more rule, for the connections from now on (an answer "for this task").
    void addRule(const HostRule& rule);

    std::string socketPath() const { return m_socketPath; }
    int openConnections() const { return m_open; } // held, being decided, or piping

signals:
    void decided(const warren::control::EgressDecision& decision);

private:
    class Connection;
    EgressProxy(std::string socketPath, std::vector<HostRule> rules, InsideAccess inside,
                std::vector<PinnedAddress> pinned);
    void accept();

    std::string m_socketPath;
    std::vector<HostRule> m_rules;
    InsideAccess m_inside;
    std::vector<PinnedAddress> m_pinned;
    EgressInterceptor* m_interceptor = nullptr;
    EgressAsker* m_asker = nullptr;
    QLocalServer* m_server = nullptr;
    int m_open = 0;
};

} // namespace warren::control
