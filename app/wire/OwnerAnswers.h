#pragma once
// The bodies of an owner's answers to a task (docs/SERVER.md), written by the client and read strictly by
// the server: an unknown field or a wrong type is refused with a message naming it. Pure.
//
//   POST /v1/tasks/{id}/reply                       {"message"}
//   POST /v1/tasks/{id}/approvals/{call}            {"approved", "note"?, "always"?}

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>

namespace warren::wire {

// The reply's message; whether it is one a task takes (not blank, not too long) is control::checkReply's.
struct Reply {
    std::string message;

    nlohmann::json toJson() const;
    static Result<Reply> fromJson(const nlohmann::json& body);
};

struct ApprovalAnswer {
    bool approved = false;
    std::string note;    // written only when there is one
    bool always = false; // approve this kind of call for the rest of the task

    nlohmann::json toJson() const;
    static Result<ApprovalAnswer> fromJson(const nlohmann::json& body);
};

} // namespace warren::wire
