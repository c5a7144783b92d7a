#pragma once
// Memories as files (memory-optimized): root/<namespace>/<encoded key>, one file per entry, each replaced
// atomically (temp file + rename), so a killed agent leaves every entry old or new. A file holds
// {"namespace", "key", "value"}: the key is read from the file, not decoded from its name, so names of
// long keys can be shortened with a hash. The root is a mount (/memories, plus the task's memory prefix);
// when it is missing or read-only every call says so and what to do.

#include "agent_core/memory/MemoryBackend.h"

#include <filesystem>

namespace warren::agent {

// A file name for any key: bytes outside [A-Za-z0-9_.-] and a leading '.' become %XX, so the name is
// never ".", "..", hidden or a path. Names longer than 200 bytes keep their first part and end with
// "~" and a 64-bit hash of the key ('~' never occurs otherwise: it is encoded as %7E).
std::string encodeMemoryKey(std::string_view key);

class FileMemoryBackend : public MemoryBackend {
public:
    explicit FileMemoryBackend(std::filesystem::path root);

    const std::filesystem::path& root() const { return m_root; }

    // The root is a directory this process can write: "memory store /memories is not available: No such
    // file or directory; mount one or use --preset local-light".
    Status checkAvailable() const;

    Result<std::optional<std::string>> get(const std::string& ns, const std::string& key) override;
    Status put(const MemoryEntry& entry) override;
    Result<std::vector<MemoryEntry>> search(std::string_view query, std::size_t limit, bool ranked) override;

private:
    Result<MemoryEntry> readEntry(const std::filesystem::path& file, const std::string& ns) const;

    std::filesystem::path m_root;
};

} // namespace warren::agent
