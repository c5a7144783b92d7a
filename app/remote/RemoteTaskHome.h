#pragma once
// Where a task submitted to a server came from, kept on this machine: the server, the local workspace
// and what was uploaded of it (the upload's manifest), so `warren apply` and the window's Apply changes
// know where the change goes and which local files changed since. One small JSON file per task in the
// local data directory (remote/TASK.json), written atomically.

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace warren::remote {

struct RemoteTaskHome {
    std::string server;    // the URL it was submitted to
    std::string workspace; // the local workspace, absolute
    std::string uploadId;
    nlohmann::json manifest; // what was uploaded (WorkspacePack's manifest)
    // A scripted task's script (null for a model's) and whether it is the demo: the server's spec says only
    // "scripted", and Rerun needs the script again.
    nlohmann::json script;
    bool demo = false;
};

Status saveTaskHome(const std::string& dataDir, const std::string& taskId, const RemoteTaskHome& home);
// nullopt: the task was not submitted from this data directory.
Result<std::optional<RemoteTaskHome>> loadTaskHome(const std::string& dataDir, const std::string& taskId);
// Where a scripted task's script is kept, as a file a spec's "scripted:FILE" names.
std::string taskScriptFile(const std::string& dataDir, const std::string& taskId);

} // namespace warren::remote
