#include "agent_core/tools/ExecutionCache.h"

namespace warren::agent {

std::string cacheKey(std::string_view tool, const nlohmann::json& arguments, std::string_view contentKey) {
    // Invalid UTF-8 cannot come from the wire (the parser refuses it); replacing it keeps dump() from
    // throwing.
    const std::string canonical = arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string key;
    for (const std::string_view part : {tool, std::string_view(canonical), contentKey})
        key += std::to_string(part.size()) + ":" + std::string(part) + ";";
    return key;
}

std::size_t ExecutionCache::entryBytes(const std::string& key, const ToolOutcome& outcome) {
    // The strings' bytes twice for the key (list and index), plus the nodes around them.
    constexpr std::size_t overhead = sizeof(Entry) + 4 * sizeof(void*) + 64;
    return key.size() + outcome.output.size() + overhead;
}

const ToolOutcome* ExecutionCache::find(const std::string& key) {
    const auto found = m_index.find(key);
    if (found == m_index.end()) {
        ++m_misses;
        return nullptr;
    }
    ++m_hits;
    m_entries.splice(m_entries.begin(), m_entries, found->second);
    return &found->second->outcome;
}

void ExecutionCache::store(std::string key, ToolOutcome outcome) {
    if (const auto found = m_index.find(key); found != m_index.end())
        erase(found->second);
    if (!outcome.ok || outcome.cancelled || outcome.timedOut)
        return;
    const std::size_t bytes = entryBytes(key, outcome);
    if (bytes > m_budget)
        return;
    while (m_bytes + bytes > m_budget)
        erase(std::prev(m_entries.end()));
    m_entries.push_front(Entry{std::move(key), std::move(outcome), bytes});
    m_index.emplace(m_entries.front().key, m_entries.begin());
    m_bytes += bytes;
}

void ExecutionCache::clear() {
    m_index.clear();
    m_entries.clear();
    m_bytes = 0;
}

void ExecutionCache::erase(std::list<Entry>::iterator entry) {
    m_bytes -= entry->bytes;
    m_index.erase(entry->key);
    m_entries.erase(entry);
}

} // namespace warren::agent
