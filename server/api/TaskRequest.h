#pragma once
// The body of POST /v1/tasks as the server takes it: app/wire's TaskRequest (read strictly, each refusal
// naming the field), with its limits read as the sandbox limits a task may ask for, which the caller's
// quotas then clamp (Quotas::admit). Pure.

#include "app/wire/TaskRequest.h"
#include "common/Result.h"
#include "server/accounts/Limits.h"

#include <nlohmann/json.hpp>

namespace warren::server {

struct TaskRequest {
    wire::TaskRequest body;
    accounts::Limits limits; // body.limits: sandbox limits only
};

Result<TaskRequest> parseTaskRequest(const nlohmann::json& body);

} // namespace warren::server
