#include "tests/support/UnixTcpRelay.h"

#include "common/UniqueFd.h"
#include "common/WriteAll.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cstring>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace warren::test {

struct UnixTcpRelay::State {
    UniqueFd listener;
    std::string path;
    std::uint16_t port = 0;
    std::thread acceptor;
    std::mutex mutex;
    std::vector<int> open;
    std::vector<std::thread> pumps;
    bool stopping = false;

    void acceptLoop();
    void relay(int client);
};

void UnixTcpRelay::State::relay(int client) {
    UniqueFd server(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    if (server.valid() &&
        ::connect(server.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
        {
            std::lock_guard lock(mutex);
            open.push_back(server.get());
        }
        pollfd fds[2] = {{client, POLLIN, 0}, {server.get(), POLLIN, 0}};
        bool clientOpen = true, serverOpen = true;
        char buffer[65536];
        while ((clientOpen || serverOpen) && ::poll(fds, 2, -1) > 0) {
            for (int i = 0; i < 2; ++i) {
                if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                const int to = i == 0 ? server.get() : client;
                const ssize_t got = ::recv(fds[i].fd, buffer, sizeof buffer, 0);
                if (got <= 0) { // half-close passed on
                    ::shutdown(to, SHUT_WR);
                    fds[i].fd = -1;
                    (i == 0 ? clientOpen : serverOpen) = false;
                } else if (!writeAll(to, std::string_view(buffer, std::size_t(got)))) {
                    clientOpen = serverOpen = false;
                }
            }
        }
        std::lock_guard lock(mutex);
        open.erase(std::remove(open.begin(), open.end(), server.get()), open.end());
    }
    std::lock_guard lock(mutex);
    open.erase(std::remove(open.begin(), open.end(), client), open.end());
    ::close(client);
}

void UnixTcpRelay::State::acceptLoop() {
    for (;;) {
        const int fd = ::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC);
        std::lock_guard lock(mutex);
        if (stopping) {
            if (fd >= 0)
                ::close(fd);
            return;
        }
        if (fd < 0)
            continue;
        open.push_back(fd);
        pumps.emplace_back([this, fd] { relay(fd); });
    }
}

UnixTcpRelay::UnixTcpRelay() : m_state(std::make_shared<State>()) {}

UnixTcpRelay::~UnixTcpRelay() {
    {
        std::lock_guard lock(m_state->mutex);
        m_state->stopping = true;
        for (const int fd : m_state->open)
            ::shutdown(fd, SHUT_RDWR);
    }
    if (m_state->listener.valid())
        ::shutdown(m_state->listener.get(), SHUT_RDWR);
    if (m_state->acceptor.joinable())
        m_state->acceptor.join();
    for (auto& pump : m_state->pumps)
        pump.join();
    if (!m_state->path.empty())
        ::unlink(m_state->path.c_str());
}

bool UnixTcpRelay::start(const std::string& socketPath, std::uint16_t port) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socketPath.size() >= sizeof address.sun_path)
        return false;
    std::memcpy(address.sun_path, socketPath.c_str(), socketPath.size() + 1);
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    ::unlink(socketPath.c_str());
    if (!fd.valid() || ::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd.get(), 64) != 0)
        return false;
    m_state->path = socketPath;
    m_state->port = port;
    m_state->listener = std::move(fd);
    m_state->acceptor = std::thread([state = m_state.get()] { state->acceptLoop(); });
    return true;
}

} // namespace warren::test
