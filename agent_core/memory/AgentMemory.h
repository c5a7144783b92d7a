#pragma once
// The agent's memory as the memory_* tools and the loop see it: namespaced entries on a backend, checked
// before they reach it, with optional write-behind (auto_save_interval) and a small read cache.
//
// Write-behind: with autoSaveIntervalSec > 0, save() only buffers; load() and search() see the buffered
// values. The buffer is written when the interval has passed since the last flush (checked on every call
// and by flushIfDue(), which the loop calls each step) and by flush() (the loop calls it at exit). A failed
// flush keeps what it could not write, to retry on the next call; save(), load() and search() do not
// report it (the value is safe in the buffer), flushIfDue() and flush() do. With 0, save() writes at once.

#include "agent_core/memory/MemoryBackend.h"
#include "agent_core/memory/MemoryNames.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warren::agent {

class AgentMemory {
public:
    using Clock = std::function<std::chrono::steady_clock::time_point()>;

    struct Options {
        // The task's memory_prefix. The backend is already scoped by it (makeMemoryBackend, or the control
        // plane for the host backend); here it only names the store in error messages.
        std::string prefix;
        std::uint64_t autoSaveIntervalSec = 0; // 0: every save is written at once
        bool semanticIndex = false;            // search() ranks (BM25) instead of matching substrings
        Clock clock;                           // steady_clock::now when empty; tests pass a fake one
    };

    // The read cache's bounds (bytes of values, entries); the oldest go first.
    static constexpr std::size_t kCacheBytes = 1024 * 1024;
    static constexpr std::size_t kCacheEntries = 1024;

    AgentMemory(std::unique_ptr<MemoryBackend> backend, Options options);

    // Errors: an invalid namespace, key or value (named), or the backend's error when writing at once.
    Status save(const std::string& ns, const std::string& key, std::string value);
    // nullopt: nothing under ns/key.
    Result<std::optional<std::string>> load(const std::string& ns, const std::string& key);
    // Every namespace; at most limit, best first. Buffered writes take the place of what the backend has
    // under their names; with buffered writes present the merged hits are ranked here (rankMemory).
    Result<std::vector<MemoryEntry>> search(std::string_view query, std::size_t limit);

    Status flushIfDue();
    Status flush();
    std::size_t pendingWrites() const { return m_pending.size(); }

    // Drops the read cache (on_low_memory). Buffered writes are never dropped.
    void shedCaches();
    std::size_t cachedEntries() const { return m_cache.size(); }

    bool writesBehind() const { return m_options.autoSaveIntervalSec > 0; }
    std::uint64_t autoSaveIntervalSec() const { return m_options.autoSaveIntervalSec; }

private:
    using Name = std::pair<std::string, std::string>; // (ns, key)

    std::chrono::steady_clock::time_point now() const;
    Error inContext(Error error) const;
    void cacheValue(const Name& name, const std::string& value);
    void uncache(const Name& name);

    std::unique_ptr<MemoryBackend> m_backend;
    Options m_options;
    std::map<Name, std::string> m_pending;
    std::chrono::steady_clock::time_point m_lastFlush;
    std::map<Name, std::string> m_cache;
    std::deque<Name> m_cacheOrder; // insertion order, for eviction
    std::size_t m_cacheBytes = 0;
};

} // namespace warren::agent
