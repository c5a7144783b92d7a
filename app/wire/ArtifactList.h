#pragma once
// GET /v1/tasks/{id}/artifacts: {"artifacts": [{"path", "bytes", "sha256"}, ...]}, the task's records as
// the API lists them (the task is the URL's). Pure; the reader refuses a list of another shape and an
// artifact without a path, never throws.

#include "app/store/StoreTypes.h"
#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::wire {

nlohmann::json artifactsToJson(const std::vector<control::ArtifactRecord>& artifacts);
// taskId: the task whose URL was asked, set on each record.
Result<std::vector<control::ArtifactRecord>> artifactsFromJson(const std::string& taskId,
                                                               const nlohmann::json& answer);

} // namespace warren::wire
