#pragma once
// A request to stop the work in progress, raised by another thread (the stdin reader on control.cancel,
// control.pause or a closed stdin, or a signal handler's thread) and seen by the loop between steps and by
// a running tool while it waits: fd() becomes readable, so it can be polled beside a child's pipes.

#include <atomic>

namespace warren::agent {

enum class StopRequest {
    None,
    Pause,    // checkpoint and exit; resumable
    HostGone, // the control plane closed stdin: checkpoint and exit, as for pause
    Cancel,   // stop now; the task ends cancelled
};

class Cancellation {
public:
    Cancellation();
    ~Cancellation();
    Cancellation(const Cancellation&) = delete;
    Cancellation& operator=(const Cancellation&) = delete;

    // Thread- and async-signal-safe. A later request replaces an earlier one only if it is stronger
    // (Cancel > HostGone > Pause), so a pause cannot soften a cancel.
    void request(StopRequest why);
    StopRequest requested() const { return m_request.load(std::memory_order_acquire); }
    bool stopRequested() const { return requested() != StopRequest::None; }

    // The control plane went away and the agent has reached one again (serve --connect tcp:, a cluster's
    // pod): HostGone is withdrawn before the next run. False, changing nothing, when the request is not
    // HostGone.
    bool clearHostGone();

    // Readable (never drained, but by clearHostGone) once a stop was requested; -1 if no eventfd could be
    // made, in which case waiters fall back to checking requested() at their poll timeout.
    int fd() const { return m_fd; }

private:
    std::atomic<StopRequest> m_request{StopRequest::None};
    int m_fd = -1;
};

} // namespace warren::agent
