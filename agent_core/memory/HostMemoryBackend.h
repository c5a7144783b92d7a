#pragma once
// Memories in the control plane's store (long-term-memory), through memory.get / memory.put /
// memory.search (docs/PROTOCOL.md). The control plane prefixes every key with the task's memory_prefix
// itself, because the agent is not trusted to: keys go out unprefixed. The store ranks with its own
// full-text index, so search()'s ranked flag has no say here (the protocol carries none).

#include "agent_core/memory/MemoryBackend.h"

#include <functional>
#include <nlohmann/json.hpp>

namespace warren::agent {

// One request to the control plane: its result, or an error (transport, timeout, the peer's error reply).
using HostMemoryCall =
    std::function<Result<nlohmann::json>(const std::string& method, const nlohmann::json& params)>;

class HostMemoryBackend : public MemoryBackend {
public:
    explicit HostMemoryBackend(HostMemoryCall call);

    Result<std::optional<std::string>> get(const std::string& ns, const std::string& key) override;
    Status put(const MemoryEntry& entry) override;
    Result<std::vector<MemoryEntry>> search(std::string_view query, std::size_t limit, bool ranked) override;

private:
    Result<nlohmann::json> call(const char* method, const nlohmann::json& params);

    HostMemoryCall m_call;
};

} // namespace warren::agent
