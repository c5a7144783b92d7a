// What the model proxy of a CLI agent (Claude Code, Codex) adds to a model call, against the same client
// talking to the model server directly, side by side in one run. The proxied path is the real one: the
// agent's EgressForwarder on 127.0.0.1 (what the CLI is given as its base URL), the control plane's
// ModelProxy on its Unix socket (on this process's event loop, as in `warren`; the task token checked, the
// key swapped, the answer re-chunked, masked and read for its usage), then the model server. The server is a
// plain TCP server on its own thread that answers POST /v1/messages with an Anthropic-style SSE stream of
// CHUNKS events, one every millisecond, each carrying the moment it was sent; the client is a blocking
// socket on a third thread. Each round makes one direct and one proxied call, so drift hits both alike:
//   first byte: from the request's first byte sent to the answer's first byte received;
//   chunk: from an event's send to its arrival, every event of every call.
// Median, p90 and the ratio of the medians.
//   bench_model_proxy [ROUNDS] [CHUNKS]

#include "agent_core/net/EgressForwarder.h"
#include "app/modelproxy/ModelProxy.h"
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
#include <netinet/tcp.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;

const std::string kToken = "task-token";

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_model_proxy: %s\n", what.c_str());
    std::exit(1);
}

std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
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
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

void sendAll(int fd, const std::string& data) {
    std::size_t at = 0;
    while (at < data.size()) {
        const ssize_t sent = send(fd, data.data() + at, data.size() - at, MSG_NOSIGNAL);
        if (sent <= 0)
            return;
        at += static_cast<std::size_t>(sent);
    }
}

// The model server: one connection at a time; reads the request (head and Content-Length body), then streams
// chunks events a millisecond apart, each "data: {"t":NANOSECONDS}" of when it was written.
void serveModel(int listener, int chunks, const std::atomic<bool>& stop) {
    while (!stop) {
        const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        const int one = 1;
        setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        std::string request;
        char buffer[4096];
        std::size_t headEnd = std::string::npos;
        std::size_t length = 0;
        while (headEnd == std::string::npos || request.size() < headEnd + 4 + length) {
            const ssize_t got = recv(client, buffer, sizeof buffer, 0);
            if (got <= 0)
                break;
            request.append(buffer, static_cast<std::size_t>(got));
            if (headEnd == std::string::npos && (headEnd = request.find("\r\n\r\n")) != std::string::npos) {
                std::string lower = request.substr(0, headEnd);
                for (char& c : lower)
                    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                const std::size_t at = lower.find("content-length:");
                length = at == std::string::npos ? 0 : std::strtoul(lower.c_str() + at + 15, nullptr, 10);
            }
        }
        sendAll(client, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                        "Connection: close\r\n\r\n");
        for (int i = 0; i < chunks; ++i) {
            const std::string event = "event: content_block_delta\ndata: {\"t\":" + std::to_string(nowNs()) + "}\n\n";
            char size[16];
            std::snprintf(size, sizeof size, "%zx\r\n", event.size());
            sendAll(client, size + event + "\r\n");
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        sendAll(client, "0\r\n\r\n");
        shutdown(client, SHUT_WR);
        while (recv(client, buffer, sizeof buffer, 0) > 0) {
        }
        close(client);
    }
}

struct Call {
    double firstByteMs = 0;
    std::vector<double> chunkMs;
};

// One call through port: the time to the first byte, and each event's time from send to arrival.
Call call(std::uint16_t port, int chunks) {
    const std::string body = R"({"model":"bench","stream":true,"max_tokens":64,"messages":[{"role":"user","content":"hi"}]})";
    const std::string request = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: " + kToken +
                                "\r\nanthropic-version: 2023-06-01\r\nContent-Type: application/json\r\nContent-Length: " +
                                std::to_string(body.size()) + "\r\n\r\n" + body;
    const int fd = connectTo(port);
    const auto start = Clock::now();
    sendAll(fd, request);
    Call result;
    std::string received;
    std::size_t scanned = 0;
    char buffer[16 * 1024];
    for (;;) {
        const ssize_t got = recv(fd, buffer, sizeof buffer, 0);
        if (got <= 0)
            break;
        const std::int64_t arrived = nowNs();
        if (received.empty())
            result.firstByteMs = msSince(start);
        received.append(buffer, static_cast<std::size_t>(got));
        for (std::size_t at = received.find("{\"t\":", scanned); at != std::string::npos;
             at = received.find("{\"t\":", scanned)) {
            const std::size_t end = received.find('}', at);
            if (end == std::string::npos)
                break;
            const std::int64_t sent = std::strtoll(received.c_str() + at + 5, nullptr, 10);
            result.chunkMs.push_back(double(arrived - sent) / 1e6);
            scanned = end;
        }
    }
    close(fd);
    if (int(result.chunkMs.size()) != chunks)
        fail("a call came back with " + std::to_string(result.chunkMs.size()) + " of " + std::to_string(chunks) +
             " events: " + received.substr(0, 300));
    return result;
}

struct Series {
    std::vector<double> direct, proxied;
};

void report(const char* name, const Series& series) {
    const double direct = percentile(series.direct, 0.5), proxied = percentile(series.proxied, 0.5);
    std::printf("  %-10s direct   median %7.3f ms  p90 %7.3f ms\n", name, direct, percentile(series.direct, 0.9));
    std::printf("  %-10s proxied  median %7.3f ms  p90 %7.3f ms\n", name, proxied, percentile(series.proxied, 0.9));
    std::printf("  %-10s ratio proxied/direct %.2f (%+.3f ms)\n", name, direct > 0 ? proxied / direct : 0.0,
                proxied - direct);
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
    const int chunks = argc > 2 ? std::atoi(argv[2]) : 20;

    std::uint16_t serverPort = 0;
    const int listener = listenOnLoopback(serverPort);
    std::atomic<bool> stop{false};
    std::thread server(serveModel, listener, chunks, std::cref(stop));

    QTemporaryDir dir;
    warren::control::ModelUpstream upstream{warren::control::ProviderConfig::Kind::Anthropic,
                                            "http://127.0.0.1:" + std::to_string(serverPort), "sk-bench-key", {}};
    auto proxy = warren::control::ModelProxy::listen(
        dir.filePath("model.sock").toStdString(), upstream, [](const std::string& token) -> warren::Status {
            if (token != kToken)
                return warren::makeError(warren::ErrorCode::InvalidArgument, "not the bench's token");
            return warren::Ok{};
        });
    if (!proxy)
        fail(proxy.error().message);
    auto forwarder = warren::agent::EgressForwarder::start((*proxy)->socketPath(), 0);
    if (!forwarder)
        fail(forwarder.error().message);
    const std::uint16_t forwarderPort = (*forwarder)->port();

    Series firstByte, chunk;
    std::thread client([&] {
        for (int i = 0; i < rounds + 2; ++i) { // two warm-up rounds
            for (const bool proxied : {false, true}) {
                const Call made = call(proxied ? forwarderPort : serverPort, chunks);
                if (i < 2)
                    continue;
                (proxied ? firstByte.proxied : firstByte.direct).push_back(made.firstByteMs);
                auto& into = proxied ? chunk.proxied : chunk.direct;
                into.insert(into.end(), made.chunkMs.begin(), made.chunkMs.end());
            }
        }
        QMetaObject::invokeMethod(&app, &QCoreApplication::quit, Qt::QueuedConnection);
    });
    QCoreApplication::exec();
    client.join();
    stop = true;
    shutdown(listener, SHUT_RDWR); // accept() returns at once from now on
    server.join();
    close(listener);

    std::printf("model proxy (forwarder + ModelProxy) against a direct connection, %d calls of %d streamed events "
                "each way\n",
                rounds, chunks);
    report("first byte", firstByte);
    report("chunk", chunk);
    return 0;
}
