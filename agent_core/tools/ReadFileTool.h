#pragma once
// read_file {path, offset?, limit?}: lines of a workspace text file, numbered like `cat -n`. Offset and
// limit count lines; the output stops at the output limit with a note saying how to read on.

#include "agent_core/tools/Tool.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <sys/stat.h>

namespace warren::agent {

class ReadFileTool : public Tool {
public:
    static constexpr std::string_view kName = "read_file";
    static constexpr std::uint64_t kDefaultLimit = 2000; // lines

    static protocol::ToolSpec spec();

    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
    bool readOnly() const override { return true; }
    bool concurrencySafe() const override { return true; }
    // The resolved path and its stat identity: any write changes the ctime, a rename the inode.
    std::optional<std::string> contentKey(const nlohmann::json& arguments, const ToolEnv& env) const override;
};

// How much of a file's start decides whether it is binary: a NUL byte in it, as git and grep judge.
inline constexpr std::size_t kBinaryProbeBytes = 8 * 1024;
bool looksBinary(std::string_view head);

struct TextFile {
    std::string content;
    struct stat status {};
};

// A workspace file read whole, as bytes (a file write_file replaces, one apply_patch deletes). The message,
// to be prefixed with the tool's name, says why it was refused: missing, a directory, not a regular file,
// or larger than maxBytes. `shown` is how the path appears in messages.
Result<TextFile> readWholeFile(const std::filesystem::path& path, const std::string& shown,
                               std::size_t maxBytes);
// The same, refusing a binary file (edit_file, search, apply_patch's updates).
Result<TextFile> readTextFile(const std::filesystem::path& path, const std::string& shown,
                              std::size_t maxBytes);

} // namespace warren::agent
