#pragma once
// A workspace's trip to a warrend and its change's way back: the two steps of Remote mode that touch the
// user's files. uploadWorkspace packs what git would not ignore (WorkspacePack, capped), sends it to POST
// /v1/uploads and keeps the manifest of what went; bringChangesHome fetches GET /v1/tasks/{id}/patch and
// applies it to the local workspace (PatchApply), leaving every file that changed here since the upload
// as it is.

#include "app/control/ControlPlane.h"
#include "common/Result.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace warren::remote {

class RemoteClient;

struct Uploaded {
    std::string uploadId;
    nlohmann::json manifest; // WorkspaceManifest::toJson
};

// scratchDir holds the tar while it is sent (removed afterwards). The packing runs off the caller's thread;
// done runs on context's, unless context is gone (client lives as long as context).
void uploadWorkspace(RemoteClient& client, const std::string& workspace, const std::string& scratchDir,
                     std::uint64_t maxBytes, QObject* context, control::Done<Uploaded> done);

enum class ApplyMode { PlanOnly, Apply };

// workspace: where the change goes; empty: the directory the task was uploaded from (its RemoteTaskHome
// in dataDir). A task submitted from elsewhere has no home here: applied to the workspace named, against the
// patch's pre-images (PatchApply). A task still queued or running has no final change yet: an error says to wait.
void bringChangesHome(RemoteClient& client, const std::string& dataDir, const std::string& taskId,
                      const std::string& workspace, ApplyMode mode, QObject* context,
                      control::Done<control::ChangesPlan> done);

} // namespace warren::remote
