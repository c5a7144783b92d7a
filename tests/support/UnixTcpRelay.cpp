#include "tests/support/UnixTcpRelay.h"

#include "common/UniqueFd.h"
#include "common/WriteAll.h"
#include "tests/support/ConnectionThreads.h"

#include <arpa/inet.h>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace warren::test {

struct UnixTcpRelay::State {
    std::string path;
    std::uint16_t port = 0;
    std::unique_ptr<ConnectionThreads> connections; // last: stopped first

    void relay(int client, ConnectionThreads& threads);
};

void UnixTcpRelay::State::relay(int client, ConnectionThreads& threads) {
    UniqueFd server(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    if (server.valid() &&
        ::connect(server.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
        threads.track(server.get());
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
        threads.untrack(server.get());
    }
}

UnixTcpRelay::UnixTcpRelay() : m_state(std::make_shared<State>()) {}

UnixTcpRelay::~UnixTcpRelay() {
    m_state->connections.reset();
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
    m_state->connections =
        std::make_unique<ConnectionThreads>(std::move(fd), [state = m_state.get()](int client, ConnectionThreads& threads) { state->relay(client, threads); });
    return true;
}

} // namespace warren::test
