// What putting a secret in at the egress costs a tool's HTTPS request (DESIGN §12), against the same request
// through a plain CONNECT tunnel, side by side in one run. Both go the real way: the agent's EgressForwarder
// on 127.0.0.1, the control plane's EgressProxy on its Unix socket (on this process's event loop, as in
// `warren`), then a TLS host on this machine's loopback (pinned by name, as --resolve does). The tunnel's
// client does one TLS handshake, with the host; the injected request's client does one with the proxy
// (the task's authority), and the proxy another with the host (verified against the host's authority, as
// --egress-ca), the secret put in on the way. Each round is a new connection, one small GET and the whole
// answer (what a REST client without keep-alive does), alternating tunnel and injected so drift hits both.
// Median, p90, requests per second and the ratio of the medians.
//   bench_secret_proxy [ROUNDS]

#include "agent_core/net/EgressForwarder.h"
#include "app/egress/EgressPolicy.h"
#include "app/egress/EgressProxy.h"
#include "app/secretproxy/SecretProxy.h"
#include "bench/BenchStats.h"
#include "bench/LoopbackSockets.h"

#include <QCoreApplication>
#include <QTemporaryDir>
#include <arpa/inet.h>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;
using namespace warren::control;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_secret_proxy: %s\n", what.c_str());
    std::exit(1);
}

int listenOnLoopback(std::uint16_t& port) {
    const int fd = warren::bench::listenOnLoopback(port);
    if (fd < 0)
        fail(std::string("cannot listen on 127.0.0.1: ") + std::strerror(errno));
    return fd;
}

// A TLS host: one thread, one connection at a time, a short answer to each request.
void serveHost(int listener, SSL_CTX* context, const std::atomic<bool>& stop) {
    while (!stop) {
        const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        SSL* ssl = SSL_new(context);
        SSL_set_fd(ssl, client);
        if (SSL_accept(ssl) == 1) {
            std::string head;
            char buffer[4096];
            while (head.find("\r\n\r\n") == std::string::npos) {
                const int got = SSL_read(ssl, buffer, sizeof buffer);
                if (got <= 0)
                    break;
                head.append(buffer, std::size_t(got));
            }
            const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n";
            SSL_write(ssl, answer.data(), int(answer.size()));
            SSL_shutdown(ssl);
        }
        SSL_free(ssl);
        close(client);
    }
}

SSL_CTX* clientContext(const std::string& trustedPem) {
    SSL_CTX* context = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
    BIO* bio = BIO_new_mem_buf(trustedPem.data(), int(trustedPem.size()));
    X509* certificate = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    X509_STORE_add_cert(SSL_CTX_get_cert_store(context), certificate);
    X509_free(certificate);
    BIO_free(bio);
    return context;
}

// One GET to https://host:port/ through the forwarder's CONNECT, verified with context; the bytes of the
// answer.
std::size_t get(std::uint16_t forwarderPort, const std::string& host, std::uint16_t port, SSL_CTX* context,
                const std::string& authorization) {
    const int fd = warren::bench::connectToLoopback(forwarderPort);
    if (fd < 0)
        fail(std::string("cannot connect to the forwarder: ") + std::strerror(errno));
    const std::string authority = host + ":" + std::to_string(port);
    const std::string connectHead = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
    send(fd, connectHead.data(), connectHead.size(), MSG_NOSIGNAL);
    std::string reply;
    char byte = 0;
    while (reply.find("\r\n\r\n") == std::string::npos && recv(fd, &byte, 1, 0) == 1)
        reply += byte;
    if (reply.rfind("HTTP/1.1 200", 0) != 0)
        fail("the proxy refused the CONNECT: " + reply);
    SSL* ssl = SSL_new(context);
    SSL_set_fd(ssl, fd);
    SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, const_cast<char*>(host.c_str()));
    SSL_set1_host(ssl, host.c_str());
    if (SSL_connect(ssl) != 1) {
        char why[256];
        ERR_error_string_n(ERR_get_error(), why, sizeof why);
        fail("the TLS handshake with " + host + " failed: " + why);
    }
    const std::string request = "GET / HTTP/1.1\r\nHost: " + authority + "\r\nAuthorization: Bearer " + authorization +
                                "\r\nConnection: close\r\n\r\n";
    SSL_write(ssl, request.data(), int(request.size()));
    std::size_t total = 0;
    char buffer[16384];
    int got = 0;
    while ((got = SSL_read(ssl, buffer, sizeof buffer)) > 0)
        total += std::size_t(got);
    SSL_free(ssl);
    close(fd);
    return total;
}

void report(const char* name, const std::vector<double>& values, double seconds) {
    std::printf("  %-9s median %7.2f ms  p90 %7.2f ms  %7.1f requests/s\n", name, percentile(values, 0.5),
                percentile(values, 0.9), double(values.size()) / seconds);
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;

    // The hosts' own authority (as a public CA would be), trusted upstream by the proxy as --egress-ca.
    auto hosts = parseTaskNetwork("allow:api.bench.test,plain.bench.test");
    if (!hosts)
        fail(hosts.error().message);
    auto hostAuthority = TaskAuthority::create(hosts->hosts);
    if (!hostAuthority)
        fail(hostAuthority.error().message);
    std::uint16_t injectedPort = 0, tunnelPort = 0;
    const int injectedListener = listenOnLoopback(injectedPort);
    const int tunnelListener = listenOnLoopback(tunnelPort);
    auto injectedHostContext = (*hostAuthority)->serverContext("api.bench.test");
    auto tunnelHostContext = (*hostAuthority)->serverContext("plain.bench.test");
    if (!injectedHostContext || !tunnelHostContext)
        fail("cannot make the hosts' certificates");
    std::atomic<bool> stop{false};
    std::thread injectedHost(serveHost, injectedListener, *injectedHostContext, std::cref(stop));
    std::thread tunnelHost(serveHost, tunnelListener, *tunnelHostContext, std::cref(stop));

    const std::string injected = "api.bench.test:" + std::to_string(injectedPort);
    const std::string tunnel = "plain.bench.test:" + std::to_string(tunnelPort);
    auto secret = makeHostSecret("BENCH_TOKEN", injected, "", "the-real-value-0123456789");
    auto network = parseTaskNetwork("allow:" + injected + "," + tunnel);
    auto injectedPin = parsePinnedAddress(injected + ":127.0.0.1");
    auto tunnelPin = parsePinnedAddress(tunnel + ":127.0.0.1");
    if (!secret || !network || !injectedPin || !tunnelPin)
        fail("cannot make the task's secret and network");
    auto taskAuthority = TaskAuthority::create(secret->hosts);
    if (!taskAuthority)
        fail(taskAuthority.error().message);
    const std::string taskAuthorityPem = (*taskAuthority)->certificatePem();
    const std::string placeholder = "warren-secret-00112233445566778899aabbccddeeff";
    std::vector<TaskSecret> taskSecrets{TaskSecret{*secret, placeholder}};
    QList<QSslCertificate> upstream{QSslCertificate(QByteArray::fromStdString((*hostAuthority)->certificatePem()))};
    SecretProxy secrets(std::move(taskSecrets), std::move(*taskAuthority), upstream);
    QTemporaryDir dir;
    auto proxy = EgressProxy::listen(dir.filePath("egress.sock").toStdString(), network->hosts, {},
                                     {*injectedPin, *tunnelPin});
    if (!proxy)
        fail(proxy.error().message);
    (*proxy)->setInterceptor(&secrets);
    auto forwarder = warren::agent::EgressForwarder::start((*proxy)->socketPath(), 0);
    if (!forwarder)
        fail(forwarder.error().message);
    const std::uint16_t forwarderPort = (*forwarder)->port();

    SSL_CTX* trustsTask = clientContext(taskAuthorityPem);
    SSL_CTX* trustsHost = clientContext((*hostAuthority)->certificatePem());
    std::vector<double> tunnelled, injectedTimes;
    double tunnelSeconds = 0, injectedSeconds = 0;
    std::thread client([&] {
        for (int i = 0; i < rounds + 5; ++i) { // five warm-up rounds
            for (const bool inject : {false, true}) {
                const auto start = Clock::now();
                const std::size_t got = inject ? get(forwarderPort, "api.bench.test", injectedPort, trustsTask, placeholder)
                                               : get(forwarderPort, "plain.bench.test", tunnelPort, trustsHost, placeholder);
                if (got == 0)
                    fail("a request got no answer");
                const double ms = msSince(start);
                if (i < 5)
                    continue;
                (inject ? injectedTimes : tunnelled).push_back(ms);
                (inject ? injectedSeconds : tunnelSeconds) += ms / 1000.0;
            }
        }
        QMetaObject::invokeMethod(&app, &QCoreApplication::quit, Qt::QueuedConnection);
    });
    QCoreApplication::exec();
    client.join();
    stop = true;
    shutdown(injectedListener, SHUT_RDWR);
    shutdown(tunnelListener, SHUT_RDWR);
    injectedHost.join();
    tunnelHost.join();
    SSL_CTX_free(trustsTask);
    SSL_CTX_free(trustsHost);

    std::printf("secret injected at the egress against a plain CONNECT tunnel, %d HTTPS requests each (a new "
                "connection each)\n",
                rounds);
    report("tunnel", tunnelled, tunnelSeconds);
    report("injected", injectedTimes, injectedSeconds);
    const double ratio = percentile(tunnelled, 0.5) > 0 ? percentile(injectedTimes, 0.5) / percentile(tunnelled, 0.5) : 0;
    std::printf("  ratio injected/tunnel %.2f (added %.2f ms per request)\n", ratio,
                percentile(injectedTimes, 0.5) - percentile(tunnelled, 0.5));
    return 0;
}
