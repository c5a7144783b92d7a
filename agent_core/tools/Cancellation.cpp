#include "agent_core/tools/Cancellation.h"

#include <cstdint>
#include <sys/eventfd.h>
#include <unistd.h>

namespace warren::agent {

Cancellation::Cancellation() : m_fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

Cancellation::~Cancellation() {
    if (m_fd >= 0)
        close(m_fd);
}

void Cancellation::request(StopRequest why) {
    StopRequest current = m_request.load(std::memory_order_acquire);
    while (static_cast<int>(why) > static_cast<int>(current)) {
        if (m_request.compare_exchange_weak(current, why, std::memory_order_acq_rel)) {
            if (m_fd >= 0) {
                const std::uint64_t one = 1;
                [[maybe_unused]] const auto written = write(m_fd, &one, sizeof one);
            }
            return;
        }
    }
}

bool Cancellation::clearHostGone() {
    if (requested() != StopRequest::HostGone)
        return false;
    std::uint64_t count = 0;
    if (m_fd >= 0) [[maybe_unused]]
        const auto drained = read(m_fd, &count, sizeof count);
    StopRequest expected = StopRequest::HostGone;
    if (m_request.compare_exchange_strong(expected, StopRequest::None, std::memory_order_acq_rel))
        return true;
    // A stronger stop came between the two: readable again, as it must stay.
    if (m_fd >= 0) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto written = write(m_fd, &one, sizeof one);
    }
    return false;
}

} // namespace warren::agent
