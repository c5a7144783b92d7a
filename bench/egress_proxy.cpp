// What the egress proxy of `--network allow:HOSTS` costs a tool, against the same work with no proxy, side by
// side in one run. The path through it is the real one: the agent's EgressForwarder on 127.0.0.1, the control
// plane's EgressProxy on its Unix socket (on this process's event loop, as in `warren`), then the host. The
// host is a plain TCP server on this machine's loopback (listed by address, the one kind of inside address an
// allow-list can name). Two series, each alternating direct and proxied so drift hits both alike:
//   request: a new connection, one small GET, the whole answer (what pip and npm do per file), 300 rounds;
//   download: 64 MiB in one GET (a wheel or a tarball), 5 rounds, as MiB/s.
// Median, p90 and the ratio of the medians.
//   bench_egress_proxy [REQUEST_ROUNDS]

#include "agent_core/net/EgressForwarder.h"
#include "app/egress/EgressPolicy.h"
#include "app/egress/EgressProxy.h"
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
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;

constexpr std::size_t kBig = 64u * 1024 * 1024;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_egress_proxy: %s\n", what.c_str());
    std::exit(1);
}

int listenOnLoopback(std::uint16_t& port) {
    const int fd = warren::bench::listenOnLoopback(port);
    if (fd < 0)
        fail(std::string("cannot listen on 127.0.0.1: ") + std::strerror(errno));
    return fd;
}

int connectTo(std::uint16_t port) {
    const int fd = warren::bench::connectToLoopback(port);
    if (fd < 0)
        fail(std::string("cannot connect: ") + std::strerror(errno));
    return fd;
}

void sendAll(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t sent = send(fd, data, size, MSG_NOSIGNAL);
        if (sent <= 0)
            return;
        data += sent;
        size -= static_cast<std::size_t>(sent);
    }
}

// The host: one thread, one connection at a time; "/big" answers kBig bytes, anything else a short line.
void serveHost(int listener, const std::atomic<bool>& stop) {
    const std::string chunk(1 << 20, 'x');
    while (!stop) {
        const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        std::string head;
        char buffer[4096];
        while (head.find("\r\n\r\n") == std::string::npos) {
            const ssize_t got = recv(client, buffer, sizeof buffer, 0);
            if (got <= 0)
                break;
            head.append(buffer, static_cast<std::size_t>(got));
        }
        const bool big = head.find(" /big ") != std::string::npos;
        const std::size_t size = big ? kBig : 3;
        const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(size) +
                                   "\r\nConnection: close\r\n\r\n";
        sendAll(client, answer.data(), answer.size());
        if (big)
            for (std::size_t sent = 0; sent < kBig; sent += chunk.size())
                sendAll(client, chunk.data(), chunk.size());
        else
            sendAll(client, "ok\n", 3);
        shutdown(client, SHUT_WR);
        while (recv(client, buffer, sizeof buffer, 0) > 0) {
        }
        close(client);
    }
}

// One GET through port (the host itself, or the forwarder with the target in absolute form); the bytes read.
std::size_t get(std::uint16_t port, std::uint16_t hostPort, bool proxied, const char* path) {
    const int fd = connectTo(port);
    const std::string target = proxied ? "http://127.0.0.1:" + std::to_string(hostPort) + path : std::string(path);
    const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(hostPort) +
                                "\r\n\r\n";
    sendAll(fd, request.data(), request.size());
    std::vector<char> buffer(256 * 1024);
    std::size_t total = 0;
    for (;;) {
        const ssize_t got = recv(fd, buffer.data(), buffer.size(), 0);
        if (got <= 0)
            break;
        total += static_cast<std::size_t>(got);
    }
    close(fd);
    return total;
}

struct Series {
    std::vector<double> direct, proxied;
};

void report(const char* name, const char* unit, const Series& series, bool higherIsBetter) {
    const double direct = percentile(series.direct, 0.5), proxied = percentile(series.proxied, 0.5);
    std::printf("  %-9s direct   median %9.2f %s  p90 %9.2f\n", name, direct, unit,
                percentile(series.direct, higherIsBetter ? 0.1 : 0.9));
    std::printf("  %-9s proxied  median %9.2f %s  p90 %9.2f\n", name, proxied, unit,
                percentile(series.proxied, higherIsBetter ? 0.1 : 0.9));
    std::printf("  %-9s ratio proxied/direct %.2f\n", name, direct > 0 ? proxied / direct : 0.0);
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 300;

    std::uint16_t hostPort = 0;
    const int listener = listenOnLoopback(hostPort);
    std::atomic<bool> stop{false};
    std::thread host(serveHost, listener, std::cref(stop));

    QTemporaryDir dir;
    auto network = warren::control::parseTaskNetwork("allow:127.0.0.1:" + std::to_string(hostPort));
    if (!network)
        fail(network.error().message);
    auto proxy = warren::control::EgressProxy::listen(dir.filePath("egress.sock").toStdString(), network->hosts);
    if (!proxy)
        fail(proxy.error().message);
    auto forwarder = warren::agent::EgressForwarder::start((*proxy)->socketPath(), 0);
    if (!forwarder)
        fail(forwarder.error().message);
    const std::uint16_t forwarderPort = (*forwarder)->port();

    Series requests, downloads;
    std::thread client([&] {
        for (int i = 0; i < rounds + 2; ++i) { // two warm-up rounds
            for (const bool proxied : {false, true}) {
                const auto start = Clock::now();
                if (get(proxied ? forwarderPort : hostPort, hostPort, proxied, "/small") == 0)
                    fail("a request got no answer");
                if (i >= 2)
                    (proxied ? requests.proxied : requests.direct).push_back(msSince(start));
            }
        }
        for (int i = 0; i < 6; ++i) {
            for (const bool proxied : {false, true}) {
                const auto start = Clock::now();
                if (get(proxied ? forwarderPort : hostPort, hostPort, proxied, "/big") < kBig)
                    fail("a download came back short");
                if (i >= 1)
                    (proxied ? downloads.proxied : downloads.direct)
                        .push_back(double(kBig) / (1024.0 * 1024.0) / (msSince(start) / 1000.0));
            }
        }
        QMetaObject::invokeMethod(&app, &QCoreApplication::quit, Qt::QueuedConnection);
    });
    QCoreApplication::exec();
    client.join();
    stop = true;
    shutdown(listener, SHUT_RDWR); // accept() returns at once from now on
    host.join();
    close(listener);

    std::printf("egress proxy (forwarder + proxy) against a direct connection, %d requests, 5 downloads of 64 MiB\n",
                rounds);
    report("request", "ms  ", requests, false);
    report("download", "MiB/s", downloads, true);
    return 0;
}
