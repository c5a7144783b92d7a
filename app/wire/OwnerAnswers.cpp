#include "app/wire/OwnerAnswers.h"

#include "common/JsonFields.h"

namespace warren::wire {

using nlohmann::json;
using namespace json_fields;

json Reply::toJson() const {
    return {{"message", message}};
}

Result<Reply> Reply::fromJson(const json& body) {
    Error error;
    Reply reply;
    if (!take(requireObject(body, "the request body"), error) ||
        !take(checkKeys(body, {"message"}, "the request body", ListKnown::Yes), error) ||
        !take(getString(body, "message", ""), reply.message, error))
        return error;
    return reply;
}

json ApprovalAnswer::toJson() const {
    json body = {{"approved", approved}, {"always", always}};
    if (!note.empty())
        body["note"] = note;
    return body;
}

Result<ApprovalAnswer> ApprovalAnswer::fromJson(const json& body) {
    Error error;
    ApprovalAnswer answer;
    if (!take(requireObject(body, "the request body"), error) ||
        !take(checkKeys(body, {"approved", "note", "always"}, "the request body", ListKnown::Yes), error) ||
        !take(getBool(body, "approved", ""), answer.approved, error) ||
        !takeIfPresent(getOptionalString(body, "note", ""), answer.note, error) ||
        !takeIfPresent(getOptionalBool(body, "always", ""), answer.always, error))
        return error;
    return answer;
}

} // namespace warren::wire
