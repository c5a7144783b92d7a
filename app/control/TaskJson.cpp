#include "app/control/ControlPlane.h"

namespace warren::control {

nlohmann::json toJson(const TaskRecord& task) {
    return {{"id", task.id},
            {"status", taskStatusName(task.status)},
            {"prompt", task.prompt},
            {"workspace", task.workspace},
            {"created_at", task.createdAt},
            {"started_at", task.startedAt},
            {"finished_at", task.finishedAt},
            {"finish_reason", task.finishReason},
            {"summary", task.summary},
            {"error", task.error},
            {"steps", task.steps},
            {"tokens_in", task.tokensIn},
            {"tokens_out", task.tokensOut},
            {"runs", task.runs},
            {"spec", nlohmann::json::parse(task.spec, nullptr, false)}};
}

} // namespace warren::control
