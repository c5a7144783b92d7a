#include "app/tasks/IdleWait.h"


namespace warren::control {

void IdleWait::observe(const protocol::Event& event, const protocol::EventPayload& payload) {
    if (const auto* call = std::get_if<protocol::ToolCallData>(&payload))
        m_open.emplace(event.agent.value_or(""), call->id);
    else if (const auto* result = std::get_if<protocol::ToolResultData>(&payload))
        m_open.erase({event.agent.value_or(""), result->id});
}

bool IdleWait::onlyWaitsForUser(const std::set<std::string>& waiting, bool otherWork) const {
    if (waiting.empty() || otherWork)
        return false;
    for (const auto& [agent, id] : m_open)
        if (!waiting.contains(id))
            return false;
    return true;
}

std::chrono::milliseconds idleSleepFor(std::initializer_list<std::chrono::milliseconds> bounds) {
    std::chrono::milliseconds shortest{0};
    for (const auto bound : bounds)
        if (bound.count() > 0 && (shortest.count() == 0 || bound < shortest))
            shortest = bound;
    return shortest;
}

} // namespace warren::control
