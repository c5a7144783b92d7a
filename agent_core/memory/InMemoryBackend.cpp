#include "agent_core/memory/InMemoryBackend.h"

#include "agent_core/memory/MemoryRanking.h"

namespace warren::agent {

Result<std::optional<std::string>> InMemoryBackend::get(const std::string& ns, const std::string& key) {
    const auto it = m_entries.find({ns, key});
    if (it == m_entries.end())
        return std::optional<std::string>();
    return std::optional<std::string>(it->second);
}

Status InMemoryBackend::put(const MemoryEntry& entry) {
    m_entries[{entry.ns, entry.key}] = entry.value;
    return Ok{};
}

Result<std::vector<MemoryEntry>> InMemoryBackend::search(std::string_view query, std::size_t limit,
                                                         bool ranked) {
    std::vector<MemoryEntry> all;
    all.reserve(m_entries.size());
    for (const auto& [name, value] : m_entries)
        all.push_back({name.first, name.second, value});
    return rankMemory(std::move(all), query, limit, ranked);
}

} // namespace warren::agent
