#include "server/api/AnswerRequest.h"

#include "app/tasks/TaskReply.h"
#include "app/wire/OwnerAnswers.h"

namespace warren::server {

Result<std::string> parseReplyRequest(const nlohmann::json& body) {
    auto reply = wire::Reply::fromJson(body);
    if (!reply)
        return reply.error();
    if (auto valid = control::checkReply(reply->message); !valid)
        return valid.error();
    return std::move(reply->message);
}

} // namespace warren::server
