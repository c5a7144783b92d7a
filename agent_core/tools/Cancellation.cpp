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

} // namespace warren::agent
