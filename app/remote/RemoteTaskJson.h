#pragma once
// warrend's JSON read into the records the faces already know, and a TaskSpec written as the body of POST
// /v1/tasks. Pure: the server's task JSON is the one `warren show --json` prints (control::toJson), so a
// remote task is a TaskRecord like a local one, and a remote approval an ApprovalRecord.

#include "app/store/StoreTypes.h"
#include "app/tasks/TaskSpec.h"
#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace warren::remote {

// A task as GET /v1/tasks/{id} answers it; its workspace is the upload's id on the server.
Result<control::TaskRecord> taskFromJson(const nlohmann::json& task);

// The body of POST /v1/tasks. script: a scripted model's {"turns": [...]} (inline, DESIGN §9), else null.
// The server decides the sandbox (backend, image) and asks its owner for every approval no rule decides,
// so neither is sent; the spec's timeout is the sandbox's timeout_sec limit, which the server clamps to
// the owner's quota.
nlohmann::json taskRequestJson(const std::string& prompt, const std::string& uploadId,
                               const control::TaskSpec& spec, const nlohmann::json& script);

// The approval an approval_requested event asks for, as approvalNeeded carries it; nullopt for any other
// event or one that does not read.
std::optional<control::ApprovalRecord> approvalFromEvent(const std::string& taskId, const nlohmann::json& event);

// The artifacts list of GET /v1/tasks/{id}/artifacts.
Result<std::vector<control::ArtifactRecord>> artifactsFromJson(const std::string& taskId,
                                                               const nlohmann::json& answer);

} // namespace warren::remote
