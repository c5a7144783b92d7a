#pragma once
// POST /v1/tasks/{id}/reply's body as the server takes it: app/wire's Reply (read strictly), with a message
// any reply may carry. Pure. (The approval's answer is app/wire's ApprovalAnswer as it is.)

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>

namespace warren::server {

// The reply's message, checked as any reply is (control::checkReply: not blank, not too long).
Result<std::string> parseReplyRequest(const nlohmann::json& body);

} // namespace warren::server
