#include "agent_core/context/LoopDetector.h"

#include <algorithm>

namespace warren::agent {

LoopDetector::LoopDetector(std::uint64_t threshold) : m_threshold(std::max<std::uint64_t>(threshold, 2)) {}

std::string LoopDetector::callKey(const protocol::ToolCall& call) {
    // nlohmann::json keeps object keys sorted, so equal arguments always dump to the same text.
    return call.name + " " + call.arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

LoopVerdict LoopDetector::observe(const protocol::ToolCall& call) {
    auto key = callKey(call);
    auto& keys = m_state.recentKeys;
    if (!keys.empty() && keys.back() != key) {
        keys.clear();
        m_state.warned = false;
    }
    if (m_state.warned)
        return LoopVerdict::Stop;
    // Only the length of the run matters once it reaches the threshold; the vector stays bounded.
    if (keys.size() < m_threshold)
        keys.push_back(std::move(key));
    if (keys.size() >= m_threshold) {
        m_state.warned = true;
        return LoopVerdict::Warn;
    }
    return LoopVerdict::None;
}

void LoopDetector::restore(LoopDetectorState state) {
    auto& keys = state.recentKeys;
    if (!keys.empty()) {
        const auto runStart = std::find_if(keys.rbegin(), keys.rend(),
                                           [&](const std::string& key) { return key != keys.back(); });
        if (runStart != keys.rend()) {
            keys.erase(keys.begin(), runStart.base());
            state.warned = false; // the warning was about a run that is not the latest one
        }
    }
    if (keys.size() > m_threshold)
        keys.erase(keys.begin(), keys.end() - static_cast<std::ptrdiff_t>(m_threshold));
    if (keys.empty())
        state.warned = false;
    m_state = std::move(state);
}

} // namespace warren::agent
