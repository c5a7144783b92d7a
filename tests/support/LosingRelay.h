#pragma once
// A TCP relay on 127.0.0.1 to a server on 127.0.0.1:port, bytes unchanged both ways, that loses the server's
// answer on a connection whose requests include one starting with a given head ("POST /v1/tasks ") while it
// is armed: the request reaches the server, the answer never reaches the client, whose connection is closed.
// A client cut off after its request was taken, as by a kill -9 or a dropped network, deterministically.
// Its own threads: the test may block on a process meanwhile.

#include <cstdint>
#include <memory>
#include <string>

namespace warren::test {

class LosingRelay {
public:
    explicit LosingRelay(std::string losingHead);
    ~LosingRelay(); // stops, closes every connection
    LosingRelay(const LosingRelay&) = delete;
    LosingRelay& operator=(const LosingRelay&) = delete;

    bool start(std::uint16_t port); // false when it cannot listen
    std::uint16_t port() const;     // where clients connect
    void arm(bool losing);          // from now on, lose (or stop losing) those answers
    int lost() const;               // answers lost so far
    // Closes both ends of every connection open now (within its threads' 200 ms poll), as a network that
    // dropped; connections made after are relayed.
    void cutAll();

    struct State; // what its threads share

private:
    std::shared_ptr<State> m_state;
};

} // namespace warren::test
