#include "app/tasks/TaskReply.h"

#include "app/tasks/MovedTask.h"
#include "app/tasks/TaskRetention.h"
#include "common/FileText.h"

#include <algorithm>
#include <cctype>

namespace warren::control {

Status checkReply(std::string_view message) {
    if (std::all_of(message.begin(), message.end(), [](unsigned char c) { return std::isspace(c) != 0; }))
        return makeError(ErrorCode::InvalidArgument, "the reply is empty; say what the agent should do next");
    if (message.size() > kMaxReplyBytes)
        return makeError(ErrorCode::InvalidArgument, "the reply is " + std::to_string(message.size()) +
                                                         " bytes, more than the " + std::to_string(kMaxReplyBytes) +
                                                         " a reply may have; shorten it, or put the text in a "
                                                         "workspace file and name it");
    return Ok{};
}

Status checkRepliable(const TaskRecord& task, bool demo, bool checkpointExists) {
    if (demo)
        return makeError(ErrorCode::InvalidArgument,
                         "task " + task.id +
                             " is the scripted demo: it plays a recorded agent, which cannot answer "
                             "a reply; set up a model in Settings and start a task of your own");
    if (auto here = checkNotMoved(task, "be continued"); !here)
        return here;
    if (task.status == TaskStatus::Queued || task.status == TaskStatus::Running)
        return makeError(ErrorCode::InvalidArgument, "task " + task.id + " is " + taskStatusName(task.status) +
                                                         "; wait for it or cancel it (warren cancel " + task.id +
                                                         "), then reply");
    if (auto kept = checkPartsKept(task, "be continued"); !kept)
        return kept;
    if (!checkpointExists)
        return makeError(ErrorCode::InvalidArgument,
                         "task " + task.id + " cannot be continued: its agent left no checkpoint (the run ended "
                                             "before its first step); start a new task instead");
    return Ok{};
}

std::string replyPath(const DataDir& data, const std::string& taskId) { return data.taskFile(taskId, "reply"); }

Status keepReply(const DataDir& data, const std::string& taskId, const std::string& message) {
    return data.keepTaskFile(taskId, "reply", message);
}

std::optional<std::string> keptReply(const DataDir& data, const std::string& taskId) {
    auto text = readFileText(replyPath(data, taskId));
    if (!text)
        return std::nullopt;
    return std::move(*text);
}

void forgetReply(const DataDir& data, const std::string& taskId) { data.forgetTaskFile(taskId, "reply"); }

} // namespace warren::control
