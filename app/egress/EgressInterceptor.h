#pragma once
// Hosts whose connections the control plane opens itself instead of tunnelling the sandbox's bytes: the
// secret proxy (app/secretproxy) terminates TLS for the hosts a task's secret is bound to. The egress proxy
// decides first (allow-list, addresses), then hands such a CONNECT over.

#include "app/egress/ProxyHead.h"

#include <QByteArray>
#include <QHostAddress>
#include <cstdint>
#include <string_view>
#include <vector>

class QLocalSocket;

namespace warren::control {

class EgressInterceptor {
public:
    virtual ~EgressInterceptor() = default;
    virtual bool intercepts(std::string_view host, std::uint16_t port) const = 0;
    // A CONNECT to such a host, allowed, answered "200 Connection established": the client's socket (the
    // interceptor takes it over), the bytes it sent after its head, the request, and the addresses the policy
    // let it reach, in the resolver's order.
    virtual void take(QLocalSocket* client, QByteArray early, const ProxyRequest& request,
                      std::vector<QHostAddress> addresses) = 0;
};

} // namespace warren::control
