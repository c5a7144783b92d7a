#pragma once
// A reply: the user's message to a task whose run ended (finished, failed, cancelled, paused or interrupted).
// The task goes back in the queue and its agent continues from its checkpoint with the message added to the
// conversation (task.start's `reply`). Until the agent has taken it (its user_message event) the message is
// kept beside the task, so that a reply waiting for a free slot, or one whose launch failed, is not lost.

#include "app/store/StoreTypes.h"
#include "app/tasks/DataDir.h"
#include "common/Result.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace warren::control {

inline constexpr std::size_t kMaxReplyBytes = 256 * 1024; // as a server's prompt

// Whether message can be sent: not empty (nor only white space), at most kMaxReplyBytes.
Status checkReply(std::string_view message);

// Whether the task can take a reply now: not the scripted demo (its spec's demo: its recording has no turn
// for a reply, which would fail it), not queued or running, and its agent left a checkpoint. The error says
// why not and what to do instead.
Status checkRepliable(const TaskRecord& task, bool demo, bool checkpointExists);

// tasks/<id>/reply: the message kept until the agent takes it.
std::string replyPath(const DataDir& data, const std::string& taskId);
Status keepReply(const DataDir& data, const std::string& taskId, const std::string& message);
std::optional<std::string> keptReply(const DataDir& data, const std::string& taskId);
void forgetReply(const DataDir& data, const std::string& taskId);

} // namespace warren::control
