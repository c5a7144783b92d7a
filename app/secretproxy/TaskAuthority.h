#pragma once
// The certificate authority of one task's egress proxy (DESIGN §12): made when the task's sandbox starts,
// its key never leaves this process, its certificate is the only thing the sandbox gets (and trusts). It
// is limited by X.509 name constraints to the hosts the task's secrets are bound to, so even a copy of it
// vouches for nothing else. For each such host it issues a certificate on first use, served when the proxy
// terminates the sandbox's TLS to that host (TlsServerSession).

#include "app/egress/EgressPolicy.h"
#include "common/Result.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

typedef struct ssl_ctx_st SSL_CTX;

namespace warren::control {

class TaskAuthority {
public:
    // A fresh key pair (P-256) and a self-signed CA certificate for hosts (an allow-list's rules: a name
    // permits itself and its subdomains, a wildcard its suffix's subdomains, an address itself).
    static Result<std::unique_ptr<TaskAuthority>> create(const std::vector<HostRule>& hosts);
    ~TaskAuthority();
    TaskAuthority(const TaskAuthority&) = delete;
    TaskAuthority& operator=(const TaskAuthority&) = delete;

    const std::string& certificatePem() const { return m_certificatePem; }

    // A TLS server context (TLS 1.2 and up, ALPN http/1.1) presenting a certificate for host (a DNS name or
    // an address literal) issued by this authority; made once per host, owned by the authority.
    Result<SSL_CTX*> serverContext(const std::string& host);

private:
    struct Keys;
    explicit TaskAuthority(std::unique_ptr<Keys> keys, std::string certificatePem);

    std::unique_ptr<Keys> m_keys;
    std::string m_certificatePem;
    std::map<std::string, SSL_CTX*> m_contexts;
};

} // namespace warren::control
