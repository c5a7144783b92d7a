#pragma once
// The step and token budget of a whole task (max_steps, token_budget), which every agent of the task
// draws on: a sub-agent's steps and tokens count against the same limits as the task's own agent's.

#include <atomic>
#include <cstdint>

namespace warren::agent {

class TaskBudget {
public:
    void add(std::uint64_t steps, std::uint64_t tokens) {
        m_steps.fetch_add(steps, std::memory_order_relaxed);
        m_tokens.fetch_add(tokens, std::memory_order_relaxed);
    }
    std::uint64_t steps() const { return m_steps.load(std::memory_order_relaxed); }
    std::uint64_t tokens() const { return m_tokens.load(std::memory_order_relaxed); }

private:
    std::atomic<std::uint64_t> m_steps{0};
    std::atomic<std::uint64_t> m_tokens{0};
};

} // namespace warren::agent
