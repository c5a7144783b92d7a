#pragma once
// The bodies of an owner's answers to a task (docs/SERVER.md), read strictly like TaskRequest: an unknown
// field or a wrong type is refused with a message naming it. Pure.
//
//   POST /v1/tasks/{id}/reply                       {"message"}
//   POST /v1/tasks/{id}/approvals/{call}            {"approved", "note"?, "always"?}

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>

namespace warren::server {

// The reply's message, checked as any reply is (control::checkReply: not blank, not too long).
Result<std::string> parseReplyRequest(const nlohmann::json& body);

struct ApprovalAnswer {
    bool approved = false;
    std::string note;
    bool always = false; // approve this kind of call for the rest of the task
};

Result<ApprovalAnswer> parseApprovalAnswer(const nlohmann::json& body);

} // namespace warren::server
