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
};

Status saveTaskHome(const std::string& dataDir, const std::string& taskId, const RemoteTaskHome& home);
// nullopt: the task was not submitted from this data directory.
Result<std::optional<RemoteTaskHome>> loadTaskHome(const std::string& dataDir, const std::string& taskId);

} // namespace warren::remote
