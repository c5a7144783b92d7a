#include "app/wire/ArtifactList.h"

#include "app/wire/Member.h"
#include "common/JsonFields.h"

namespace warren::wire {

using nlohmann::json;
using json_fields::memberString;
using json_fields::memberUint;

json artifactsToJson(const std::vector<control::ArtifactRecord>& artifacts) {
    json list = json::array();
    for (const auto& artifact : artifacts)
        list.push_back({{"path", artifact.path}, {"bytes", artifact.bytes}, {"sha256", artifact.sha256}});
    return {{"artifacts", list}};
}

Result<std::vector<control::ArtifactRecord>> artifactsFromJson(const std::string& taskId, const json& answer) {
    const json& list = member(answer, "artifacts");
    if (!list.is_array())
        return makeError(ErrorCode::System, "warrend's list of artifacts does not read: expected {\"artifacts\": [...]}");
    std::vector<control::ArtifactRecord> artifacts;
    for (const auto& item : list) {
        control::ArtifactRecord artifact;
        artifact.taskId = taskId;
        artifact.path = memberString(item, "path");
        if (artifact.path.empty())
            return makeError(ErrorCode::System, "warrend listed an artifact without a path");
        artifact.bytes = memberUint(item, "bytes");
        artifact.sha256 = memberString(item, "sha256");
        artifacts.push_back(std::move(artifact));
    }
    return artifacts;
}

} // namespace warren::wire
