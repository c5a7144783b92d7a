#include "agent_core/net/NetWait.h"

#include "agent_core/process/PollTimeout.h"

#include <cerrno>
#include <cstring>
#include <poll.h>

namespace warren::agent {

namespace {
// Without an eventfd a stop is noticed by looking this often.
constexpr auto kStopPollInterval = std::chrono::milliseconds(50);
} // namespace

NetOutcome waitForSocket(int fd, short events, NetDeadline deadline, const Cancellation* stop,
                         const std::string& what) {
    using Clock = std::chrono::steady_clock;
    while (true) {
        if (stop && stop->stopRequested())
            return {NetOutcome::Kind::Stopped, what + " was given up: a stop was requested"};
        const auto now = Clock::now();
        if (now >= deadline)
            return {NetOutcome::Kind::TimedOut, what + " did not finish in time"};
        const int stopFd = stop ? stop->fd() : -1;
        const auto wake = stop && stopFd < 0 ? std::min(deadline, now + kStopPollInterval) : deadline;
        pollfd fds[2] = {{fd, events, 0}, {stopFd, POLLIN, 0}};
        const int ready = ::poll(fds, stopFd >= 0 ? 2 : 1, pollTimeout(wake, now));
        if (ready < 0 && errno != EINTR)
            return NetOutcome::failed(what + ": poll: " + std::strerror(errno));
        if (ready > 0 && fds[0].revents != 0)
            return {};
    }
}

} // namespace warren::agent
