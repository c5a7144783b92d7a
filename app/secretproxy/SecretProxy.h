#pragma once
// The egress proxy's way to a host a task's secret is bound to (DESIGN §12). The egress proxy decides a
// CONNECT as for any host (allow-list, addresses), then hands it here: this end terminates the sandbox's TLS
// with a certificate from the task's own authority (TaskAuthority, TlsServerSession), reads one request
// (ModelRequestHead's rules), puts the secrets in (SecretInjection: headers, and bodies for --in-body), sends it on over TLS verified against
// the system's store (and --egress-ca) to the address the policy allowed, and streams the answer back with
// every secret's value masked to its placeholder. One request per connection (Connection: close); bodies
// framed by Content-Length (a chunked request body is refused, 411); compression is negotiated here, so
// the answer is read in the clear for the mask. Each request is reported with the secrets put in, never a
// value.

#include "app/egress/EgressInterceptor.h"
#include "app/secretproxy/SecretInjection.h"
#include "app/secretproxy/TaskAuthority.h"

#include <QList>
#include <QObject>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <memory>
#include <string>
#include <vector>

class QNetworkAccessManager;

namespace warren::control {

// One request made with a secret's host, once it ended.
struct SecretRequest {
    std::string method; // empty: no request was read (the TLS handshake failed)
    std::string host;
    std::uint16_t port = 0;
    std::string address;              // connected to
    std::string path;                 // without the query
    int status = 0;                   // as answered to the sandbox; 0: none
    std::vector<std::string> secrets; // put in, by name
    std::string error;                // why it failed; never a value
};

class SecretProxy : public QObject, public EgressInterceptor {
    Q_OBJECT
public:
    static constexpr int kMaxExchanges = 64;

    // secrets: the task's, with their values; upstreamAuthorities: every authority trusted when this end
    // connects on (the system's, read once by the caller, and --egress-ca's).
    SecretProxy(std::vector<TaskSecret> secrets, std::unique_ptr<TaskAuthority> authority,
                QList<QSslCertificate> upstreamAuthorities);
    ~SecretProxy() override; // ends every exchange

    bool intercepts(std::string_view host, std::uint16_t port) const override;
    void take(QLocalSocket* client, QByteArray early, const ProxyRequest& request,
              std::vector<QHostAddress> addresses) override;

signals:
    void requested(const warren::control::SecretRequest& request);

private:
    class Exchange;
    std::vector<TaskSecret> m_secrets;
    std::unique_ptr<TaskAuthority> m_authority;
    QSslConfiguration m_upstreamTls; // with upstreamAuthorities, set once (a store is slow to load)
    QNetworkAccessManager* m_network = nullptr;
    int m_open = 0;
};

} // namespace warren::control
