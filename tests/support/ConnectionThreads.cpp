#include "tests/support/ConnectionThreads.h"

#include <algorithm>
#include <sys/socket.h>
#include <unistd.h>

namespace warren::test {

ConnectionThreads::ConnectionThreads(UniqueFd listener, Serve serve)
    : m_listener(std::move(listener)), m_serve(std::move(serve)), m_acceptor([this] { acceptLoop(); }) {}

ConnectionThreads::~ConnectionThreads() {
    stop();
}

void ConnectionThreads::track(int fd) {
    std::lock_guard lock(m_mutex);
    if (m_stopping)
        ::shutdown(fd, SHUT_RDWR);
    else
        m_open.push_back(fd);
}

void ConnectionThreads::untrack(int fd) {
    std::lock_guard lock(m_mutex);
    m_open.erase(std::remove(m_open.begin(), m_open.end(), fd), m_open.end());
}

void ConnectionThreads::stop() {
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return;
        m_stopping = true;
        for (const int fd : m_open)
            ::shutdown(fd, SHUT_RDWR);
    }
    ::shutdown(m_listener.get(), SHUT_RDWR); // wakes accept()
    if (m_acceptor.joinable())
        m_acceptor.join();
    for (auto& handler : m_handlers) // no new ones: the acceptor has ended
        handler.join();
}

void ConnectionThreads::acceptLoop() {
    for (;;) {
        const int fd = ::accept4(m_listener.get(), nullptr, nullptr, SOCK_CLOEXEC);
        std::lock_guard lock(m_mutex);
        if (m_stopping) {
            if (fd >= 0)
                ::close(fd);
            return;
        }
        if (fd < 0)
            continue;
        m_open.push_back(fd);
        m_handlers.emplace_back([this, fd] {
            m_serve(fd, *this);
            ::shutdown(fd, SHUT_RDWR);
            untrack(fd);
            ::close(fd);
        });
    }
}

} // namespace warren::test
