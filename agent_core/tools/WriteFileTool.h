#pragma once
// write_file {path, content}: creates or replaces a workspace file whole, atomically, making its parent
// directories; an existing file keeps its mode.

#include "agent_core/tools/Tool.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <sys/stat.h>

namespace warren::agent {

class WriteFileTool : public Tool {
public:
    static constexpr std::string_view kName = "write_file";

    static protocol::ToolSpec spec();

    ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) override;
};

// Writes content into an unnamed file in the same directory (O_TMPFILE; a named temporary where the file
// system has none), fsync, then links it into place or renames it over the old one: a reader, or a crash,
// sees the old file or the new one, never a mix, and no temporary file is left behind. When `replaced` is
// the file being replaced, its mode and (where the process may) its owner are kept; a new file gets 0666
// less the umask, and the new version's mtime is at least a whole second past the old one's (tools that
// compare mtimes in seconds must see the change). Messages name `shown`.
Status writeFileAtomically(const std::filesystem::path& path, const std::string& shown,
                           std::string_view content, const struct stat* replaced);

// Refuses to replace a file with no write permission bit, even as root, and one the process may not
// write: a rename would replace it regardless, and a read-only file is the user saying "not this one".
Status checkReplaceable(const std::filesystem::path& path, const std::string& shown,
                        const struct stat& status);

} // namespace warren::agent
