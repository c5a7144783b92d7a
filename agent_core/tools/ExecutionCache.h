#pragma once
// The outcomes of read-only tool calls, so a call repeated with the same arguments over unchanged files is
// answered without running it again. The key holds the tool's contentKey, so a change to what the call
// reads is a different key, never a stale hit. Bounded by a byte budget, least recently used out first;
// cleared whole when memory runs low. Pure: no I/O.
//
// Only successful outcomes are stored: a failure is cheap to reproduce, usually about something the model
// is about to fix (a missing file, a bad argument), and a stopped call (cancelled, timed out) is partial
// output that depends on the moment, not on the files.

#include "agent_core/tools/Tool.h"

#include <cstddef>
#include <cstdint>
#include <list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

namespace warren::agent {

// The key of a call: the tool, its arguments in canonical JSON (keys sorted) and its content key, each
// length-prefixed so no part can run into the next.
std::string cacheKey(std::string_view tool, const nlohmann::json& arguments, std::string_view contentKey);

class ExecutionCache {
public:
    static constexpr std::size_t kDefaultBudgetBytes = 8 * 1024 * 1024;

    explicit ExecutionCache(std::size_t budgetBytes = kDefaultBudgetBytes) : m_budget(budgetBytes) {}
    ExecutionCache(const ExecutionCache&) = delete;
    ExecutionCache& operator=(const ExecutionCache&) = delete;

    // The stored outcome, now the most recently used, or nullptr; counts a hit or a miss. The pointer is
    // valid until the next store() or clear().
    const ToolOutcome* find(const std::string& key);
    // Whether find(key) would answer, without counting or touching the order.
    bool contains(const std::string& key) const { return m_index.contains(key); }

    // Stores a successful outcome under key (replacing any), evicting the least recently used entries to
    // stay within the budget. Failed, stopped and over-budget outcomes are not stored.
    void store(std::string key, ToolOutcome outcome);

    void clear();

    std::size_t bytes() const { return m_bytes; } // what the entries hold, as estimated by entryBytes
    std::size_t size() const { return m_entries.size(); }
    std::size_t budget() const { return m_budget; }
    std::uint64_t hits() const { return m_hits; }
    std::uint64_t misses() const { return m_misses; }

private:
    struct Entry {
        std::string key;
        ToolOutcome outcome;
        std::size_t bytes = 0;
    };
    static std::size_t entryBytes(const std::string& key, const ToolOutcome& outcome);
    void erase(std::list<Entry>::iterator entry);

    std::size_t m_budget;
    std::size_t m_bytes = 0;
    std::list<Entry> m_entries;                                               // most recently used first
    std::unordered_map<std::string_view, std::list<Entry>::iterator> m_index; // views of Entry::key
    std::uint64_t m_hits = 0;
    std::uint64_t m_misses = 0;
};

} // namespace warren::agent
