#include "server/work/FairQueue.h"

#include <algorithm>

namespace warren::server {

FairQueue::FairQueue(std::size_t workers, std::size_t perOwner)
    : m_workers(std::max<std::size_t>(workers, 1)), m_perOwner(std::clamp<std::size_t>(perOwner, 1, m_workers)) {}

void FairQueue::push(const std::string& owner, std::uint64_t job) {
    Owner& state = m_owners[owner];
    if (state.waiting.empty())
        m_turns.push_back(owner);
    state.waiting.push_back(job);
}

std::optional<FairQueue::Started> FairQueue::take() {
    if (m_running >= m_workers)
        return std::nullopt;
    for (auto turn = m_turns.begin(); turn != m_turns.end(); ++turn) {
        Owner& state = m_owners[*turn];
        if (state.running >= m_perOwner)
            continue;
        Started started{*turn, state.waiting.front()};
        state.waiting.pop_front();
        ++state.running;
        ++m_running;
        m_turns.erase(turn);
        if (!state.waiting.empty())
            m_turns.push_back(started.owner);
        return started;
    }
    return std::nullopt;
}

void FairQueue::finished(const std::string& owner) {
    const auto found = m_owners.find(owner);
    if (found == m_owners.end() || found->second.running == 0)
        return;
    --found->second.running;
    --m_running;
    if (found->second.running == 0 && found->second.waiting.empty())
        m_owners.erase(found);
}

std::size_t FairQueue::waiting() const {
    std::size_t count = 0;
    for (const auto& [owner, state] : m_owners)
        count += state.waiting.size();
    return count;
}

} // namespace warren::server
