#include "app/proxy/ApprovalMode.h"

namespace warren::control {

const char* approvalModeName(ApprovalMode mode) {
    switch (mode) {
    case ApprovalMode::Ask:
        return "ask";
    case ApprovalMode::Auto:
        return "auto";
    case ApprovalMode::Deny:
        return "deny";
    }
    return "deny";
}

Result<ApprovalMode> parseApprovalMode(const std::string& text) {
    if (text == "ask")
        return ApprovalMode::Ask;
    if (text == "auto")
        return ApprovalMode::Auto;
    if (text == "deny")
        return ApprovalMode::Deny;
    return makeError(ErrorCode::InvalidArgument,
                     "unknown approval mode \"" + text + "\": use ask, auto or deny");
}

} // namespace warren::control
