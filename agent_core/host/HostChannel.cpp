#include "agent_core/host/HostChannel.h"

#include "agent_core/protocol/LineReader.h"
#include "agent_core/protocol/Methods.h"
#include "common/WriteAll.h"

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace warren::agent {

namespace {

// How often a waiting call looks at the stop request: a signal handler cannot wake a condition variable.
constexpr std::chrono::milliseconds kStopCheckInterval{50};

protocol::ErrorResponse errorResponse(std::optional<protocol::Id> id, int code, std::string message) {
    return {std::move(id), protocol::RpcError{code, std::move(message), std::nullopt}};
}

std::string idText(const protocol::Id& id) { return protocol::idToJson(id).dump(); }

} // namespace

HostChannel::HostChannel(int inFd, int outFd, Cancellation& cancellation,
                         std::function<void(std::string)> problem)
    : m_inFd(inFd), m_outFd(outFd), m_wakeFd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      m_cancellation(cancellation), m_problem(std::move(problem)) {
    m_reader = std::thread([this] { readLoop(); });
}

HostChannel::~HostChannel() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto written = write(m_wakeFd, &one, sizeof one);
    m_reader.join();
    close(m_wakeFd);
}

void HostChannel::readLoop() {
    protocol::LineReader reader;
    char buffer[64 * 1024];
    for (;;) {
        pollfd fds[2] = {{m_inFd, POLLIN, 0}, {m_wakeFd, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            onClosed(std::string("reading stdin failed: ") + std::strerror(errno));
            return;
        }
        if (fds[1].revents)
            return;
        const ssize_t got = read(m_inFd, buffer, sizeof buffer);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        auto lines = got > 0 ? reader.feed({buffer, static_cast<std::size_t>(got)}) : reader.finish();
        for (auto& line : lines) {
            if (line)
                onLine(*line);
            else
                m_problem("stdin: " + line.error().message);
        }
        if (got <= 0) {
            onClosed(got == 0 ? "the control plane closed stdin"
                              : std::string("reading stdin failed: ") + std::strerror(errno));
            return;
        }
    }
}

void HostChannel::onLine(const std::string& line) {
    auto decoded = protocol::decodeMessage(line);
    if (auto* invalid = std::get_if<protocol::InvalidMessage>(&decoded)) {
        m_problem("stdin: " + invalid->error.message);
        send(protocol::toErrorResponse(*invalid));
        return;
    }
    auto& message = std::get<protocol::Message>(decoded);
    if (auto* request = std::get_if<protocol::Request>(&message))
        onRequest(*request);
    else if (auto* notification = std::get_if<protocol::Notification>(&message))
        onNotification(*notification);
    else if (auto* response = std::get_if<protocol::Response>(&message))
        onResponse(response->id, response->result);
    else {
        const auto& error = std::get<protocol::ErrorResponse>(message);
        if (!error.id) {
            m_problem("the control plane reported an error: " + error.error.message);
            return;
        }
        onResponse(*error.id, makeError(ErrorCode::System, error.error.message));
    }
}

void HostChannel::onRequest(const protocol::Request& request) {
    if (request.method != protocol::method::kTaskStart) {
        send(errorResponse(request.id, protocol::rpc_error::kMethodNotFound,
                           "the agent has no method \"" + request.method + "\""));
        return;
    }
    std::lock_guard lock(m_mutex);
    if (m_taskStart) {
        send(errorResponse(request.id, protocol::rpc_error::kInvalidRequest,
                           "a task is already running in this agent; start another agent"));
        return;
    }
    m_taskStart = request;
    m_changed.notify_all();
}

void HostChannel::onNotification(const protocol::Notification& notification) {
    const bool cancel = notification.method == protocol::method::kControlCancel;
    const bool pause = notification.method == protocol::method::kControlPause;
    if (!cancel && !pause) {
        m_problem("stdin: unknown notification \"" + notification.method + "\" ignored");
        return;
    }
    auto params = protocol::controlParamsFromJson(notification.params);
    if (!params)
        m_problem("stdin: " + params.error().message + " (acting on " + notification.method + " anyway)");
    m_cancellation.request(cancel ? StopRequest::Cancel : StopRequest::Pause);
    m_changed.notify_all();
}

void HostChannel::onResponse(const protocol::Id& id, Result<nlohmann::json> outcome) {
    std::lock_guard lock(m_mutex);
    const auto* number = std::get_if<std::int64_t>(&id);
    auto pending = number ? m_pending.find(*number) : m_pending.end();
    if (number && m_abandoned.erase(*number))
        return; // the call stopped waiting (deadline, stop); its late answer is not news
    if (pending == m_pending.end() || pending->second) {
        m_problem("stdin: a response for request id " + idText(id) + ", which the agent is not waiting for");
        return;
    }
    pending->second = std::move(outcome);
    m_changed.notify_all();
}

void HostChannel::onClosed(std::string why) {
    // The stop first: a call woken by m_closed must find the task already stopping (a pause), or the loop
    // would take the missing answer for a failed model call.
    m_cancellation.request(StopRequest::HostGone);
    std::lock_guard lock(m_mutex);
    m_closed = std::move(why);
    m_changed.notify_all();
}

Result<protocol::Request> HostChannel::waitForTaskStart() {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_taskStart || m_closed || m_cancellation.stopRequested(); });
    if (!m_taskStart || m_taskStartTaken)
        return makeError(ErrorCode::InvalidArgument,
                         "no task.start request arrived before " + m_closed.value_or("a stop request"));
    m_taskStartTaken = true;
    return *m_taskStart;
}

Result<nlohmann::json> HostChannel::call(const std::string& method, nlohmann::json params,
                                         std::chrono::steady_clock::time_point deadline, const Cancellation* stop) {
    std::int64_t id = 0;
    {
        std::lock_guard lock(m_mutex);
        id = m_nextId++;
        m_pending[id];
    }
    if (!send(protocol::Request{id, method, std::move(params)})) {
        std::lock_guard lock(m_mutex);
        m_pending.erase(id);
        return makeError(ErrorCode::System, method + ": the control plane is gone (stdout closed)");
    }
    std::unique_lock lock(m_mutex);
    for (;;) {
        auto& slot = m_pending[id];
        if (slot) {
            auto outcome = std::move(*slot);
            m_pending.erase(id);
            if (!outcome)
                return makeError(outcome.error().code, method + ": " + outcome.error().message);
            return outcome;
        }
        std::optional<std::string> failure;
        if (m_closed)
            failure = method + ": no answer: " + *m_closed;
        else if (m_cancellation.stopRequested() || (stop && stop->stopRequested()))
            failure = method + ": abandoned: the task is stopping";
        else if (std::chrono::steady_clock::now() >= deadline)
            failure = method + ": no answer before the step's deadline (timeout_per_step_sec)";
        if (failure) {
            m_pending.erase(id);
            m_abandoned.insert(id);
            return makeError(ErrorCode::System, *failure);
        }
        m_changed.wait_until(lock, std::min(deadline, std::chrono::steady_clock::now() + kStopCheckInterval));
    }
}

bool HostChannel::send(const protocol::Message& message) {
    std::string line = protocol::serialize(message);
    line += '\n';
    std::lock_guard lock(m_writeMutex);
    if (!writeAll(m_outFd, line)) {
        m_cancellation.request(StopRequest::HostGone);
        return false;
    }
    return true;
}

} // namespace warren::agent
