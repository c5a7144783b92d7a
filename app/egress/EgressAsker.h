#pragma once
// Whom the egress proxy of a task with `--network ask` asks about a name no rule lists (NetworkQuestions, in
// app/tasks: the user, through the task's approvals). The proxy holds the connection until the answer.

#include <cstdint>
#include <functional>
#include <string>

namespace warren::control {

class EgressAsker {
public:
    struct Verdict {
        bool allowed = false;
        bool forTask = false; // allowed for the rest of the task: later requests to host:port are not asked about
        std::string why;      // refused: what the agent's tool is told
    };
    using Answer = std::function<void(const Verdict&)>;

    virtual ~EgressAsker() = default;
    // host: a DNS name as normalizeHost reads it. answer is called once, now or later (the asker bounds the
    // wait), from the proxy's thread; it does nothing when the connection or the proxy is gone by then.
    virtual void ask(const std::string& host, std::uint16_t port, const std::string& method, Answer answer) = 0;
};

} // namespace warren::control
