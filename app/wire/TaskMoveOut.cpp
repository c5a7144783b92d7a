#include "app/wire/TaskMoveOut.h"

#include "app/wire/TaskAnswer.h"
#include "common/JsonFields.h"

namespace warren::wire {

using nlohmann::json;
using namespace json_fields;

Status checkMoveOutRequest(const json& body) {
    if (auto object = requireObject(body, "the request body"); !object)
        return object;
    if (auto keys = checkKeys(body, {"to"}, "the request body", ListKnown::Yes); !keys)
        return keys;
    std::string to;
    Error error;
    if (!take(getString(body, "to", ""), to, error))
        return error;
    if (to != kMoveHome)
        return Error{ErrorCode::InvalidArgument,
                     "to: a server's task moves home only: \"local\", got \"" + to + "\""};
    return Ok{};
}

json moveOutAnswerJson(json task, control::TaskStatus was, const std::string& checkpoint) {
    return {{"task", std::move(task)}, {"was", control::taskStatusName(was)}, {"checkpoint", checkpoint}};
}

Result<MoveOutAnswer> MoveOutAnswer::fromJson(const json& answer) {
    if (auto object = requireObject(answer, "warrend's move"); !object)
        return object.error();
    const auto task = answer.find("task");
    if (task == answer.end())
        return makeError(ErrorCode::System, "warrend's move has no task");
    auto record = taskFromJson(*task);
    if (!record)
        return record.error();
    MoveOutAnswer read;
    read.task = std::move(*record);
    std::string was;
    Error error;
    if (!take(getString(answer, "was", "warrend's move"), was, error) ||
        !take(getString(answer, "checkpoint", "warrend's move"), read.checkpoint, error))
        return error;
    const auto status = control::taskStatusFromName(was);
    if (!status || !control::canMove(*status))
        return makeError(ErrorCode::System,
                         "warrend's move says the task was \"" + was + "\", which does not move");
    read.was = *status;
    return read;
}

} // namespace warren::wire
