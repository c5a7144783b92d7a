#pragma once
// The checkpoint in the state directory (/state in the sandbox): stateDir/checkpoint.json, replaced
// atomically after every step, so a run killed at any moment leaves the previous checkpoint or the new one.
// A checkpoint it cannot read is reported and left in place: deleting it would silently restart the task.

#include "agent_core/state/Checkpoint.h"
#include "common/Result.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warren::agent {

class CheckpointStore {
public:
    explicit CheckpointStore(std::filesystem::path stateDir);

    // nullopt when there is no checkpoint (a fresh task). An unreadable or corrupt file is an error naming
    // it and saying to move it away to start fresh. Temp files a killed save left behind are removed.
    Result<std::optional<AgentState>> load() const;

    // Writes state and returns the bytes written. durable also syncs the file and the directory (power
    // loss); without it the replacement is still atomic against a killed process. On failure (disk full,
    // read-only state dir, ...) the previous checkpoint stays as it was and the message says so.
    Result<std::uint64_t> save(const AgentState& state, bool durable);

    std::filesystem::path path() const { return m_stateDir / "checkpoint.json"; }

private:
    // The checkpoint's text: the conversation only grows between compactions, so each message's JSON is
    // kept and reused while the message is unchanged.
    std::string serialize(const AgentState& state);

    std::filesystem::path m_stateDir;
    std::vector<std::pair<protocol::ChatMessage, std::string>> m_messageJson;
};

} // namespace warren::agent
