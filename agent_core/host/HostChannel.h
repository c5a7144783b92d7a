#pragma once
// The agent's side of the protocol (docs/PROTOCOL.md) on its stdin and stdout. A reader thread decodes
// stdin line by line: responses wake the request waiting for them, control.cancel and control.pause
// become a stop request, a closed stdin means the control plane is gone; bad lines are answered (JSON-RPC
// errors) and reported, never fatal. Writes from any thread go out whole, one line each.

#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/tools/Cancellation.h"
#include "common/Result.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>

namespace warren::agent {

class HostChannel {
public:
    // problem receives what went wrong with an incoming line (from the reader thread), to be reported as
    // an error event.
    HostChannel(int inFd, int outFd, Cancellation& cancellation, std::function<void(std::string)> problem);
    ~HostChannel();
    HostChannel(const HostChannel&) = delete;
    HostChannel& operator=(const HostChannel&) = delete;

    // Waits for the control plane's task.start request (other requests meanwhile are refused). An error
    // when stdin closes first.
    Result<protocol::Request> waitForTaskStart();

    // Sends a request and waits for its response, until the deadline or a stop request. A JSON-RPC error
    // response becomes an Error with its message.
    // stop, when given, ends the wait as the task's stop does (a sub-agent closed).
    Result<nlohmann::json> call(const std::string& method, nlohmann::json params,
                                std::chrono::steady_clock::time_point deadline, const Cancellation* stop = nullptr);

    // One line to stdout. False when it could not be written (the control plane is gone); a stop
    // (HostGone) is then requested.
    bool send(const protocol::Message& message);

private:
    void readLoop();
    void onLine(const std::string& line);
    void onRequest(const protocol::Request& request);
    void onNotification(const protocol::Notification& notification);
    void onResponse(const protocol::Id& id, Result<nlohmann::json> outcome);
    void onClosed(std::string why);

    int m_inFd;
    int m_outFd;
    int m_wakeFd; // readable: the reader thread must end
    Cancellation& m_cancellation;
    std::function<void(std::string)> m_problem;

    std::mutex m_writeMutex;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::int64_t m_nextId = 1;
    std::map<std::int64_t, std::optional<Result<nlohmann::json>>> m_pending; // id -> outcome once answered
    std::set<std::int64_t> m_abandoned; // calls that stopped waiting: their answers are dropped quietly
    std::optional<protocol::Request> m_taskStart;
    bool m_taskStartTaken = false;
    std::optional<std::string> m_closed; // why stdin ended
    std::thread m_reader;
};

} // namespace warren::agent
