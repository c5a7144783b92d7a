#include "server/api/TaskRequest.h"

namespace warren::server {

Result<TaskRequest> parseTaskRequest(const nlohmann::json& body) {
    auto read = wire::TaskRequest::fromJson(body);
    if (!read)
        return read.error();
    auto limits = accounts::limitsFromJson(read->limits, accounts::LimitsScope::Request, "limits");
    if (!limits)
        return limits.error();
    return TaskRequest{std::move(*read), *limits};
}

} // namespace warren::server
