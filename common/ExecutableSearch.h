#pragma once
// Where a command named without a slash is, as a CLI's install or an image's program is looked for: the
// first DIR/name of a PATH-like list (colon-separated) that is a regular file this process may execute.
// Only absolute directories are looked in: a relative entry would depend on where the process started.
// (A child started by name follows execvp's own rules instead: agent_core/process/ChildStart.)

#include <filesystem>
#include <optional>
#include <string_view>

namespace warren {

bool isExecutableFile(const std::filesystem::path& file);
std::optional<std::filesystem::path> findExecutableOnPath(std::string_view name, std::string_view searchPath);

} // namespace warren
