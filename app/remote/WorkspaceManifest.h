#pragma once
// What a workspace upload held, kept beside the task by the client: each regular file's path, size,
// SHA-256 and executable bit, and each symbolic link's target. PatchApply compares the local workspace with
// it to tell a file the user changed since the upload (never overwritten) from one the task's patch may
// replace. Directories are left out: git's patch does not carry them.
//
// JSON: {"version": 1, "entries": [{"path", "type": "file", "size", "sha256", "executable"} |
// {"path", "type": "symlink", "target"}]}, entries sorted by path. Read strictly: a manifest is what this
// client wrote, so anything else in it means it is damaged.

#include "common/Result.h"

#include <functional>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::remote {

struct ManifestEntry {
    enum class Type { File, Symlink };
    std::string path; // relative to the workspace, '/'-separated
    Type type = Type::File;
    std::uint64_t size = 0;  // files
    std::string sha256;      // files: lowercase hex
    bool executable = false; // files: the owner's execute bit, as git sees it
    std::string target;      // symlinks

    bool operator==(const ManifestEntry&) const = default;
};

class WorkspaceManifest {
public:
    WorkspaceManifest() = default;
    explicit WorkspaceManifest(std::vector<ManifestEntry> entries); // sorts them by path

    const std::vector<ManifestEntry>& entries() const { return m_entries; }
    // nullptr when the upload held nothing at path (or a directory).
    const ManifestEntry* find(const std::string& path) const;

    nlohmann::json toJson() const;
    static Result<WorkspaceManifest> fromJson(const nlohmann::json& json);

    bool operator==(const WorkspaceManifest&) const = default;

private:
    std::vector<ManifestEntry> m_entries;
};

// Incremental SHA-256 for files that are streamed, never held whole.
class Sha256 {
public:
    Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    ~Sha256();
    void add(const char* data, std::size_t size);
    std::string hex(); // once, at the end

private:
    struct State;
    std::unique_ptr<State> m_state;
};

// The SHA-256 of a regular file's content, read in pieces; the error names the file.
Result<std::string> fileSha256(const std::filesystem::path& file, const std::string& name);
// Reads the open file fd to its end a chunk at a time, handing each to take; name is the file's in errors.
Status readChunks(int fd, const std::string& name, const std::function<void(const char*, std::size_t)>& take);

} // namespace warren::remote
