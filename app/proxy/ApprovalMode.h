#pragma once
// What an approval no rule decides becomes (--approve, a task spec's "approval"): ask the user, allow it
// (auto) or deny it. A word of a task's spec as much as of the proxy, so it needs neither the proxy nor Qt.

#include "common/Result.h"

#include <string>

namespace warren::control {

enum class ApprovalMode { Ask, Auto, Deny };
Result<ApprovalMode> parseApprovalMode(const std::string& text); // "ask", "auto", "deny"
const char* approvalModeName(ApprovalMode mode);

} // namespace warren::control
