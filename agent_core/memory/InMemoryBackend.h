#pragma once
// Memories that last as long as the process (local-light): nothing to mount, nothing left behind.

#include "agent_core/memory/MemoryBackend.h"

#include <map>
#include <utility>

namespace warren::agent {

class InMemoryBackend : public MemoryBackend {
public:
    Result<std::optional<std::string>> get(const std::string& ns, const std::string& key) override;
    Status put(const MemoryEntry& entry) override;
    Result<std::vector<MemoryEntry>> search(std::string_view query, std::size_t limit, bool ranked) override;

private:
    std::map<std::pair<std::string, std::string>, std::string> m_entries; // (ns, key) -> value
};

} // namespace warren::agent
