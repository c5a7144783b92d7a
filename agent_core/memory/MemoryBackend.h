#pragma once
// Where the agent's memories live: in the process (local-light), in files under /memories
// (memory-optimized) or in the control plane's store (long-term-memory). AgentMemory sits on top and adds
// namespaces' validation, write-behind and a read cache.

#include "common/Result.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

struct MemoryEntry {
    std::string ns;
    std::string key;
    std::string value;
    friend bool operator==(const MemoryEntry&, const MemoryEntry&) = default;
};

class MemoryBackend {
public:
    virtual ~MemoryBackend() = default;

    // nullopt: no entry under ns/key.
    virtual Result<std::optional<std::string>> get(const std::string& ns, const std::string& key) = 0;
    // Creates or replaces the entry.
    virtual Status put(const MemoryEntry& entry) = 0;
    // Entries of every namespace matching query, at most limit, best first (rankMemory's rules). ranked
    // chooses ranked full-text search over substring matching where the backend can choose.
    virtual Result<std::vector<MemoryEntry>> search(std::string_view query, std::size_t limit,
                                                    bool ranked) = 0;
};

} // namespace warren::agent
