#include "agent_core/memory/AgentMemory.h"

#include "agent_core/memory/MemoryRanking.h"

#include <algorithm>

namespace warren::agent {

AgentMemory::AgentMemory(std::unique_ptr<MemoryBackend> backend, Options options)
    : m_backend(std::move(backend)), m_options(std::move(options)) {
    m_lastFlush = now();
}

std::chrono::steady_clock::time_point AgentMemory::now() const {
    return m_options.clock ? m_options.clock() : std::chrono::steady_clock::now();
}

Error AgentMemory::inContext(Error error) const {
    if (!m_options.prefix.empty())
        error.message += " (memory_prefix \"" + m_options.prefix + "\")";
    return error;
}

Status AgentMemory::save(const std::string& ns, const std::string& key, std::string value) {
    if (auto valid = validateNamespace(ns); !valid)
        return valid;
    if (auto valid = validateMemoryKey(key); !valid)
        return valid;
    if (auto valid = validateMemoryValue(value); !valid)
        return valid;
    Name name{ns, key};
    if (!writesBehind()) {
        if (auto put = m_backend->put({ns, key, value}); !put) {
            uncache(name);
            return inContext(put.error());
        }
        cacheValue(name, value);
        return Ok{};
    }
    uncache(name); // the buffer answers for it until it is written
    m_pending[std::move(name)] = std::move(value);
    (void)flushIfDue(); // reported by the loop's own flushIfDue()
    return Ok{};
}

Result<std::optional<std::string>> AgentMemory::load(const std::string& ns, const std::string& key) {
    if (auto valid = validateNamespace(ns); !valid)
        return valid.error();
    if (auto valid = validateMemoryKey(key); !valid)
        return valid.error();
    (void)flushIfDue();
    const Name name{ns, key};
    if (const auto pending = m_pending.find(name); pending != m_pending.end())
        return std::optional<std::string>(pending->second);
    if (const auto cached = m_cache.find(name); cached != m_cache.end())
        return std::optional<std::string>(cached->second);
    auto value = m_backend->get(ns, key);
    if (!value)
        return inContext(value.error());
    if (*value)
        cacheValue(name, **value);
    return value;
}

Result<std::vector<MemoryEntry>> AgentMemory::search(std::string_view query, std::size_t limit) {
    (void)flushIfDue();
    // Ask for more, since buffered writes may replace some of the backend's hits.
    auto hits = m_backend->search(query, limit + m_pending.size(), m_options.semanticIndex);
    if (!hits)
        return inContext(hits.error());
    if (m_pending.empty()) {
        if (hits->size() > limit)
            hits->resize(limit);
        return hits;
    }
    std::vector<MemoryEntry> merged;
    for (auto& hit : *hits) {
        if (!m_pending.count({hit.ns, hit.key}))
            merged.push_back(std::move(hit));
    }
    for (const auto& [name, value] : m_pending)
        merged.push_back({name.first, name.second, value});
    return rankMemory(std::move(merged), query, limit, m_options.semanticIndex);
}

Status AgentMemory::flushIfDue() {
    if (m_pending.empty())
        return Ok{};
    if (now() - m_lastFlush < std::chrono::seconds(m_options.autoSaveIntervalSec))
        return Ok{};
    return flush();
}

Status AgentMemory::flush() {
    while (!m_pending.empty()) {
        const auto first = m_pending.begin();
        if (auto put = m_backend->put({first->first.first, first->first.second, first->second}); !put) {
            auto error = put.error();
            error.message += "; " + std::to_string(m_pending.size()) +
                             " saved memories are not written yet: they are kept and retried";
            return inContext(std::move(error));
        }
        cacheValue(first->first, first->second);
        m_pending.erase(first);
    }
    m_lastFlush = now();
    return Ok{};
}

void AgentMemory::shedCaches() {
    m_cache.clear();
    m_cacheOrder.clear();
    m_cacheBytes = 0;
}

void AgentMemory::cacheValue(const Name& name, const std::string& value) {
    uncache(name);
    if (value.size() > kCacheBytes)
        return;
    m_cache[name] = value;
    m_cacheOrder.push_back(name);
    m_cacheBytes += value.size();
    while (m_cacheBytes > kCacheBytes || m_cache.size() > kCacheEntries) {
        const auto oldest = m_cache.find(m_cacheOrder.front());
        m_cacheBytes -= oldest->second.size();
        m_cache.erase(oldest);
        m_cacheOrder.pop_front();
    }
}

void AgentMemory::uncache(const Name& name) {
    const auto it = m_cache.find(name);
    if (it == m_cache.end())
        return;
    m_cacheBytes -= it->second.size();
    m_cache.erase(it);
    m_cacheOrder.erase(std::find(m_cacheOrder.begin(), m_cacheOrder.end(), name));
}

} // namespace warren::agent
