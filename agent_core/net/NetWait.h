#pragma once
// How a network step of the agent ended, and the one wait they share: a socket ready, a deadline passed, or
// a stop requested (the step's Cancellation), whichever comes first. Nothing in agent_core/net waits
// without a deadline.

#include "agent_core/tools/Cancellation.h"

#include <chrono>
#include <string>

namespace warren::agent {

struct NetOutcome {
    enum class Kind { Ok, Failed, TimedOut, Stopped };
    Kind kind = Kind::Ok;
    std::string message; // all but Ok: what happened

    bool ok() const { return kind == Kind::Ok; }
    static NetOutcome failed(std::string message) { return {Kind::Failed, std::move(message)}; }
};

using NetDeadline = std::chrono::steady_clock::time_point;

// Waits until fd has one of events (POLLIN, POLLOUT), or an error or hang-up (Ok: the next read or write
// says which); TimedOut at deadline, Stopped once stop is requested. what names the step in the messages.
NetOutcome waitForSocket(int fd, short events, NetDeadline deadline, const Cancellation* stop,
                         const std::string& what);

} // namespace warren::agent
