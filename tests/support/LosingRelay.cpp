#include "tests/support/LosingRelay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace warren::test {

struct LosingRelay::State {
    std::string head;
    int listener = -1;
    std::uint16_t upstream = 0;
    std::uint16_t port = 0;
    std::atomic<bool> losing{false};
    std::atomic<bool> stopping{false};
    std::atomic<int> lost{0};
    std::atomic<int> cuts{0};
    std::vector<std::thread> threads;
};

namespace {

int connectTo(std::uint16_t port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

bool sendAll(int fd, const char* data, ssize_t size) {
    while (size > 0) {
        const ssize_t sent = send(fd, data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
        if (sent <= 0)
            return false;
        data += sent;
        size -= sent;
    }
    return true;
}

// One client's connection, relayed until either side closes (or the answer is lost).
void relay(const std::shared_ptr<LosingRelay::State>& state, int client) {
    const int server = connectTo(state->upstream);
    const int cut = state->cuts; // cutAll() ends it
    std::string requests; // what the client sent, for the head
    bool asked = false;
    char buffer[65536];
    while (server >= 0 && !state->stopping && state->cuts == cut) {
        pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
        if (poll(fds, 2, 200) <= 0)
            continue;
        if (fds[0].revents) {
            const ssize_t got = recv(client, buffer, sizeof buffer, 0);
            if (got <= 0 || !sendAll(server, buffer, got))
                break;
            if (!asked) {
                requests.append(buffer, static_cast<std::size_t>(got));
                asked = requests.find(state->head) != std::string::npos;
            }
        }
        if (fds[1].revents) {
            const ssize_t got = recv(server, buffer, sizeof buffer, 0);
            if (got <= 0)
                break;
            if (asked && state->losing) {
                ++state->lost;
                break; // the answer goes nowhere, and the client's connection with it
            }
            if (!sendAll(client, buffer, got))
                break;
        }
    }
    if (server >= 0)
        close(server);
    close(client);
}

} // namespace

LosingRelay::LosingRelay(std::string losingHead) : m_state(std::make_shared<State>()) {
    m_state->head = std::move(losingHead);
}

LosingRelay::~LosingRelay() {
    m_state->stopping = true;
    if (m_state->listener >= 0)
        shutdown(m_state->listener, SHUT_RDWR);
    for (auto& thread : m_state->threads)
        thread.join();
    if (m_state->listener >= 0)
        close(m_state->listener);
}

bool LosingRelay::start(std::uint16_t port) {
    m_state->upstream = port;
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(fd, 64) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    m_state->listener = fd;
    m_state->port = ntohs(address.sin_port);
    m_state->threads.emplace_back([state = m_state] {
        std::vector<std::thread> connections;
        while (!state->stopping) {
            pollfd listening{state->listener, POLLIN, 0};
            if (poll(&listening, 1, 200) <= 0)
                continue;
            const int client = accept4(state->listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (client >= 0)
                connections.emplace_back(relay, state, client);
        }
        for (auto& connection : connections)
            connection.join();
    });
    return true;
}

std::uint16_t LosingRelay::port() const {
    return m_state->port;
}

void LosingRelay::arm(bool losing) {
    m_state->losing = losing;
}

void LosingRelay::cutAll() {
    ++m_state->cuts;
}

int LosingRelay::lost() const {
    return m_state->lost;
}

} // namespace warren::test
