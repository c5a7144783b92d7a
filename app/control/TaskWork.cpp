#include "app/control/TaskWork.h"

namespace warren::control {

TaskWork::TaskWork(QObject* parent) : QObject(parent) {}

TaskWork::~TaskWork() {
    // The work under way ends first; its answers, posted meanwhile, go with this object.
    m_pool.waitForDone();
}

std::string TaskWork::holding(const std::string& taskId) const {
    const auto found = m_queues.find(taskId);
    if (found == m_queues.end())
        return {};
    if (found->second.busy && !found->second.running.empty())
        return found->second.running;
    for (const auto& [holds, start] : found->second.calls)
        if (!holds.empty())
            return holds;
    return {};
}

void TaskWork::enqueue(const std::string& taskId, std::string holds, std::function<void()> start) {
    m_queues[taskId].calls.emplace_back(std::move(holds), std::move(start));
    next(taskId);
}

void TaskWork::finished(const std::string& taskId) {
    Queue& queue = m_queues[taskId];
    queue.busy = false;
    queue.running.clear();
}

void TaskWork::next(const std::string& taskId) {
    const auto found = m_queues.find(taskId);
    if (found == m_queues.end() || found->second.busy)
        return;
    Queue& queue = found->second;
    if (queue.calls.empty()) {
        m_queues.erase(found);
        return;
    }
    auto [holds, start] = std::move(queue.calls.front());
    queue.calls.pop_front();
    queue.busy = true;
    queue.running = std::move(holds);
    start(); // may answer (posted) but never re-enters next() for this task before its answer
}

} // namespace warren::control
