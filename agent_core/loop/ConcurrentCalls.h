#pragma once
// Runs a run of one reply's read-only tool calls at the same time, at most kMaxAtOnce at once, and hands
// each back to the loop when it reaches that call (take). What a call reports while it runs (its output, a
// changed file, a plan) is kept and replayed by take through the loop's own callbacks, so the events of
// the calls read as if they had run one after another, in order.
//
// Only tools that are readOnly() and concurrencySafe() are run here: neither order nor a shared store
// can change what one of them returns. A call the loop never takes (the task stopped, a guard ended it)
// is not started if it was still waiting, and the destructor waits for those already running; they see
// the env's cancellation like any tool.

#include "agent_core/tools/Tool.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace warren::agent {

class ConcurrentCalls {
public:
    static constexpr std::size_t kMaxAtOnce = 4;

    struct Call {
        std::string id;       // the model's id of the call; also env.callId
        Tool* tool = nullptr; // outlives this object
        nlohmann::json arguments;
        ToolEnv env; // the callbacks are replaced: take() replays through its own
    };

    // Starts the calls, in their order, at most maxAtOnce at a time (at least one).
    explicit ConcurrentCalls(std::vector<Call> calls, std::size_t maxAtOnce = kMaxAtOnce);
    ~ConcurrentCalls();
    ConcurrentCalls(const ConcurrentCalls&) = delete;
    ConcurrentCalls& operator=(const ConcurrentCalls&) = delete;

    // Whether the call is one of these and not yet taken. Ids are unique among the calls.
    bool has(const std::string& callId) const;

    struct Taken {
        ToolOutcome outcome;
        std::uint64_t ranMs = 0; // how long the tool ran, from its start on a worker to its end
    };
    // Waits for the call to end, replays what it reported through live's callbacks and returns its
    // outcome. Each call is taken once: callId must be one has() says yes to.
    Taken take(const std::string& callId, const ToolEnv& live);

private:
    using Report = std::function<void(const ToolEnv& live)>;
    struct Slot {
        Call call;
        std::vector<Report> reports; // written by the worker until done
        ToolOutcome outcome;
        std::uint64_t ranMs = 0;
        bool done = false;
        bool taken = false; // the loop's thread only
    };

    void work();
    void runSlot(Slot& slot);

    std::vector<Slot> m_slots;
    std::mutex m_mutex;
    std::condition_variable m_ended;
    std::size_t m_next = 0;   // the next slot a worker starts; guarded by m_mutex
    bool m_abandoned = false; // the destructor runs: start nothing more; guarded by m_mutex
    std::vector<std::jthread> m_workers;
};

} // namespace warren::agent
