#pragma once
// The threads of a small blocking test server (CliModelServer, UnixTcpRelay): one accepting on a listening
// socket, one per connection running serve(fd, *this). Stopping shuts down the listener and every tracked
// connection so that each blocked call returns, then joins every thread. Each accepted connection is
// tracked while serve runs and closed after; serve may track more (a relay's second socket) for the stop
// to reach.

#include "common/UniqueFd.h"

#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace warren::test {

class ConnectionThreads {
public:
    using Serve = std::function<void(int fd, ConnectionThreads& threads)>;
    ConnectionThreads(UniqueFd listener, Serve serve);
    ~ConnectionThreads(); // stop(), then the listener closes
    ConnectionThreads(const ConnectionThreads&) = delete;
    ConnectionThreads& operator=(const ConnectionThreads&) = delete;

    void track(int fd);   // shut down when the server stops
    void untrack(int fd); // before fd is closed
    void stop();

private:
    void acceptLoop();

    UniqueFd m_listener;
    Serve m_serve;
    std::mutex m_mutex;
    std::vector<int> m_open;
    std::vector<std::thread> m_handlers;
    bool m_stopping = false;
    std::thread m_acceptor; // last: started once everything above exists
};

} // namespace warren::test
