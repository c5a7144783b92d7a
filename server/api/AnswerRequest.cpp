#include "server/api/AnswerRequest.h"

#include "app/tasks/TaskReply.h"
#include "common/JsonFields.h"

namespace warren::server {

using namespace json_fields;

Result<std::string> parseReplyRequest(const nlohmann::json& body) {
    Error error;
    std::string message;
    if (!take(requireObject(body, "the request body"), error) ||
        !take(checkKeys(body, {"message"}, "the request body", ListKnown::Yes), error) ||
        !take(getString(body, "message", ""), message, error))
        return error;
    if (auto valid = control::checkReply(message); !valid)
        return valid.error();
    return message;
}

Result<ApprovalAnswer> parseApprovalAnswer(const nlohmann::json& body) {
    Error error;
    ApprovalAnswer answer;
    std::optional<std::string> note;
    std::optional<bool> always;
    if (!take(requireObject(body, "the request body"), error) ||
        !take(checkKeys(body, {"approved", "note", "always"}, "the request body", ListKnown::Yes), error) ||
        !take(getBool(body, "approved", ""), answer.approved, error) ||
        !take(getOptionalString(body, "note", ""), note, error) ||
        !take(getOptionalBool(body, "always", ""), always, error))
        return error;
    answer.note = note.value_or("");
    answer.always = always.value_or(false);
    return answer;
}

} // namespace warren::server
